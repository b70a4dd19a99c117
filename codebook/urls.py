from django.urls import path

from . import views

app_name = "codebook"

urlpatterns = [
    path("studies/<id:study_id>/codebook/", views.codebook, name="codebook"),
    path("studies/<id:study_id>/codebook/<id:category_id>/change/", views.change, name="change"),
    path("studies/<id:study_id>/codebook/changes/", views.changelog, name="changelog"),
    path("studies/<id:study_id>/proposals/", views.proposals, name="proposals"),
    path("studies/<id:study_id>/proposals/<id:proposal_id>/", views.proposal, name="proposal"),
    path("studies/<id:study_id>/codebook/export.<str:fmt>", views.export, name="export"),
    path("studies/<id:study_id>/codebook/details.csv", views.details_csv, name="details_csv"),
    path("studies/<id:study_id>/codebook/<id:category_id>/details/", views.details, name="details"),
    # During the pilot, from the labeling page
    path("studies/<id:study_id>/categories/", views.pilot_category_add, name="category_add"),
    path("votes/", views.my_votes, name="my_votes"),
]
