# The codebook is called one thing everywhere: Codebook (the model was Taxonomy), and so is every field that
# points at one. The rows and their constraints stay; the table and the columns take the new name.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0014_final_label'),
    ]

    operations = [
        migrations.RenameField(
            model_name='study',
            old_name='taxonomy',
            new_name='codebook',
        ),
    ]
