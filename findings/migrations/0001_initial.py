"""Subsets and the dataset card's comparisons, moved here from the annotation app with their tables
(annotation_…) as they were."""
import django.db.models.deletion
from django.db import migrations, models

from concord.migrating import content_types_follow


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('annotation', '0021_subsets_moved_out'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('ingest', '0013_sequence_stop'),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='ComparisonRecord',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('by', models.CharField(max_length=32)),
                    ('level', models.CharField(max_length=16)),
                    ('figures', models.JSONField()),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='comparisons', to='annotation.study')),
                ],
                options={
                    'db_table': 'annotation_comparisonrecord',
                    'ordering': ['created_at'],
                },
            ),
            migrations.CreateModel(
                name='Subset',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('name', models.CharField(max_length=200)),
                    ('kind', models.CharField(choices=[('baseline', 'Baseline sample'), ('list', 'Saved list')], default='list', max_length=16)),
                    ('seed', models.BigIntegerField(blank=True, null=True)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('issues', models.ManyToManyField(related_name='+', to='ingest.issue')),
                    ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='subsets', to='annotation.study')),
                ],
                options={
                    'db_table': 'annotation_subset',
                    'constraints': [models.UniqueConstraint(fields=('study', 'name'), name='subset_unique_name')],
                },
            ),
        ]),
        content_types_follow("annotation", "findings", ["subset", "comparisonrecord"]),
    ]
