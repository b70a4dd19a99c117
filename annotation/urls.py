from django.urls import path

from . import api
from .views import issues, queue, studies

app_name = "annotation"

urlpatterns = [
    # Studies
    path("", studies.study_list, name="study_list"),
    path("studies/<int:study_id>/export.csv", studies.study_export_csv, name="study_export_csv"),
    # Reports of a study
    path("studies/<int:study_id>/issues/", issues.issue_list, name="issue_list"),
    # Labeling
    path("studies/<int:study_id>/queue/", queue.queue, name="queue"),
    path("studies/<int:study_id>/choices/", queue.label_choices, name="label_choices"),
    path("studies/<int:study_id>/issues/<int:issue_id>/", queue.issue_label, name="issue_label"),
    path("studies/<int:study_id>/issues/<int:issue_id>/label/", queue.label_submit, name="label_submit"),
    path("studies/<int:study_id>/issues/<int:issue_id>/skip/", queue.label_skip, name="label_skip"),
]

api_urlpatterns = [
    path("studies/", api.StudyListAPI.as_view(), name="study_list"),
    path("studies/<int:study_id>/labels/", api.LabelListAPI.as_view(), name="label_list"),
]
