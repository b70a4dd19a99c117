"""The API's JSON parser: DRF's, plus a 400 for a body nested too deeply to parse.

Python's json module gives up on deep nesting (a body of 50,000 "[" is 50 KB) with a RecursionError, which
DRF's parser does not catch: it reached the client as a 500.
"""
from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class BoundedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the body is nested too deeply") from exc
