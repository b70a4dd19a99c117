from django.urls import path

from . import views

app_name = "corpus"

urlpatterns = [
    path("studies/<id:study_id>/corpus.csv", views.corpus_csv, name="corpus_csv"),
    path("studies/<id:study_id>/corpus.jsonl", views.corpus_jsonl, name="corpus_jsonl"),
    path("studies/<id:study_id>/study.json", views.study_json, name="study_json"),
    path("studies/<id:study_id>/dataset-card.md", views.card, name="dataset_card"),
    path("studies/<id:study_id>/replication.zip", views.replication_package, name="replication_package"),
    path("studies/<id:study_id>/project.qdpx", views.qdpx, name="qdpx"),
]
