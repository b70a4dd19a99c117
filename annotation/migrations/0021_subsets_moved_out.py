"""Subsets and the dataset card's comparisons now belong to the findings app (its 0001 takes them over, tables
and rows unchanged)."""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0020_study_sso_required'),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='subset',
                name='issues',
            ),
            migrations.RemoveField(
                model_name='subset',
                name='study',
            ),
            migrations.DeleteModel(
                name='ComparisonRecord',
            ),
            migrations.DeleteModel(
                name='Subset',
            ),
        ]),
    ]
