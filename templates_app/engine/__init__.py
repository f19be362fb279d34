"""Template definitions without Django: the field model, its validation, and PDF import."""
