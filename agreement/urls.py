from django.urls import path

from . import api, views

app_name = "agreement"

urlpatterns = [
    path("studies/<id:study_id>/agreement/", views.study_agreement_page, name="study_agreement"),
    path("studies/<id:study_id>/agreement/recompute/", views.recompute, name="recompute"),
    path("studies/<id:study_id>/agreement/plan/", views.planner, name="planner"),
    path("studies/<id:study_id>/agreement/pair/", views.pair, name="pair"),
]

api_urlpatterns = [
    path("studies/<id:study_id>/agreement/", api.StudyAgreementAPI.as_view(), name="study_agreement"),
]
