"""The interview models, moved here from the taxonomy app with their tables (taxonomy_…) as they were."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from concord.migrating import content_types_follow


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('annotation', '0008_lead_labels_blind'),
        ('taxonomy', '0004_taxonomy_version_length'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='InterviewGuide',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('version', models.PositiveIntegerField(default=1)),
                    ('title', models.CharField(max_length=200)),
                    ('created_at', models.DateTimeField(auto_now_add=True)),
                    ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='guides', to='annotation.study')),
                ],
                options={
                    'db_table': 'taxonomy_interviewguide',
                    'ordering': ['study', '-version'],
                },
            ),
            migrations.CreateModel(
                name='GuideQuestion',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('part', models.CharField(help_text="The guide's part, e.g. 'Part III. Bug reports'", max_length=200)),
                    ('position', models.PositiveIntegerField(default=0)),
                    ('text', models.TextField()),
                    ('kind', models.CharField(choices=[('background', 'Background'), ('ranking', 'Ranking of themes'), ('short', 'Short answer'), ('open', 'Open')], default='open', max_length=16)),
                    ('group', models.CharField(blank=True, help_text='Asked of this group only (blank: everyone)', max_length=50)),
                    ('top', models.PositiveSmallIntegerField(default=3, help_text='Ranking: how many places (0 = a full order)')),
                    ('node', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='taxonomy.category')),
                    ('guide', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='questions', to='interviews.interviewguide')),
                ],
                options={
                    'db_table': 'taxonomy_guidequestion',
                    'ordering': ['guide', 'position', 'id'],
                },
            ),
            migrations.CreateModel(
                name='InterviewSession',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('held_on', models.DateField(blank=True, null=True)),
                    ('guide', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='sessions', to='interviews.interviewguide')),
                    ('interviewer', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'taxonomy_interviewsession',
                    'ordering': ['participant', 'held_on', 'id'],
                },
            ),
            migrations.CreateModel(
                name='Answer',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('text', models.TextField(blank=True)),
                    ('order', models.JSONField(blank=True, default=list)),
                    ('question', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='answers', to='interviews.guidequestion')),
                    ('session', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='answers', to='interviews.interviewsession')),
                ],
                options={
                    'db_table': 'taxonomy_answer',
                },
            ),
            migrations.CreateModel(
                name='Participant',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('code', models.CharField(max_length=20)),
                    ('group', models.CharField(help_text='user, developer, or a group the lead defines', max_length=50)),
                    ('role', models.CharField(blank=True, max_length=300)),
                    ('years', models.FloatField(blank=True, help_text='Years of experience with LLMs or DL frameworks', null=True)),
                    ('experience', models.CharField(blank=True, help_text='e.g. Beginner, Intermediate, Advanced', max_length=50)),
                    ('frameworks', models.CharField(blank=True, max_length=300)),
                    ('tasks', models.TextField(blank=True)),
                    ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='participants', to='annotation.study')),
                ],
                options={
                    'db_table': 'taxonomy_participant',
                    'ordering': ['study', 'group', 'code'],
                },
            ),
            migrations.AddField(
                model_name='interviewsession',
                name='participant',
                field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sessions', to='interviews.participant'),
            ),
            migrations.CreateModel(
                name='Quote',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('prompt', models.CharField(blank=True, help_text='The prompt category it answered', max_length=200)),
                    ('text', models.TextField()),
                    ('insight', models.TextField(blank=True)),
                    ('nodes', models.ManyToManyField(related_name='quotes', to='taxonomy.category')),
                    ('session', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='quotes', to='interviews.interviewsession')),
                ],
                options={
                    'db_table': 'taxonomy_quote',
                    'ordering': ['session', 'id'],
                },
            ),
            migrations.AddConstraint(
                model_name='interviewguide',
                constraint=models.UniqueConstraint(fields=('study', 'version'), name='guide_one_per_version'),
            ),
            migrations.AddConstraint(
                model_name='answer',
                constraint=models.UniqueConstraint(fields=('session', 'question'), name='answer_one_per_question'),
            ),
            migrations.AddConstraint(
                model_name='participant',
                constraint=models.UniqueConstraint(fields=('study', 'code'), name='participant_unique_code'),
            ),
        ]),
        content_types_follow("taxonomy", "interviews", ["interviewguide", "guidequestion", "participant", "interviewsession", "answer", "quote"]),
    ]
