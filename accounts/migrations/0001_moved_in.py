"""A person's preferences and notices, moved here from the concord app with their tables (concord_…) as they
were."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from concord.migrating import content_types_follow


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('concord', '0008_accounts_moved_out'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        # The tables stay where they are: only Django's idea of which app holds them changes.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.CreateModel(
                name='Preferences',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('language', models.CharField(blank=True, choices=[('', "The browser's language"), ('en', 'English'), ('zh-hans', '简体中文')], max_length=16)),
                    ('notices_off', models.JSONField(blank=True, default=list)),
                    ('email_digest', models.BooleanField(default=True)),
                    ('last_digest_at', models.DateTimeField(blank=True, null=True)),
                    ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='preferences', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'verbose_name_plural': 'preferences',
                    'db_table': 'concord_preferences',
                },
            ),
            migrations.CreateModel(
                name='Notice',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('kind', models.CharField(max_length=32)),
                    ('key', models.CharField(max_length=100)),
                    ('params', models.JSONField(blank=True, default=dict)),
                    ('url', models.CharField(blank=True, max_length=500)),
                    ('study_id', models.BigIntegerField(blank=True, null=True)),
                    ('created_at', models.DateTimeField()),
                    ('read_at', models.DateTimeField(blank=True, null=True)),
                    ('emailed_at', models.DateTimeField(blank=True, null=True)),
                    ('settled_at', models.DateTimeField(blank=True, null=True)),
                    ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notices', to=settings.AUTH_USER_MODEL)),
                ],
                options={
                    'db_table': 'concord_notice',
                    'ordering': ['-created_at', '-pk'],
                    'indexes': [models.Index(fields=['user', 'read_at'], name='notice_user_unread')],
                    'constraints': [models.UniqueConstraint(condition=models.Q(('read_at__isnull', True)), fields=('user', 'key'), name='notice_one_unread_per_thing')],
                },
            ),
        ]),
        content_types_follow("concord", "accounts", ["preferences", "notice"]),
    ]
