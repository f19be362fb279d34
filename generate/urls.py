"""REST routes of the generate app, mounted under /api/v1/."""

urlpatterns: list = []
