"""A verb undone by its prefix ("install" / "uninstall", "follow" / "unfollow", "compress" / "decompress") or
countered by its opposite ("open" / "close", "expand" / "collapse"). The two rules do opposed acts to one
object, a contradiction, where a word matcher reads the prefixed pair as one verb written two ways
(`overlap.py` matches words that share most letters) and calls it a duplicate, and an opposite pair as two
acts it cannot tell apart.

Only the instruction's own verb counts: an un- word that describes the thing ("archive unread messages") is
no act, and the object must be the same, nothing else left over on either side. `offline_judge.py` decides
with it.
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Analysis, Term
from agentuse.core.helper.vocabulary import written

# The prefix that undoes the verb it is put before; the rest must be a verb of four letters or more. "dis" and
# "de" also begin words that undo nothing ("display" / "play", "design" / "sign"): they count only where the
# word matcher has already paired the two verbs as one ("compress" / "decompress").
_UNDOING = ("un",)
_UNDOING_IF_PAIRED = ("dis", "de")
_SHORTEST = 4
# Verbs and their opposites, general English: the one undoes or counters the other on one object.
_OPPOSITE_GROUPS = ["open close shut", "expand collapse", "merge split", "encrypt decrypt", "grow shrink",
                    "attach detach", "push pull", "buy sell", "hire fire", "promote demote", "upgrade downgrade",
                    "lengthen shorten", "widen narrow", "freeze thaw", "arrive depart"]
_OPPOSITES: frozenset[frozenset[str]] | None = None  # built on first use


def undone(a: Analysis, b: Analysis, o: Overlap) -> tuple[str, str] | None:
    """One side's verb, and the other's verb that undoes it, or None."""
    leads_a = [t for t in a.terms if t.lead and t.role == "main"]
    leads_b = [t for t in b.terms if t.lead and t.role == "main"]
    paired = {(id(x), id(y)) for x, y in o.shared}
    pair = next(((x, y) for x in leads_a for y in leads_b
                 if _undoes(x, y, _UNDOING) or _undoes(y, x, _UNDOING)
                 or (id(x), id(y)) in paired and (_undoes(x, y, _UNDOING_IF_PAIRED) or _undoes(y, x, _UNDOING_IF_PAIRED))
                 or _opposite(x, y)),
                None)
    if pair is None:
        return None
    verbs = {id(pair[0]), id(pair[1])}
    rest = [t for t in o.left_a + o.left_b if t.weight >= 1 and id(t) not in verbs]
    objects = [(x, y) for x, y in o.shared if id(x) not in verbs and x.weight >= 1]
    if rest or not objects or any(x.negative != y.negative for x, y in objects):
        return None
    return _surface(pair[0]), _surface(pair[1])


def _surface(t: Term) -> str:
    return t.surface or t.word


def _opposite(x: Term, y: Term) -> bool:
    global _OPPOSITES
    if _OPPOSITES is None:
        _OPPOSITES = frozenset(frozenset({written(v), written(w)}) for group in _OPPOSITE_GROUPS
                               for i, v in enumerate(group.split()) for w in group.split()[:i])
    return frozenset({_surface(x), _surface(y)}) in _OPPOSITES


def _undoes(x: Term, y: Term, prefixes: tuple[str, ...]) -> bool:
    """`y`'s verb is `x`'s with one of `prefixes`, which undoes it."""
    done, undoing = _surface(x), _surface(y)
    return len(done) >= _SHORTEST and any(undoing == prefix + done for prefix in prefixes)
