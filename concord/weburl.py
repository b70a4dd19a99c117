"""Links that came from data (issue URLs in imported files, platform answers and backups) may only be web
links: a `javascript:` or `data:` URL in an href runs in Concord's origin when clicked."""
from __future__ import annotations

import re
from urllib.parse import urlsplit

WEB_SCHEMES = {"http", "https"}
# What a browser ignores when it reads a URL: C0 controls and spaces at either end, tabs and newlines anywhere
# (the WHATWG URL standard), so " java\tscript:" is a javascript: URL to it and must be to us.
_EDGES = "".join(chr(c) for c in range(0x21))
_INSIDE = re.compile(r"[\t\n\r]")
# What nearly every issue link looks like: printable ASCII, no space, a plain host. Such a value is a web link
# as it stands (nothing to strip, a scheme and host urlsplit would find), so it skips urlsplit, which took most of
# an import's time per link.
_PLAIN = re.compile(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?#][!-~]*)?")


def web_url(value) -> str:
    """The URL as a browser would read it, if it is an http or https link with a host; otherwise ""."""
    if not isinstance(value, str) or not value:
        return ""
    if _PLAIN.fullmatch(value):
        return value
    url = _INSIDE.sub("", value.strip(_EDGES))
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unbalanced IPv6 bracket
        return ""
    if parts.scheme.lower() not in WEB_SCHEMES or not parts.netloc:
        return ""
    return url
