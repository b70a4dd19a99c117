from __future__ import annotations

from ..models import Source


def validate_full_name(full_name: str) -> str:
    full_name = full_name.strip()
    if full_name.count("/") != 1 or not all(part.strip() for part in full_name.split("/")):
        raise ValueError(f"source {full_name!r}: expected OWNER/NAME")
    return full_name


def get_or_create_source(full_name: str, platform: str = Source.Platform.GITHUB, **defaults) -> Source:
    source, _ = Source.objects.get_or_create(
        platform=platform, full_name=validate_full_name(full_name), defaults=defaults
    )
    return source
