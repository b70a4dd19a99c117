"""Studies made before queues existed: give every active member of an open round a queue of every report,
with the reports they have labeled marked done."""
from django.db import migrations


def backfill(apps, schema_editor):
    Round = apps.get_model("annotation", "Round")
    Queue = apps.get_model("annotation", "Queue")
    Assignment = apps.get_model("annotation", "Assignment")
    Label = apps.get_model("annotation", "Label")
    for round in Round.objects.filter(closed_at__isnull=True):
        study = round.study
        issue_ids = list(study.issues.order_by("created_at", "id").values_list("id", flat=True))
        for membership in study.memberships.filter(user__is_active=True):
            if Queue.objects.filter(round=round, annotator_id=membership.user_id).exists():
                continue
            done = set(Label.objects.filter(round=round, annotator_id=membership.user_id)
                       .values_list("issue_id", flat=True))
            queue = Queue.objects.create(round=round, annotator_id=membership.user_id, total=len(issue_ids),
                                         done=len(done & set(issue_ids)))
            Assignment.objects.bulk_create(
                [Assignment(queue=queue, issue_id=i, position=n, done=i in done)
                 for n, i in enumerate(issue_ids, start=1)], batch_size=5000)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0002_rounds_queues_invitations")]
    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
