# The codebook is called one thing everywhere: Codebook (the model was Taxonomy), and so is every field that
# points at one. The rows and their constraints stay; the table and the columns take the new name.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0015_study_codebook'),
        ('codebook', '0003_change_codebook'),
        ('ingest', '0011_batch_heartbeat'),
        ('taxonomy', '0007_instructions'),
    ]

    operations = [
        migrations.RenameModel(
            old_name='Taxonomy',
            new_name='Codebook',
        ),
        migrations.AlterModelOptions(
            name='category',
            options={'ordering': ['codebook', 'position', 'code'], 'verbose_name_plural': 'categories'},
        ),
        migrations.RemoveConstraint(
            model_name='category',
            name='category_unique_code',
        ),
        migrations.RenameField(
            model_name='category',
            old_name='taxonomy',
            new_name='codebook',
        ),
        migrations.AddConstraint(
            model_name='category',
            constraint=models.UniqueConstraint(fields=('codebook', 'code'), name='category_unique_code'),
        ),
    ]
