from django.urls import path

from . import views

app_name = "taxonomy"

urlpatterns = [
    path("studies/<id:study_id>/codebook/", views.codebook, name="codebook"),
    path("studies/<id:study_id>/codebook/<id:category_id>/change/", views.change, name="change"),
    path("studies/<id:study_id>/codebook/changes/", views.changelog, name="changelog"),
    path("studies/<id:study_id>/proposals/", views.proposals, name="proposals"),
    path("studies/<id:study_id>/proposals/<id:proposal_id>/", views.proposal, name="proposal"),
    path("studies/<id:study_id>/codebook/export.<str:fmt>", views.export, name="export"),
    path("studies/<id:study_id>/codebook/details.csv", views.details_csv, name="details_csv"),
    path("studies/<id:study_id>/codebook/<id:category_id>/details/", views.details, name="details"),
    path("studies/<id:study_id>/interviews/", views.interviews, name="interviews"),
    path("studies/<id:study_id>/interviews/results/", views.interview_results, name="interview_results"),
    path("studies/<id:study_id>/interviews/guide/", views.guide, name="guide"),
    path("studies/<id:study_id>/interviews/participants/", views.participant_add, name="participant_add"),
    path("studies/<id:study_id>/interviews/results.csv", views.interview_results_csv, name="interview_results_csv"),
    path("studies/<id:study_id>/interviews/<id:participant_id>/", views.participant, name="participant"),
    path("votes/", views.my_votes, name="my_votes"),
    path("codebooks/import/", views.import_file, name="import"),
]
