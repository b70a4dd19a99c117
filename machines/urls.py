from django.urls import path

from . import views

app_name = "machines"

urlpatterns = [
    path("studies/<id:study_id>/machines/", views.index, name="index"),
    path("studies/<id:study_id>/machines/add/", views.add, name="add"),
    path("studies/<id:study_id>/machines/<id:rater_id>/", views.rater_page, name="rater"),
    path("studies/<id:study_id>/machines/<id:rater_id>/run/", views.run, name="run"),
    path("studies/<id:study_id>/machines/<id:rater_id>/calls/", views.calls, name="calls"),
    path("studies/<id:study_id>/machines/<id:rater_id>/decide/", views.decide, name="decide"),
    path("studies/<id:study_id>/machines/<id:rater_id>/order-queues/", views.order_queues, name="order_queues"),
    path("studies/<id:study_id>/machines/runs/<id:machine_run_id>/", views.run_progress, name="run_progress"),
    path("studies/<id:study_id>/machines/decisions/<id:decision_id>/withdraw/", views.withdraw, name="withdraw"),
    path("studies/<id:study_id>/machines/decisions/<id:decision_id>/apply/", views.apply, name="apply"),
    path("studies/<id:study_id>/machines/decisions/<id:decision_id>/carry/", views.carry_decision, name="carry"),
    path("studies/<id:study_id>/machines/reports/<id:issue_id>/", views.report_labels, name="report_labels"),
    path("studies/<id:study_id>/machines/flags/", views.flags, name="flags"),
    path("studies/<id:study_id>/machines/jury/", views.jury, name="jury"),
    path("studies/<id:study_id>/machines/jury/delegate/", views.delegate, name="delegate"),
    path("studies/<id:study_id>/machines/jury/end/", views.end_delegation, name="end_delegation"),
]
