"""The interview models now belong to the interviews app (its 0001 takes them over, tables and rows unchanged)."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('interviews', '0001_initial'),
        ('taxonomy', '0004_taxonomy_version_length'),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='guidequestion',
                name='guide',
            ),
            migrations.RemoveField(
                model_name='guidequestion',
                name='node',
            ),
            migrations.RemoveField(
                model_name='interviewguide',
                name='study',
            ),
            migrations.RemoveField(
                model_name='interviewsession',
                name='guide',
            ),
            migrations.RemoveField(
                model_name='interviewsession',
                name='interviewer',
            ),
            migrations.RemoveField(
                model_name='interviewsession',
                name='participant',
            ),
            migrations.RemoveField(
                model_name='quote',
                name='session',
            ),
            migrations.RemoveField(
                model_name='participant',
                name='study',
            ),
            migrations.RemoveField(
                model_name='quote',
                name='nodes',
            ),
            migrations.AlterField(
                model_name='proposal',
                name='quote',
                field=models.ForeignKey(blank=True, help_text='The interview quote the proposal came from', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='proposals', to='interviews.quote'),
            ),
            migrations.AlterField(
                model_name='changelogentry',
                name='quote',
                field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='changes', to='interviews.quote'),
            ),
            migrations.DeleteModel(
                name='Answer',
            ),
            migrations.DeleteModel(
                name='GuideQuestion',
            ),
            migrations.DeleteModel(
                name='InterviewGuide',
            ),
            migrations.DeleteModel(
                name='InterviewSession',
            ),
            migrations.DeleteModel(
                name='Participant',
            ),
            migrations.DeleteModel(
                name='Quote',
            ),
        ]),
    ]
