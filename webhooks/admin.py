from django.contrib import admin

from . import services as webhooks
from .models import Webhook, WebhookDelivery


class DeliveryState(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("dead", "dead (every retry failed)"), ("waiting", "waiting for a retry"), ("delivered", "delivered")]

    def queryset(self, request, queryset):
        return {"dead": queryset.filter(dead_at__isnull=False),
                "waiting": queryset.filter(next_attempt_at__isnull=False),
                "delivered": queryset.filter(delivered_at__isnull=False)}.get(self.value(), queryset)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The dead-letter list: messages no receiver took after a day of retries, sent again from here."""

    list_display = ("event", "webhook", "created_at", "attempts", "last_status", "last_error", "delivered_at",
                    "dead_at")
    list_filter = (DeliveryState, "event")
    readonly_fields = [f.name for f in WebhookDelivery._meta.fields]
    actions = ["send_again"]

    @admin.action(description="Send the selected dead messages again")
    def send_again(self, request, queryset):
        again = sum(webhooks.send_again(d) for d in queryset)
        self.message_user(request, f"{again} dead messages will be sent again within a minute.")

    def has_add_permission(self, request):
        return False


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("study", "url", "active", "created_at")
    list_filter = ("active",)
    exclude = ("secret",)  # a credential: shown to the study's managers on the study's page only
