"""A compiled pattern that compiles on first use.

Compiling costs 0.05-0.3 ms a pattern, and most of a module's patterns go unused by a given command (the
redaction's credential formats are tried only when a text holds one of their prefixes): a process pays
for the ones it uses. `lazy(r"...")` stands in for `re.compile(r"...")` wherever a pattern is only
searched, matched or substituted with.
"""

from __future__ import annotations

import re
import threading
from typing import Any


class LazyPattern:
    __slots__ = ("_source", "_flags", "_compiled", "_lock")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags, self._compiled = source, flags, None
        self._lock = threading.Lock()

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            with self._lock:
                if self._compiled is None:
                    self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:  # search, match, fullmatch, sub, findall, finditer, split, pattern
        return getattr(self.compiled(), name)


def lazy(source: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(source, flags)
