"""Pure: Hyperscan, where it is built (x86-64), over bytes: which of several patterns occur, in one pass.

A database is compiled once and scanned from any thread; Hyperscan requires a scratch space per thread.
"""
from __future__ import annotations

import threading

try:
    import hyperscan
except ImportError:  # not built for this machine's processor
    hyperscan = None


class Scanner:
    """Patterns compiled together; `found(data)` gives the index of each pattern that occurs, once each."""

    def __init__(self, patterns: list[bytes], utf8: bool = False):
        """utf8: the patterns and the data are UTF-8 text, not bytes. Raises hyperscan.error for a pattern
        Hyperscan cannot compile."""
        self._database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        flags = hyperscan.HS_FLAG_SINGLEMATCH | (hyperscan.HS_FLAG_UTF8 if utf8 else 0)
        self._database.compile(expressions=patterns, ids=list(range(len(patterns))), flags=[flags] * len(patterns))
        self._local = threading.local()

    def found(self, data: bytes) -> list[int]:
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = hyperscan.Scratch(self._database)
        hits: list[int] = []
        self._database.scan(data, match_event_handler=lambda i, *_: hits.append(i), scratch=scratch)
        return hits
