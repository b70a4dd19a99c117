# ReviewItem is called TiedReport: "item" was also the word for a report drawn into a screening sample
# (ingest.ScreeningItem), an unrelated thing. The rows stay; the table and its constraint follow the name.
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0008_lead_labels_blind"),
        ("ingest", "0011_batch_heartbeat"),
    ]

    operations = [
        migrations.RenameModel("ReviewItem", "TiedReport"),
        migrations.RemoveConstraint(model_name="tiedreport", name="review_item_unique_issue"),
        migrations.AlterField(
            model_name="tiedreport", name="round",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="tied_reports",
                                    to="annotation.round"),
        ),
        migrations.AlterField(
            model_name="tiedreport", name="issue",
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="tied_reports",
                                    to="ingest.issue"),
        ),
        migrations.AddConstraint(
            model_name="tiedreport",
            constraint=models.UniqueConstraint(fields=("round", "issue"), name="tied_report_unique_issue"),
        ),
    ]
