"""Shared by migrations that move models to another app while their tables stay where they are."""
from __future__ import annotations

from django.db import migrations


def content_types_follow(old_app: str, new_app: str, models: list[str]) -> migrations.RunPython:
    """Permissions and admin log entries point at content types: relabel the moved models' content types to their
    new app (and back when the migration is reversed), keeping their ids."""

    def relabel(old: str, new: str):
        def run(apps, schema_editor) -> None:
            ContentType = apps.get_model("contenttypes", "ContentType")
            types = ContentType.objects.using(schema_editor.connection.alias)
            for model in models:
                if not types.filter(app_label=new, model=model).exists():
                    types.filter(app_label=old, model=model).update(app_label=new)
        return run

    return migrations.RunPython(relabel(old_app, new_app), relabel(new_app, old_app))
