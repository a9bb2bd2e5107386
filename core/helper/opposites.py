"""Opposed acts and opposite words. A verb undone by its prefix ("install" / "uninstall", "follow" / "unfollow",
"compress" / "decompress") or countered by its opposite ("open" / "close", "expand" / "collapse") on one object
is a contradiction (`undone`), where a word matcher reads the prefixed pair as one verb written two ways
(`overlap.py` matches words that share most letters) and calls it a duplicate. A negation that falls on a word
whose opposite the other rule asks for says one instruction both ways, no contradiction (`said_both_ways`):
"don't let hikers go beyond the trail" / "keep hikers within the trail", "never charge for a first
consultation" / "give a free first consultation". `offline_judge.py` decides with them.
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Analysis, Term, canon
from agentuse.core.helper.vocabulary import written
from agentuse.core.lazy_regex import lazy


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
_OPPOSITE_VERBS: frozenset[frozenset[str]] | None = None  # built on first use
_PREFIXES = _UNDOING + _UNDOING_IF_PAIRED
_OPPOSITE_VERB_WORDS = frozenset(written(w) for group in _OPPOSITE_GROUPS for w in group.split())


def undone(a: Analysis, b: Analysis, o: Overlap) -> tuple[str, str] | None:
    """One side's verb, and the other's verb that undoes it, or None."""
    leads_a = [t for t in a.terms if t.lead and t.role == "main"]
    leads_b = [t for t in b.terms if t.lead and t.role == "main"]
    if not any(_surface(t).startswith(_PREFIXES) or _surface(t) in _OPPOSITE_VERB_WORDS for t in leads_a + leads_b):
        return None  # no verb with an undoing prefix or an opposite: most pairs
    pair = next(((x, y) for x in leads_a for y in leads_b if _surface(x) != _surface(y) and _reversed(x, y, o)), None)
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


def _reversed(x: Term, y: Term, o: Overlap) -> bool:
    if _undoes(x, y, _UNDOING) or _undoes(y, x, _UNDOING) or _opposite(x, y):
        return True
    return (_undoes(x, y, _UNDOING_IF_PAIRED) or _undoes(y, x, _UNDOING_IF_PAIRED)) \
        and any(s is x and t is y for s, t in o.shared)


def _opposite(x: Term, y: Term) -> bool:
    global _OPPOSITE_VERBS
    if _OPPOSITE_VERBS is None:
        _OPPOSITE_VERBS = frozenset(frozenset({written(v), written(w)}) for group in _OPPOSITE_GROUPS
                               for i, v in enumerate(group.split()) for w in group.split()[:i])
    return frozenset({_surface(x), _surface(y)}) in _OPPOSITE_VERBS


def _undoes(x: Term, y: Term, prefixes: tuple[str, ...]) -> bool:
    """`y`'s verb is `x`'s with one of `prefixes`, which undoes it."""
    done, undoing = _surface(x), _surface(y)
    return len(done) >= _SHORTEST and any(undoing == prefix + done for prefix in prefixes)


# Each group: a word, then the words that say its opposite. Read both ways.
_OPPOSITE_WORDS = ["off on", "beyond within inside", "outside inside within in", "out in inside within",
              "above below under", "over under below", "open closed shut", "free charge charged paid"]


def _table() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for group in _OPPOSITE_WORDS:
        head, *others = group.split()
        for other in others:
            table.setdefault(written(head), set()).add(written(other))
            table.setdefault(written(other), set()).add(written(head))
    return {word: frozenset(words) for word, words in table.items()}


_WORDS = lazy(r"[a-z0-9'-]+")
# Opposites so common that they count only with the shared thing right after them, this near.
_SAID_OF_THE_THING = frozenset({"in"})
_NEAR = 4
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
    negated, other = (o.left_a, b) if negative_a else (o.left_b, a)
    opposites = set().union(*(_TABLE.get(_surface(t), ()) for t in negated if t.negative))
    if not opposites:
        return False
    # "in" is in most rules: it must be said of the shared thing ("keep the cat in the house" for "never let it
    # out of the house"), not of another ("take laptops home in a padded bag" against "never take them out").
    shared = {w for x, y in o.shared for w in (x.word, y.word, _surface(x), _surface(y))}
    tokens = _WORDS.findall(other.text.lower())
    return any(written(w) in opposites and (w not in _SAID_OF_THE_THING or any(
        canon(n) in shared or written(n) in shared for n in tokens[i + 1:i + 1 + _NEAR]))
        for i, w in enumerate(tokens))
