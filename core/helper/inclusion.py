"""One rule's instruction takes in the very thing the other carves out, two values of one setting: "include
the deposit in the total" / "show the total excluding the deposit", "include tax in the price" / "print the
price before tax" (which `wording.py` reads as "excluding tax"). `offline_judge.py` already reads "including
X" against "excluding X"; here the taking in is the instruction's own verb ("include", or a verb its synonym
group reads so: "add", "show", "state").

Only when nothing else differs but each side's verb: a case of its own on the carving side ("excluding the
deposit for returning guests") keeps the pair a near-miss.
"""

from __future__ import annotations

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Analysis, canon

_INCLUDE = canon("include")


def included_against_carved(a: Analysis, b: Analysis, o: Overlap) -> str | None:
    """What `a` (or `b`) puts in with its own verb and the other carves out, or None."""
    for taking, carving, pairs in ((a, b, o.shared), (b, a, [(y, x) for x, y in o.shared])):
        if not _includes(taking):
            continue
        carved = [x.word for x, y in pairs if y.role == "exception" and x.role == "main" and not x.negative
                  and not x.lead and x.weight >= 1]
        if not carved:
            continue
        # Everything the carving side leaves out is what the taking side puts in; nothing else carved.
        if any(t.role == "exception" and t.word not in carved for t in carving.terms):
            continue
        rest = [t for t in o.left_a + o.left_b if t.weight >= 1 and not (t.lead and t.role == "main")]
        if rest or any(x.negative or y.negative for x, y in o.shared):
            continue
        return ", ".join(carved)
    return None


def _includes(a: Analysis) -> bool:
    """Its instruction's verb, asked for, puts something in."""
    lead = next((t for t in a.terms if t.lead and t.role == "main"), None)
    return lead is not None and lead.word == _INCLUDE and not lead.negative
