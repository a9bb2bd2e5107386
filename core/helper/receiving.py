"""Verbs of receiving, one act in an instruction about what comes in: "take phone bids", "accept phone bids",
"collect RSVPs", "receive RSVPs". Read as one act only where a contradiction needs the act shared ("only A"
against "always B", `only_elsewhere.py`), never for a duplicate: "take" is generic elsewhere ("take notes",
"take a break"), so the synonym groups do not join them.
"""

from __future__ import annotations

from agentuse.core.helper.similarity import canon

_RECEIVING = frozenset(canon(w) for w in ("take", "accept", "receive", "collect", "get"))


def one_act(x: str, y: str) -> bool:
    """Two canonical verbs for one act: the same, or both verbs of receiving."""
    return x == y or (x in _RECEIVING and y in _RECEIVING)
