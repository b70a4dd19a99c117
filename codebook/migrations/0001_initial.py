"""Proposals, votes and the change log, moved here from the taxonomy app with their tables (taxonomy_…) as they
were."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from concord.migrating import content_types_follow


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('annotation', '0008_lead_labels_blind'),
        ('ingest', '0011_batch_heartbeat'),
        ('interviews', '0001_initial'),
        ('taxonomy', '0006_codebook_changes_moved_out'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Proposal',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=300)),
                    ('definition', models.TextField()),
                    ('status', models.CharField(choices=[('open', 'Open'), ('passed', 'Passed'), ('rejected', 'Rejected'), ('lapsed', 'Lapsed'), ('applied', 'Added to the codebook')], default='open', max_length=16)),
                    ('opened_at', models.DateTimeField(auto_now_add=True)),
                    ('closed_at', models.DateTimeField(blank=True, null=True)),
                    ('closing_note', models.TextField(blank=True)),
                    ('category', models.ForeignKey(blank=True, help_text='The category the lead added from this proposal', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='taxonomy.category')),
                    ('examples', models.ManyToManyField(related_name='+', to='ingest.issue')),
                    ('parent', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='proposals', to='taxonomy.category')),
                    ('proposer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='proposals', to=settings.AUTH_USER_MODEL)),
                    ('quote', models.ForeignKey(blank=True, help_text='The interview quote the proposal came from', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='proposals', to='interviews.quote')),
                    ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='proposals', to='annotation.study')),
                ],
                options={
                    'db_table': 'taxonomy_proposal',
                    'ordering': ['-opened_at', '-id'],
                },
            ),
            migrations.CreateModel(
                name='ChangeLogEntry',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('revision', models.PositiveIntegerField()),
                    ('kind', models.CharField(choices=[('add', 'Add'), ('rename', 'Rename'), ('clarify', 'Clarify definition'), ('split', 'Split'), ('merge', 'Merge'), ('retire', 'Retire')], max_length=16)),
                    ('before', models.JSONField(blank=True, default=list)),
                    ('after', models.JSONField(blank=True, default=list)),
                    ('reason', models.TextField()),
                    ('made_at', models.DateTimeField(auto_now_add=True)),
                    ('requeued', models.PositiveIntegerField(default=0, help_text="Labels sent back to their annotators' queues")),
                    ('made_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ('quote', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='changes', to='interviews.quote')),
                    ('taxonomy', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='changes', to='taxonomy.taxonomy')),
                    ('proposal', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='changes', to='codebook.proposal')),
                ],
                options={
                    'db_table': 'taxonomy_changelogentry',
                    'ordering': ['revision'],
                    'constraints': [models.UniqueConstraint(fields=('taxonomy', 'revision'), name='change_one_per_revision')],
                },
            ),
            migrations.CreateModel(
                name='Vote',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('choice', models.BooleanField(blank=True, null=True)),
                    ('comment', models.TextField(blank=True)),
                    ('cast_at', models.DateTimeField(blank=True, null=True)),
                    ('proposal', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='votes', to='codebook.proposal')),
                    ('voter', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='codebook_votes', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'taxonomy_vote',
                    'ordering': ['voter__username'],
                    'constraints': [models.UniqueConstraint(fields=('proposal', 'voter'), name='vote_one_per_elector')],
                },
            ),
        ]),
        content_types_follow("taxonomy", "codebook", ["proposal", "vote", "changelogentry"]),
    ]
