"""What a regular expression cannot match without: a few literal strings, one of which every match contains.

The offline evaluator rewrites each text with its phrase table (`phrases.py`, about 150 patterns, in
order), and almost every pattern finds nothing in a given rule: a substring test of the pattern's required
text is about 20 times cheaper than the search that would find nothing. `required(pattern)` reads the
compiled pattern's syntax tree once; a pattern that has no such text (or matches case-insensitively, where
a literal test would be wrong) gives None and is always tried.
"""

from __future__ import annotations

import re
import re._constants as c
import re._parser as parser

_REPEATS = {c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", c.MAX_REPEAT)}


def required(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Literal strings one of which is in every text `pattern` matches; None when nothing is required."""
    if pattern.flags & re.IGNORECASE:
        return None
    try:
        tree = parser.parse(pattern.pattern, pattern.flags & ~re.UNICODE)
    except re.error:  # pragma: no cover - it compiled, so it parses
        return None
    return _of_sequence(list(tree))


def _of_sequence(items: list) -> frozenset[str] | None:
    """The most selective requirement among the sequence's mandatory parts (each alone is necessary)."""
    found: list[frozenset[str]] = []
    run: list[str] = []

    def close() -> None:
        if run:
            found.append(frozenset({"".join(run)}))
            run.clear()

    for op, av in items:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        if op is c.AT:  # an anchor takes no characters: the literals on either side stay adjacent
            continue
        close()
        inner = _of_item(op, av)
        if inner is not None:
            found.append(inner)
    close()
    if not found:
        return None
    return max(found, key=lambda options: min(len(text) for text in options))


def _of_item(op, av) -> frozenset[str] | None:
    if op is c.SUBPATTERN:
        _group, add_flags, _del_flags, sub = av
        return None if add_flags & re.IGNORECASE else _of_sequence(list(sub))
    if op is getattr(c, "ATOMIC_GROUP", None):
        return _of_sequence(list(av))
    if op in _REPEATS:
        low, _high, sub = av
        return _of_sequence(list(sub)) if low >= 1 else None
    if op is c.BRANCH:
        options: set[str] = set()
        for branch in av[1]:
            needed = _of_sequence(list(branch))
            if needed is None:
                return None  # a branch that needs nothing: the whole alternation needs nothing
            options |= needed
        return frozenset(options)
    return None  # a class, any character, a look-around, a back-reference: no literal is certain


def split(needed: frozenset[str] | None) -> tuple[str | None, tuple[str, ...] | None]:
    """`needed` for a tight loop: (the one string, None), (None, the options), or (None, None) for "always"
    (one `in` test costs a third of a generator's `any`)."""
    if needed is None:
        return None, None
    if len(needed) == 1:
        return next(iter(needed)), None
    return None, tuple(sorted(needed))


def applies(needed: frozenset[str] | None, text: str) -> bool:
    """Whether the pattern whose requirement is `needed` could match somewhere in `text`."""
    return needed is None or any(option in text for option in needed)
