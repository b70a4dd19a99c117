"""Proposals, votes and the change log now belong to the codebook app (its 0001 takes them over, tables and rows
unchanged)."""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('taxonomy', '0005_interviews_moved_out'),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RemoveField(
                model_name='proposal',
                name='category',
            ),
            migrations.RemoveField(
                model_name='proposal',
                name='examples',
            ),
            migrations.RemoveField(
                model_name='proposal',
                name='parent',
            ),
            migrations.RemoveField(
                model_name='proposal',
                name='proposer',
            ),
            migrations.RemoveField(
                model_name='proposal',
                name='quote',
            ),
            migrations.RemoveField(
                model_name='proposal',
                name='study',
            ),
            migrations.RemoveField(
                model_name='vote',
                name='proposal',
            ),
            migrations.RemoveField(
                model_name='vote',
                name='voter',
            ),
            migrations.DeleteModel(
                name='ChangeLogEntry',
            ),
            migrations.DeleteModel(
                name='Proposal',
            ),
            migrations.DeleteModel(
                name='Vote',
            ),
        ]),
    ]
