"""A negation that falls on a word whose opposite the other rule asks for: the same instruction said both
ways, not a contradiction. "Don't let hikers go beyond the trail" is "keep hikers within the trail", "never
charge for a first consultation" is "give a free first consultation", "never sell above face value" is "sell
at or below it". Without this the shared words (hikers, trail) read as asked for on one side and against on
the other.

The opposites are general English, words of place, bound and state; the other side may hold its opposite as
a word the analysis drops ("on", "in", "within" are function words there), so its text is read.
`offline_judge.py` sets such a polarity conflict aside; the pair is never a duplicate for it (the shared
words still differ in polarity, which `offline_judge._opposed` reads).
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.qualifiers import words_of
from agentuse.core.helper.similarity import Analysis, Term
from agentuse.core.helper.vocabulary import written

# Each group: a word, then the words that say its opposite. Read both ways.
_OPPOSITES = ["off on", "beyond within inside", "outside inside within in", "out in inside within",
              "above below under", "over under below", "open closed shut", "free charge charged paid"]


def _table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in _OPPOSITES:
        head, *others = group.split()
        for other in others:
            table.setdefault(written(head), set()).add(written(other))
            table.setdefault(written(other), set()).add(written(head))
    return {word: frozenset(words) for word, words in table.items()}


_TABLE: dict[str, frozenset[str]] | None = None  # built on first use: most pairs hold no polarity conflict


def said_both_ways(a: Analysis, b: Analysis, o: Overlap, conflict: list[str]) -> bool:
    """The polarity conflict on `conflict` (shared words) comes of a negated word on one side whose opposite
    the other side asks for."""
    global _TABLE
    if not conflict:
        return False
    if _TABLE is None:
        _TABLE = _table()
    negative_a = sum(x.negative for x, _ in o.shared) >= sum(y.negative for _, y in o.shared)
    negated, other, left = (o.left_a, b, o.left_b) if negative_a else (o.left_b, a, o.left_a)
    asked = {written(w) for w in words_of(other.text)} | {_surface(t) for t in left if not t.negative}
    return any(t.negative and not asked.isdisjoint(_TABLE.get(_surface(t), ())) for t in negated)


def _surface(t: Term) -> str:
    return t.surface or t.word
