from django.urls import path

from . import views

app_name = "interviews"

urlpatterns = [
    path("studies/<id:study_id>/interviews/", views.interviews, name="interviews"),
    path("studies/<id:study_id>/interviews/results/", views.interview_results, name="interview_results"),
    path("studies/<id:study_id>/interviews/guide/", views.guide, name="guide"),
    path("studies/<id:study_id>/interviews/participants/", views.participant_add, name="participant_add"),
    path("studies/<id:study_id>/interviews/results.csv", views.interview_results_csv, name="interview_results_csv"),
    path("studies/<id:study_id>/interviews/<id:participant_id>/", views.participant, name="participant"),
]
