from django.urls import path

from .views import changes, pairs, proposals, saturation, second_language, tree

app_name = "codebook"

urlpatterns = [
    # The codebook, its files and curated details
    path("studies/<id:study_id>/codebook/", tree.codebook, name="codebook"),
    path("studies/<id:study_id>/codebook/export.<str:fmt>", tree.export, name="export"),
    path("studies/<id:study_id>/codebook/details.csv", tree.details_csv, name="details_csv"),
    path("studies/<id:study_id>/codebook/second-language.csv", second_language.download, name="second_language"),
    path("studies/<id:study_id>/codebook/second-language/", second_language.upload, name="second_language_upload"),
    path("studies/<id:study_id>/codebook/<id:category_id>/details/", tree.details, name="details"),
    # The lead's changes and the change log; new categories during the pilot, from the labeling page
    path("studies/<id:study_id>/codebook/<id:category_id>/change/", changes.change, name="change"),
    path("studies/<id:study_id>/codebook/changes/", changes.changelog, name="changelog"),
    path("studies/<id:study_id>/codebook/saturation/", saturation.saturation_page, name="saturation"),
    path("studies/<id:study_id>/codebook/instructions/", changes.instructions, name="instructions"),
    path("studies/<id:study_id>/codebook/clarify/", pairs.clarify_pair, name="clarify_pair"),
    path("studies/<id:study_id>/categories/", changes.pilot_category_add, name="category_add"),
    # Proposals and votes
    path("studies/<id:study_id>/proposals/", proposals.proposals, name="proposals"),
    path("studies/<id:study_id>/proposals/<id:proposal_id>/", proposals.proposal, name="proposal"),
    path("votes/", proposals.my_votes, name="my_votes"),
]
