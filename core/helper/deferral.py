"""An act put off against the same act done early, a contradiction of when: "hold the welcome pack until
the first visit" / "send the welcome pack as soon as a member signs up", "leave the hardest piece until the
end" / "rehearse the hardest piece first". One rule's instruction is a verb of keeping back with "until"; the
other does the act first, at once, before something or within a span.

Read from the texts (the two patterns) and the analysed rules' overlap (`overlap.py`): the thing put off must
be the thing the other rule acts on, and the event it waits for must not be the other rule's own trigger
("hold the invoice until the job is finished" / "send it as soon as the job is finished" say one thing).
`offline_judge.py` decides with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.similarity import Analysis
from agentuse.core.lazy_regex import lazy

# The instruction is to put the thing off: its first word a verb of holding back, then "until" an event, or
# "for"/"to" the end ("save the key facts for the end", "leave the hardest piece till last"); or not to do it
# until an event ("don't reveal the prize until the final round", "wait until it is signed to order"), or
# to do it only at the end. "keep" only with "back" and "save" only until after an event or for the end:
# "keep receipts until the audit", "save receipts until the end of the year" retain them.
_PUT_OFF = lazy(r"^(?:please\s+)?(?:hold|leave|postpone|delay|defer|put off|wait)\b[^.;!?]*?\b(?:until|till)\b"
                r"|^(?:please\s+)?save\b[^.;!?]*?\b(?:until|till)\s+after\b"
                r"|^(?:please\s+)?keep\b[^.;!?]*?\bback\b[^.;!?]*?\b(?:until|till)\b"
                r"|^(?:do not|don't|never)\s+(?!(?:hold|save|leave|postpone|delay|defer|wait)\b)[^.;!?]*?\b(?:until|till)\b")
_TO_THE_END = lazy(r"^(?:please\s+)?(?:hold|leave|postpone|delay|defer)\b[^.;!?]*?"
                   r"\b(?:for|to|till|until)\s+(?:the\s+)?(?:very\s+)?(?:end|last|close)\b"
                   r"|^(?:please\s+)?save\b[^.;!?]*?\b(?:for|to)\s+(?:the\s+)?(?:very\s+)?(?:end|last|close)\b"
                   r"|\bonly\s+(?:at|in)\s+the\s+(?:very\s+)?(?:end|last|final|closing)\b")
# Said of the act on the other side: done at once, first, before something or within a span.
_EARLY = lazy(r"\b(?:first|immediately|instantly|promptly|right away|at once|straight away|as soon as|"
              r"before|within|upfront|up front|on the spot|in advance|ahead of time|beforehand|on receipt|"
              r"on arrival|(?:right|straight|directly) after)\b")
_BEFORE = lazy(r"\b(?:before|ahead of|in advance of|prior to)\b")
_WAITS = lazy(r"\b(?:until|till)\b")
_NEGATED = lazy(r"\b(?:never|not|no|don't|do not)\b")
# A party or a detail of the kept-back thing ("leave suspected duplicates separate until ..."): at most this
# many words of its own besides the verb and the awaited event, on either side.
OWN_WORDS = 2


@dataclass(frozen=True)
class _Timing:
    """What a rule's text says of when, read once per text (a tidy-up compares each rule with every other)."""
    put_off: bool  # keeps the thing back until an event
    to_the_end: bool  # keeps it back for the end, or does it only at the end


@lru_cache(maxsize=4096)
def _timing(text: str) -> _Timing:
    # As written: normalizing reads "as soon as" as "when" and "within" as a bound. The substring tests pass
    # over most rules before any pattern is searched.
    low = text.lower().strip()
    waits = "til" in low and bool(_WAITS.search(low))
    to_the_end = any(map(low.__contains__, ("end", "last", "clos", "final"))) and bool(_TO_THE_END.search(low))
    return _Timing(put_off=waits and bool(_PUT_OFF.search(low)), to_the_end=to_the_end)


def put_off_against_early(a: Analysis, b: Analysis, o: Overlap) -> str | None:
    """`a` keeps a thing back until an event and `b` acts on the same thing early: the event, or None."""
    ta = _timing(a.text)
    if not (ta.to_the_end or ta.put_off):
        return None  # most rules put nothing off
    low_a, low_b = a.text.lower(), b.text.lower()
    to_the_end = ta.to_the_end
    # The early side waits for nothing itself ("keep the seats back until 24 hours before ..." waits too).
    if _WAITS.search(low_b) or _timing(b.text).to_the_end or not _EARLY.search(low_b):
        return None
    if (_NEGATED.search(low_a) and not ta.put_off) or _NEGATED.search(low_b) or a.values:
        return None  # a number on the kept-back side names a case ("hold refunds over 500 until ...")
    if a.order & b.order:
        return None  # one sequence said twice: "don't upgrade until drained" / "drain before upgrading"
    if any(y.negative for _, y in o.shared):
        return None  # the early side forbids it (the kept-back side may read negated: "don't X until Y")
    # What it waits for: a condition ("until the chair has approved them"), or the earlier step of the order
    # normalizing reads "don't X until Y" as ("X only after Y").
    earlier = {x for x, _ in a.order}
    event = [t for t in a.terms if (t.role == "condition" or t.word in earlier) and t.weight >= 1
             and not (t.lead and t.role == "main")]
    # The thing kept back is the thing acted on: shared, and not in the awaited event on `a`'s side.
    if not any(x.role == "main" and not x.lead and not x.scoped and x.weight >= 1 and not any(x is t for t in event)
               for x, _ in o.shared):
        return None
    shared_a = {id(x) for x, _ in o.shared}
    if not to_the_end and not event:
        return None
    # Waiting for what the other rule acts upon ("hold the invoice until the job is finished" / "send it as
    # soon as the job is finished") is one instruction, unless the other acts before it.
    if not to_the_end and all(id(t) in shared_a for t in event) and not _BEFORE.search(low_b):
        return None
    # The other acts once what `a` waits for happens, `a` waiting for that and a detail more ("send it as soon
    # as it is approved" / "hold it until legal has approved it"): a near-miss, not two times.
    trigger = {t.word for t in b.terms if t.role == "condition" and t.weight >= 1}
    if trigger and trigger <= {t.word for t in event}:
        return None
    # The kept-back side's phrases of place or time say when ("only at the last step of checkout").
    own_a = [t for t in o.left_a if t.role == "main" and not t.lead and not t.scoped and t.weight >= 1]
    own_b = [t for t in o.left_b if t.role == "main" and not t.lead and t.weight >= 1]
    if len(own_a) > OWN_WORDS or len(own_b) > OWN_WORDS:
        return None
    return " ".join(t.word for t in event) or "the end"
