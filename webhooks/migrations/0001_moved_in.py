"""A study's webhooks and their messages, moved here from the annotation app with their tables (annotation_…) as
they were."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from concord.migrating import content_types_follow


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('annotation', '0022_webhooks_moved_out'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Webhook',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('url', models.URLField(max_length=500)),
                    ('secret', models.CharField(max_length=64)),
                    ('events', models.JSONField(default=list, help_text='The event types sent; every type when empty')),
                    ('active', models.BooleanField(default=True)),
                    ('labels_counted_to', models.DateTimeField(blank=True, null=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='webhooks', to='annotation.study')),
                ],
                options={
                    'db_table': 'annotation_webhook',
                    'ordering': ['study', 'created_at', 'pk'],
                },
            ),
            migrations.CreateModel(
                name='WebhookDelivery',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('message_id', models.CharField(max_length=40, unique=True)),
                    ('event', models.CharField(max_length=40)),
                    ('body', models.TextField(help_text='The JSON sent, exactly as signed')),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('attempts', models.PositiveIntegerField(default=0)),
                    ('next_attempt_at', models.DateTimeField(blank=True, null=True)),
                    ('delivered_at', models.DateTimeField(blank=True, null=True)),
                    ('dead_at', models.DateTimeField(blank=True, null=True)),
                    ('last_status', models.PositiveIntegerField(blank=True, help_text="The receiver's last HTTP status", null=True)),
                    ('last_error', models.CharField(blank=True, max_length=500)),
                    ('webhook', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='deliveries', to='webhooks.webhook')),
                ],
                options={
                    'verbose_name_plural': 'webhook deliveries',
                    'db_table': 'annotation_webhookdelivery',
                    'ordering': ['-created_at', '-pk'],
                    'indexes': [models.Index(condition=models.Q(('next_attempt_at__isnull', False)), fields=['next_attempt_at'], name='webhook_delivery_due')],
                },
            ),
        ]),
        content_types_follow("annotation", "webhooks", ["webhook", "webhookdelivery"]),
    ]
