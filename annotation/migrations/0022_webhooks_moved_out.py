"""A study's webhooks and their messages now belong to the webhooks app (its 0001 takes them over, tables and
rows unchanged)."""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0021_subsets_moved_out'),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='webhookdelivery',
                name='webhook',
            ),
            migrations.DeleteModel(
                name='Webhook',
            ),
            migrations.DeleteModel(
                name='WebhookDelivery',
            ),
        ]),
    ]
