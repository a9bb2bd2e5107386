""""Only" one way or place against another, a contradiction by clause structure: "log meter readings only in
the billing system" / "record meter readings in a paper notebook". The same act on the same thing, one rule
restricting where or how it is done and the other doing it somewhere the restriction shuts out.

Read from the analysed rules (`similarity.py`) and their overlap (`overlap.py`): what each side has of its
own must all sit in a place or means phrase (after "in", "at", "through", "by" ...), so a party, a thing or
another act named on one side keeps the pair a near-miss or unrelated, and a place both sides share ("only in
the legal drive" / "in the legal drive on weekends") keeps the narrower rule a near-miss.
`offline_judge.py` decides with it.
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.receiving import one_act
from agentuse.core.helper.qualifiers import qualified_only, words_of
from agentuse.core.helper.similarity import Analysis, Term
from agentuse.core.helper.wording import normalize
from agentuse.core.lazy_regex import lazy

# "only" right before the phrase that says where or how: "only in the billing system", "only through the
# portal". "only after"/"only when" order or condition the act instead, and are read elsewhere.
_ONLY_BEFORE_PLACE = lazy(r"\b(?:only|solely|exclusively)\s+(?:in|on|at|through|via|by|over|from|into|using|inside)\b")


def only_elsewhere(a: Analysis, b: Analysis, o: Overlap) -> tuple[str, str] | None:
    """`a` restricts an act to one place or means and `b` does the same act, to the same thing, in another:
    the two places, or None."""
    if not _ONLY_BEFORE_PLACE.search(normalize(a.text)) or qualified_only(words_of(b.text)):
        return None
    if a.values or b.values or a.order or b.order:
        return None  # a number or an order of steps is a case of its own
    if any(x.negative != y.negative or x.role != "main" or y.role != "main" for x, y in o.shared):
        return None
    # The act itself shared (its verb, verbs of one synonym group, or of receiving), and the thing it is done to.
    leads_left = [t for t in o.left_a + o.left_b if t.lead and t.role == "main"]
    if any(x.lead and y.lead for x, y in o.shared) and leads_left:
        return None  # a second act on one side
    if not any(x.lead and y.lead for x, y in o.shared) and not _leads_one_act(o):
        return None
    if not any(not x.lead and not _placed(x) and not _placed(y) and x.weight >= 1 for x, y in o.shared):
        return None
    own_a, own_b = _own(o.left_a), _own(o.left_b)
    if not own_a or not own_b or not all(map(_placed, own_a + own_b)):
        return None
    return " ".join(t.word for t in own_a), " ".join(t.word for t in own_b)


def _leads_one_act(o: Overlap) -> bool:
    """Each side's own verb left over, the two verbs of one act ("collect" / "take" RSVPs)."""
    leads_a = [t.word for t in o.left_a if t.lead and t.role == "main"]
    leads_b = [t.word for t in o.left_b if t.lead and t.role == "main"]
    return len(leads_a) == len(leads_b) == 1 and one_act(leads_a[0], leads_b[0])


def _own(left: list[Term]) -> list[Term]:
    return [t for t in left if t.weight >= 1 and not (t.lead and t.role == "main")]


def _placed(t: Term) -> bool:
    """A term inside a place or means phrase, asked for, in the instruction itself."""
    return (t.scoped or bool(t.means)) and t.role == "main" and not t.negative and not t.lead
