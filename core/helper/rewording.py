"""The reworded reading of the offline evaluator: a near-miss is one rule copied with one detail added or
changed, a duplicate rewords, so two rules worded apart in several places (`rewordings`) with nothing left
unread that could be a near-miss's detail (`reworded`) are a paraphrase. What may be that detail: a word
unread on both sides, a word added on one, a qualifier written before a shared word (`modifier_added`), a
case of one side's own, two verbs it cannot tell apart (`verbs_apart`). `offline_judge.py` decides with it.
"""

from __future__ import annotations

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.overlap import Overlap, side_of
from agentuse.core.helper.qualifiers import tokens_of
from agentuse.core.helper.similarity import Analysis, Term
from agentuse.core.helper.vocabulary import canon, written

# Two rules worded apart in at least this many places (see rewordings) are read as a paraphrase when
# little is left unread: near-misses are one rule copied with one detail added or changed (worded apart
# nowhere), duplicates reword. At most this leftover on each side, and never a word on both sides, a
# qualifier, a verb it cannot tell from the other's or a case of one side's own (see reworded) ...
REWORDED = 2
REWORDED_LEFTOVER = 1.5
# ... and nothing but a verb when the other side leaves nothing: a word added is a detail of its own.
REWORDED_ONE_SIDED = 0.5
# Worded apart in one place only: at most a word (or the two verbs) left over on each side.
REWORDED_ONCE_LEFTOVER = 1.0


def verbs_apart(o: Overlap) -> str | None:
    """Each side's instruction led by a verb the other does not share: "archive" / "close"."""
    lead_a = [t.word for t in o.left_a if t.lead and not t.subordinate and t.role == "main" and t.weight >= 1]
    lead_b = [t.word for t in o.left_b if t.lead and not t.subordinate and t.role == "main" and t.weight >= 1]
    return f"{lead_a[0]} / {lead_b[0]}" if lead_a and lead_b else None


# Marker words of one kind: one swapped for another of its kind ("never" / "do not", "if" / "when",
# "instead" / "rather") is the same structure written apart. "Until" is no "when", "before" no "after".
_MARKER_KINDS = (lx.NEGATORS, lx.CONDITION_MARKERS - {"until"}, lx.CONTRAST_MARKERS, lx.EXCEPTION_MARKERS,
                 frozenset(m for m, way in lx.ORDER_MARKERS.items() if way == "later"),
                 frozenset(m for m, way in lx.ORDER_MARKERS.items() if way == "earlier"))


def rewordings(a: Analysis, b: Analysis, o: Overlap) -> int:
    """In how many places two rules are worded apart though they say the same there: each shared term
    written differently ("show" / "display", a compound against its two words), each kind of marker
    written with another word of its kind, and the shared terms in another order (one place)."""
    apart = sum(1 for x, y in o.shared if x is y or x.surface != y.surface)
    words_a, words_b = frozenset(tokens_of(a.text)), frozenset(tokens_of(b.text))
    markers = sum(1 for kind in _MARKER_KINDS if (words_a & kind) - words_b and (words_b & kind) - words_a)
    index_b = side_of(b).index
    positions = [index_b[y.word] for x, y in o.shared if x is not y and y.word in index_b]
    reordered = any(p > q for p, q in zip(positions, positions[1:]))
    return apart + markers + reordered


def reworded(a: Analysis, b: Analysis, o: Overlap, left_a: float, left_b: float) -> bool:
    """Worded apart in REWORDED places or more with at most REWORDED_LEFTOVER unread on each side, or in one
    place with at most REWORDED_ONCE_LEFTOVER, and nothing unread that may be the detail a near-miss adds or
    changes."""
    if min(left_a, left_b) == 0 and max(left_a, left_b) > REWORDED_ONE_SIDED:
        # A word added on one side is a detail of its own, however it is written: "tickets that are urgent",
        # "by SMS", "and grammar", "disk latency spikes", "the database server".
        return False
    if _content_left(o.left_a) and _content_left(o.left_b):
        # A word unread on each side besides the verbs: a synonym the lexicon lacks, or the one detail a
        # reworded copy changed ("ask the guest for ID at check-in" / "at check-in, request a passport").
        return False
    leads = {t.negative for t in o.left_a + o.left_b if t.lead and t.role == "main" and t.weight >= 1}
    if len(leads) > 1:
        return False  # "decline every read receipt request" / "send read receipts": a verb against another
    if _case_added(a, o.left_a, b) or _case_added(b, o.left_b, a):
        return False  # "reply to reviews within a day when they are negative": a trigger of its own
    if modifier_added(a, o.left_a, {x.word for x, _ in o.shared}) \
            or modifier_added(b, o.left_b, {y.word for _, y in o.shared}):
        return False  # "don't publish on holidays" / "no publishing on public holidays": a case narrowed
    apart = rewordings(a, b, o)
    if verbs_apart(o) and apart <= REWORDED:
        return False  # "never store passwords" / "passwords must not be logged": two acts it cannot tell apart
    return apart >= REWORDED or (apart == 1 and max(left_a, left_b) <= REWORDED_ONCE_LEFTOVER)


def _case_added(a: Analysis, left_a: list[Term], b: Analysis) -> bool:
    """A word of a condition or exception left on `a`'s side, and `b` with no case at all (no condition,
    exception or order): a trigger of `a`'s own, not the same case in other words."""
    if not any(_is_content(t) and t.role in ("condition", "exception") for t in left_a):
        return False
    return not b.order and not any(t.role in ("condition", "exception") for t in b.terms)


def modifier_added(analysis: Analysis, left: list[Term], shared: set[str]) -> bool:
    """A word left over written right before a shared one: a qualifier of it ("public holidays" / "holidays"),
    not a party before its object ("give the shopper a discount code")."""
    written_left = {t.surface for t in left if t.weight >= 1}
    if not written_left:
        return False
    tokens = tokens_of(analysis.text)
    # A clause's verb before its object is no qualifier ("tag each campaign"), but a participle read as the
    # verb is ("each rejected applicant should hear back").
    return any(written(tok) in written_left and canon(nxt) in shared and _modifies(left, before, tok)
               for before, tok, nxt in zip(("",) + tokens, tokens, tokens[1:]))


def _modifies(left: list[Term], before: str, tok: str) -> bool:
    """Whether `tok`, left over and written before a shared word, qualifies it: a participle only after a
    determiner ("each rejected applicant"; "moves are billed hourly" is a verb), any other content word."""
    if len(tok) > 4 and tok.endswith(("ed", "ing")):
        return before in _DETERMINERS
    return _is_content_word(left, tok)


# Words after which a participle is an adjective ("each rejected applicant"), not a passive ("be stored").
_DETERMINERS = frozenset({"a", "an", "the", "each", "every", "all", "any", "no", "some", "their", "our", "your", "its"})


def _is_content_word(left: list[Term], tok: str) -> bool:
    return any(t.surface == written(tok) and _is_content(t) for t in left)


def _content_left(terms) -> bool:
    return any(_is_content(t) for t in terms)


def _is_content(t: Term) -> bool:
    """A word of what the rule is about, not its verb ("before every schema migration": "schema" leads
    its step, but is its subject)."""
    return t.weight >= 1 and not (t.lead and t.role == "main" and not t.subordinate)
