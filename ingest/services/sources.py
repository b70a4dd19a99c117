from __future__ import annotations

from concord.textcheck import length_problem, text_problem

from ..models import Source


def validate_full_name(full_name: str) -> str:
    full_name = full_name.strip()
    limit = Source._meta.get_field("full_name").max_length
    problem = text_problem(full_name) or length_problem(full_name, limit)
    if problem:
        raise ValueError(f"source: {problem} (expected OWNER/NAME)")
    if full_name.count("/") != 1 or not all(part.strip() for part in full_name.split("/")):
        raise ValueError(f"source {full_name!r}: expected OWNER/NAME")
    return full_name


def get_or_create_source(full_name: str, platform: str = Source.Platform.GITHUB, **defaults) -> Source:
    source, _ = Source.objects.get_or_create(
        platform=platform, full_name=validate_full_name(full_name), defaults=defaults
    )
    return source
