"""Two values for one setting, the offline evaluator's second kind of contradiction: numbers, dates and
times against one another (`values_relation`), two members of one closed set ("JSON" / "YAML", "daily" /
"weekly"), two means for one action ("sort by author" / "by title"), two quoted texts for one place.
Each reads the overlap of two analysed rules (`overlap.py`); `offline_judge.py` decides with them.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from agentuse.core.helper.described import described_words
from agentuse.core.helper.overlap import Overlap
from agentuse.core.helper.phrases import LITERAL
from agentuse.core.helper.similarity import Analysis, Term
from agentuse.core.helper.vocabulary import FREQUENCIES, alternative_group, canon, is_scale


def values_relation(a: Analysis, b: Analysis) -> str:
    """How the two rules' values stand: "none", "one-sided", "extra" (one side's plus a number naming a
    case), "mismatch" (two values for one setting) or "same"."""
    a_values, b_values = counted(a, b), counted(b, a)
    if not a_values and not b_values:
        return "none"
    if not a_values or not b_values:
        return "one-sided"
    key = _value_key  # "under 50" and "50" name the same number
    if sorted(map(key, a_values)) != sorted(map(key, b_values)):
        ka, kb = Counter(map(key, a_values)), Counter(map(key, b_values))
        # Every value of one side set the same way on the other, plus a number of its own: that number
        # names a case ("pages from posts longer than 800 words", "one owner and one reviewer"), not a
        # second value for the setting.
        return "extra" if ka < kb or kb < ka else "mismatch"
    bounds_a = {key(v): v[:2] for v in a_values if v[:2] in ("<=", ">=")}
    bounds_b = {key(v): v[:2] for v in b_values if v[:2] in ("<=", ">=")}
    if any(bounds_b.get(k, bound) != bound for k, bound in bounds_a.items()):
        return "mismatch"  # "at most 3" against "at least 3"
    return "same"


# A month is read as 30 days and a year as 365 (lexicon.TIME_UNITS), so "twelve months" is 360 days: spans of
# a month or more are compared in months of a twelfth of a year, to the nearest one, when that is close.
_MONTH = 365 * 86400 / 12
_MONTH_TOLERANCE = 0.03


def _value_key(value: str) -> str:
    bare = value.lstrip("<>=")
    if bare.endswith("s") and bare[:-1].replace(".", "", 1).isdigit():
        seconds = float(bare[:-1])
        months = round(seconds / _MONTH)
        if months >= 1 and abs(seconds - months * _MONTH) <= _MONTH_TOLERANCE * seconds:
            return f"{months}mo"
    return bare


def values_as_cases(a: Analysis, b: Analysis, o: Overlap) -> tuple[Analysis, Analysis, Overlap] | None:
    """The same number set on one side and named in a case on the other ("escalate tickets unanswered after
    two hours" / "if a ticket has no response after 120 minutes, escalate it"): the two rules and their overlap
    with that number read as one shared value, or None when there is no such number."""
    moved_a = _case_terms(b, o.left_a)
    moved_b = _case_terms(a, o.left_b)
    if not moved_a and not moved_b:
        return None
    values_a = tuple(v for v in a.values if _value_key(v) not in {_value_key(t.word) for t in moved_b})
    values_b = tuple(v for v in b.values if _value_key(v) not in {_value_key(t.word) for t in moved_a})
    left_a = [t for t in o.left_a if not any(t is m for m in moved_a)]
    left_b = [t for t in o.left_b if not any(t is m for m in moved_b)]
    return replace(a, values=values_a), replace(b, values=values_b), Overlap(o.shared, left_a, left_b)


def _case_terms(other: Analysis, left: list[Term]) -> list[Term]:
    """Terms of a case left over on one side that hold a value `other` sets for its rule."""
    bounds = {_value_key(v): _bound(v) for v in other.values}
    moved = []
    for t in left:
        key = _value_key(t.word)
        if t.role not in ("condition", "exception") or key not in bounds:
            continue
        if not _bound(t.word) or not bounds[key] or _bound(t.word) == bounds[key]:  # "under 50" is never "over 50"
            moved.append(t)
    return moved


def _bound(value: str) -> str:
    """"<=" or ">=" when the value is a bound ("at most 50", "over 50"), else ""."""
    return value[:2] if value[:2] in ("<=", ">=") else ""


# The part of the day a clock time falls in, from the hour it starts (a closed set of lexicon.ALTERNATIVES).
_PARTS_OF_DAY = ((5, canon("morning")), (12, canon("afternoon")), (17, canon("evening")), (21, canon("night")))
_PART_WORDS = frozenset(part for _, part in _PARTS_OF_DAY)


def clock_against_part(a: Analysis, b: Analysis, o: Overlap) -> tuple[str, str] | None:
    """A clock time set on one side and another part of the day on the other ("publish at 9 am" / "publish
    in the evening"): two values of one setting. The time and the part, or None."""
    for values, left in ((a.values, o.left_b), (b.values, o.left_a)):
        parts = [t.word for t in left if t.role == "main" and t.word in _PART_WORDS]
        if len(values) != 1 or not parts or not re.fullmatch(r"\d\d:\d\d", values[0]):
            continue
        hour = int(values[0][:2])
        part = next((name for start, name in reversed(_PARTS_OF_DAY) if hour >= start), _PARTS_OF_DAY[-1][1])
        if part not in parts:
            return values[0], parts[0]
    return None


def counted(a: Analysis, b: Analysis) -> tuple[str, ...]:
    """`a`'s values, with "once" made explicit where `b` counts times per period and `a` names the same
    period alone: "post daily" is "post once daily", against "post three times daily"."""
    if any(v.endswith("x") for v in a.values) or not any(v.endswith("x") for v in b.values):
        return a.values
    if not a.words & b.words & FREQUENCIES:
        return a.values
    # "publish two posts every week": a bare number beside the period is the count per period.
    counts = tuple(f"{v}x" if v.isdigit() else v for v in a.values)
    return counts if counts != a.values else (*a.values, "1x")


def alternative_conflict(o: Overlap, a: Analysis, b: Analysis) -> tuple[str, str] | None:
    """Two members of one closed set left over, one on each side ("JSON" / "YAML"); a scale's word in a
    scope ("on short posts") names a case instead, and so does a member in the description of the things
    the rule is about ("reviews written in German", `described.py`)."""
    # Which words are described is read only for a pair that is otherwise two members of one set (the rare
    # case): reading it costs a pattern search per word of the rule.
    for x in o.left_a:
        gx = alternative_group(x.word)
        if gx is None or x.role in ("condition", "exception") or (is_scale(gx) and x.scoped):
            continue
        for y in o.left_b:
            if y.word != x.word and alternative_group(y.word) == gx and y.role not in ("condition", "exception") \
                    and not (is_scale(gx) and y.scoped) and x.negative == y.negative \
                    and x.word not in described_words(a.text) and y.word not in described_words(b.text):
                return x.word, y.word
    return None


def means_conflict(o: Overlap, a: Analysis, b: Analysis) -> tuple[str, str] | None:
    """The same action done by two different means, one word each: "sort new arrivals by author" / "by
    title". Only when the action is shared and nothing else is left over, so a scope stays a near-miss,
    and not when the means describes the things acted on ("invoices which arrive as PDF")."""
    left_a = [t for t in o.left_a if t.weight >= 1]
    left_b = [t for t in o.left_b if t.weight >= 1]
    # One word against one or two ("by points" / "by win rate"): one means named in other words.
    if not left_a or not left_b or len(left_a) + len(left_b) > 3:
        return None
    x, y = left_a[0], left_b[0]
    if len({t.means for t in left_a + left_b}) != 1 or not x.means or len({t.negative for t in left_a + left_b}) != 1:
        return None
    if any(t.role != "main" for t in left_a + left_b):
        return None
    if not any(s.lead and t.lead and s.role == "main" for s, t in o.shared):
        return None
    if {t.word for t in left_a} & described_words(a.text) or {t.word for t in left_b} & described_words(b.text):
        return None  # read last: the rare pair that is otherwise two means
    return " ".join(t.word for t in left_a), " ".join(t.word for t in left_b)


def literal_conflict(o: Overlap) -> tuple[str, str] | None:
    """Two different quoted texts asked for in one place: "sign off with 'Cheers'" / "use 'Best regards' as
    the sign-off". Only when nothing but the quotes (and the verb) differs and neither is forbidden:
    "avoid 'very'" and "avoid 'really'" both hold."""
    lit_a = [t for t in o.left_a if t.word.startswith(LITERAL)]
    lit_b = [t for t in o.left_b if t.word.startswith(LITERAL)]
    if not lit_a or not lit_b or any(x.word.startswith(LITERAL) for x, _ in o.shared):
        return None
    if any(t.negative or t.role != "main" for t in lit_a + lit_b):
        return None
    rest = [t for t in o.left_a + o.left_b if t.weight >= 1 and not t.word.startswith(LITERAL) and not t.lead]
    if rest:
        return None
    quote = lambda ts: " ".join(t.word[len(LITERAL):] for t in ts)  # noqa: E731
    return quote(lit_a), quote(lit_b)
