"""`np` for modules the web process imports but seldom runs: numpy is imported on first use, not at start.

The URL conf reaches every statistics module (views import the selectors that compute), and importing numpy
there put about 14 MiB into each web process (`make bench-memory`), though no page an annotator opens runs a
line of it; the statistics themselves are computed by workers (concord.child_processes). Modules write
`from stats.lazy_numpy import np` and use `np` as usual; the first attribute read imports numpy, the module
lock making that safe under the web server's threads.
"""
from __future__ import annotations

import importlib
import threading
from types import ModuleType

_lock = threading.Lock()


class _Numpy:
    __slots__ = ("_module",)

    def __init__(self) -> None:
        self._module: ModuleType | None = None

    def __getattr__(self, name: str):
        module = self._module
        if module is None:
            with _lock:
                module = self._module = importlib.import_module("numpy")
        return getattr(module, name)

    def __repr__(self) -> str:
        return f"<numpy, {'imported' if self._module else 'not imported yet'}>"


np = _Numpy()
