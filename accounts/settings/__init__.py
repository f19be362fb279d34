"""The organization's settings page at /settings/<slug>/: API keys, payload keys, embedding
origins and usage are accounts' own; other apps add sections of their own (webhooks adds its
endpoint and delivery log) through :mod:`accounts.settings.sections`, since accounts sits below
them and imports none of them."""
