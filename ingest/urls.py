from django.urls import path

from . import views

app_name = "ingest"

urlpatterns = [
    # Sources
    path("sources/", views.source_list, name="source_list"),
    path("sources/<int:source_id>/", views.source_detail, name="source_detail"),
    path("sources/<int:source_id>/ingest/", views.source_ingest, name="source_ingest"),
    # Summary batches
    path("summary-batches/<int:batch_id>/progress/", views.batch_progress, name="batch_progress"),
    # Runs
    path("runs/<int:run_id>/progress/", views.run_progress, name="run_progress"),
]
