# The codebook is called one thing everywhere: Codebook (the model was Taxonomy), and so is every field that
# points at one. The rows and their constraints stay; the table and the columns take the new name.

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('codebook', '0002_instructions_kind'),
        ('interviews', '0001_initial'),
        ('taxonomy', '0007_instructions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='changelogentry',
            name='change_one_per_revision',
        ),
        migrations.RenameField(
            model_name='changelogentry',
            old_name='taxonomy',
            new_name='codebook',
        ),
        migrations.AddConstraint(
            model_name='changelogentry',
            constraint=models.UniqueConstraint(fields=('codebook', 'revision'), name='change_one_per_revision'),
        ),
    ]
