"""A compiled pattern that compiles on first use.

Compiling costs 0.05-0.3 ms a pattern, and most of a module's patterns go unused by a given command (the
redaction's credential formats are tried only when a text holds one of their prefixes): a process pays
for the ones it uses. `lazy(r"...")` stands in for `re.compile(r"...")` wherever a pattern is only
searched, matched or substituted with. No lock: two threads racing to compile one pattern both get an
equal pattern, and a lock held across a fork would deadlock the child.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source, self._flags, self._compiled = source, flags, None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:  # search, match, fullmatch, sub, findall, finditer, split, pattern
        if name.startswith("_"):  # unset slots and dunders (copy, pickle) are not the pattern's
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def __reduce__(self) -> tuple:
        return (LazyPattern, (self._source, self._flags))


def lazy(source: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(source, flags)
