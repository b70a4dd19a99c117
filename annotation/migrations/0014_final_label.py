# A report's final label is called one thing everywhere: FinalLabel (it was Decision). The rows, their history
# and their constraints stay; the tables take the new name.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0013_assignment_sent_back'),
        ('ingest', '0011_batch_heartbeat'),
    ]

    operations = [
        migrations.RenameModel(old_name='Decision', new_name='FinalLabel'),
        migrations.RenameModel(old_name='HistoricalDecision', new_name='HistoricalFinalLabel'),
        migrations.AlterModelOptions(
            name='historicalfinallabel',
            options={'get_latest_by': ('history_date', 'history_id'), 'ordering': ('-history_date', '-history_id'), 'verbose_name': 'historical final label', 'verbose_name_plural': 'historical final labels'},
        ),
        migrations.AlterField(
            model_name='finallabel',
            name='issue',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='final_labels', to='ingest.issue'),
        ),
        migrations.AlterField(
            model_name='finallabel',
            name='study',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='final_labels', to='annotation.study'),
        ),
    ]
