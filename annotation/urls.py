from django.urls import path

from . import api
from .views import (
                    adjudication,
                    annotators,
                    history,
                    issues,
                    members,
                    queue,
                    review,
                    studies,
)

app_name = "annotation"

urlpatterns = [
    # Studies
    path("", studies.study_list, name="study_list"),
    path("studies/new/", studies.study_new, name="study_new"),
    path("studies/<id:study_id>/", studies.study_detail, name="study_detail"),
    path("studies/<id:study_id>/advance/", studies.study_advance, name="study_advance"),
    path("studies/<id:study_id>/stop-labeling/", studies.stop_labeling, name="stop_labeling"),
    path("studies/<id:study_id>/settings/", studies.study_settings, name="study_settings"),
    path("studies/<id:study_id>/export.csv", studies.study_export_csv, name="study_export_csv"),
    path("studies/<id:study_id>/history/", history.history, name="history"),
    path("studies/<id:study_id>/history.csv", history.history_csv, name="history_csv"),
    # Members and invitations
    path("studies/<id:study_id>/members/", members.members, name="members"),
    path("studies/<id:study_id>/invitations/", members.invitation_create, name="invitation_create"),
    path("studies/<id:study_id>/sso/", studies.study_sso, name="study_sso"),
    path("studies/<id:study_id>/members/<id:user_id>/remove/", members.member_remove, name="member_remove"),
    path("studies/<id:study_id>/members/<id:user_id>/deactivate/", members.member_deactivate,
         name="member_deactivate"),
    path("studies/<id:study_id>/invitations/<id:invitation_id>/revoke/", members.invitation_revoke,
         name="invitation_revoke"),
    # Reports of a study
    path("studies/<id:study_id>/issues/", issues.issue_list, name="issue_list"),
    path("studies/<id:study_id>/reports/<id:issue_id>/", issues.report, name="report"),
    # Labeling
    path("studies/<id:study_id>/queue/", queue.queue, name="queue"),
    path("studies/<id:study_id>/queue/previous/", queue.previous, name="previous"),
    path("studies/<id:study_id>/annotators/", annotators.annotators, name="annotators"),
    path("studies/<id:study_id>/instructions/read/", queue.instructions_read, name="instructions_read"),
    path("studies/<id:study_id>/issues/<id:issue_id>/", queue.issue_label, name="issue_label"),
    path("studies/<id:study_id>/issues/<id:issue_id>/label/", queue.label_submit, name="label_submit"),
    path("studies/<id:study_id>/issues/<id:issue_id>/skip/", queue.label_skip, name="label_skip"),
    # Adjudication
    path("studies/<id:study_id>/adjudication/", adjudication.adjudication_list, name="adjudication_list"),
    path("studies/<id:study_id>/adjudication/<id:issue_id>/", adjudication.adjudicate, name="adjudicate"),
    # Review
    path("studies/<id:study_id>/review/", review.review_list, name="review_list"),
    path("studies/<id:study_id>/issues/<id:issue_id>/comments/", review.comment_post, name="comment_post"),
]

api_urlpatterns = [
    path("studies/", api.StudyListAPI.as_view(), name="study_list"),
    path("studies/<id:study_id>/", api.StudyDetailAPI.as_view(), name="study_detail"),
    path("studies/<id:study_id>/reports/", api.ReportListAPI.as_view(), name="report_list"),
    path("studies/<id:study_id>/reports/<id:issue_id>/", api.ReportDetailAPI.as_view(), name="report_detail"),
    path("studies/<id:study_id>/queue/next/", api.QueueNextAPI.as_view(), name="queue_next"),
    path("studies/<id:study_id>/queue/skip/", api.QueueSkipAPI.as_view(), name="queue_skip"),
    path("studies/<id:study_id>/labels/", api.LabelListAPI.as_view(), name="label_list"),
    path("studies/<id:study_id>/labels/history/", api.LabelHistoryAPI.as_view(), name="label_history"),
    path("studies/<id:study_id>/reports/<id:issue_id>/comments/", api.CommentListAPI.as_view(),
         name="comment_list"),
]
