from django.urls import path

from . import views

app_name = "webhooks"

urlpatterns = [
    path("studies/<id:study_id>/webhooks/", views.webhook_list, name="list"),
    path("studies/<id:study_id>/webhooks/add/", views.webhook_add, name="add"),
    path("studies/<id:study_id>/webhooks/<id:webhook_id>/switch/", views.webhook_switch, name="switch"),
    path("studies/<id:study_id>/webhooks/messages/<id:delivery_id>/again/", views.webhook_again, name="again"),
]
