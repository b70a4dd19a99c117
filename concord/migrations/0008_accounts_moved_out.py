"""A person's preferences and notices now belong to the accounts app (its 0001 takes them over, tables and rows
unchanged)."""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('concord', '0007_notice_settled'),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='preferences',
                name='user',
            ),
            migrations.DeleteModel(
                name='Notice',
            ),
            migrations.DeleteModel(
                name='Preferences',
            ),
        ]),
    ]
