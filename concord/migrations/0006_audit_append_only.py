"""On PostgreSQL, the audit table refuses UPDATE and DELETE in the database itself, so no bulk query, admin
action or hand-written SQL of the application's can change or remove an entry. Retention removes entries in a
transaction that first sets `concord.audit_prune` (concord.audit.prune); nothing else can. The table's owner can
still drop the trigger or TRUNCATE the table (Django's test flush does): the witness written out of the table
catches what that removes."""
from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION concord_audit_append_only() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('concord.audit_prune', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'audit entries are append-only: % refused (entries are removed only by manage.py audit_prune)',
        TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER concord_audit_append_only BEFORE UPDATE OR DELETE ON concord_auditentry
    FOR EACH ROW EXECUTE FUNCTION concord_audit_append_only();
"""

DROP = """
DROP TRIGGER IF EXISTS concord_audit_append_only ON concord_auditentry;
DROP FUNCTION IF EXISTS concord_audit_append_only();
"""


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FUNCTION, params=None)


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP, params=None)


class Migration(migrations.Migration):
    dependencies = [("concord", "0005_worker_beat")]
    operations = [migrations.RunPython(forwards, backwards)]
