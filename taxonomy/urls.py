from django.urls import path

from . import views

app_name = "taxonomy"

urlpatterns = [
    path("codebooks/import/", views.import_file, name="import"),
]
