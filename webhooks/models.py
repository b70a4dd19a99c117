"""A study's webhooks: addresses outside Concord that hear of its events, and every message sent to one."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class Webhook(models.Model):
    """An address outside Concord that hears of a study's events, each message signed with the Standard Webhooks
    scheme (webhooks.services): a lab's chat or dashboard."""

    study = models.ForeignKey("annotation.Study", on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    # "whsec_" and the base64 of 24 random bytes: what the receiver checks signatures with.
    secret = models.CharField(max_length=64)
    events = models.JSONField(default=list, help_text="The event types sent; every type when empty")
    active = models.BooleanField(default=True)
    # Until when saved labels were counted into a `label.saved` message (they are sent as counts only).
    labels_counted_to = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The tables kept their names when the models moved here from the annotation app.
        db_table = "annotation_webhook"
        ordering = ["study", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.study}: {self.url}"


class WebhookDelivery(models.Model):
    """One message to one webhook: sent at once, tried again with growing waits for about a day, then kept as
    dead (the admin page lists those, and sends one again on request)."""

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    message_id = models.CharField(max_length=40, unique=True)
    event = models.CharField(max_length=40)
    body = models.TextField(help_text="The JSON sent, exactly as signed")
    created_at = models.DateTimeField(auto_now_add=True)
    attempts = models.PositiveIntegerField(default=0)
    # When it is tried next; None once delivered or dead.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    dead_at = models.DateTimeField(null=True, blank=True)
    last_status = models.PositiveIntegerField(null=True, blank=True, help_text="The receiver's last HTTP status")
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        db_table = "annotation_webhookdelivery"
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "webhook deliveries"
        indexes = [models.Index(fields=["next_attempt_at"], name="webhook_delivery_due",
                                condition=models.Q(next_attempt_at__isnull=False))]

    def __str__(self) -> str:
        return f"{self.event} {self.message_id} to {self.webhook.url}"
