from django.urls import path

from . import api
from .views import screening
from .views import sources as views

app_name = "ingest"

urlpatterns = [
    # Sources
    path("sources/", views.source_list, name="source_list"),
    path("sources/<id:source_id>/", views.source_detail, name="source_detail"),
    path("sources/<id:source_id>/ingest/", views.source_ingest, name="source_ingest"),
    path("sources/<id:source_id>/screening.csv", screening.source_decisions_csv, name="source_decisions_csv"),
    # Summary batches
    path("summary-batches/<id:batch_id>/progress/", views.batch_progress, name="batch_progress"),
    # Screening
    path("screening/", screening.screening_list, name="screening_list"),
    path("screening/samples/", screening.sample_create, name="sample_create"),
    path("screening/samples/<id:sample_id>/", screening.sample_detail, name="sample_detail"),
    path("screening/samples/<id:sample_id>/decide/", screening.sample_decide, name="sample_decide"),
    path("screening/samples/<id:sample_id>/queue/", screening.sample_queue, name="sample_queue"),
    path("screening/samples/<id:sample_id>/items/<id:item_id>/judge/", screening.item_judge, name="item_judge"),
    # Runs
    path("runs/<id:run_id>/progress/", views.run_progress, name="run_progress"),
    path("runs/<id:run_id>/retry/", views.run_retry, name="run_retry"),
]

api_urlpatterns = [
    path("screening/samples/<id:sample_id>/", api.SampleFiguresAPI.as_view(), name="sample_figures"),
]
