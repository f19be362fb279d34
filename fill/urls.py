"""REST routes of the fill app, mounted under /api/v1/."""

urlpatterns: list = []
