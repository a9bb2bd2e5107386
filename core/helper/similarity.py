"""Text measures for the offline evaluator: how a rule reads once its wording is set aside.

`analyze(text)` turns a rule into weighted content terms, each with the polarity of its clause (does the
rule ask for it or against it) and its role (main instruction, contrast, condition, exception), plus the
values it sets (numbers, dates, times, weekdays, formats) with their bounds, and the order of events it
prescribes. The words are read with `vocabulary.py` (canonical forms, closed sets, weights) once
`wording.py` has rewritten and cut the text. `overlap.py` compares two analyses; `offline_judge.py`
decides from that. Deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TypeVar

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.morphology import stem
from agentuse.core.helper.negation_scope import SUBJECT_NEGATORS
from agentuse.core.helper.negation_scope import opens as opens_scope
from agentuse.core.helper.negation_scope import trailing_contrast
from agentuse.core.helper.vocabulary import (DATE_VALUES, FREQUENCIES, FREQUENCY, NEG_VERBS, OMISSION_TARGETS, STOP,
                                             alternative_group, canon, fmt, is_scale, number_of, weight_of, written)
from agentuse.core.helper.wording import normalize, split_clauses, split_sentences

# Re-exported: the evaluator's modules and core/grouping.py, core/tidy.py read these from here.
__all__ = ["Analysis", "FREQUENCIES", "Term", "alternative_group", "analyze", "canon", "is_scale", "normalize",
           "split_clauses", "split_sentences", "stem", "unique_terms"]

# Words after which "a day", "an hour" is a frequency ("twice a day"), not a span of one ("within a day").
_COUNTS = frozenset({"times", "twice", "thrice", "once", "per"})
# A relative clause after an omitted object says which ones ("rows whose id is null"): not omitted itself.
_RELATIVES = frozenset({"whose", "that", "which", "who", "where"})
_BOUNDS = {"atmost": "<=", "atleast": ">="}
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b|\b(\d{1,2}):(\d{2})\b")


@dataclass(frozen=True)
class Term:
    word: str  # canonical form
    weight: float
    negative: bool  # the rule asks against it
    role: str  # "main" | "contrast" (what it is against) | "condition" (when it applies) | "exception"
    lead: bool = False  # first word of its clause: in an order, usually the verb ("write", "add")
    # In a clause opened by "before"/"after": its first word is the step's subject ("before a post is
    # published"), not the instruction's verb.
    subordinate: bool = False
    means: str = ""  # the preposition of means it follows ("by", "via", "using", "as"): "sort | by title"
    scoped: bool = False  # after a scope word ("on short posts"): it names a case, not what is asked
    # The word as written, stemmed but not read through a synonym group: "show" where `word` is "include".
    # Two rules whose shared terms are written differently reword each other (offline_judge.py).
    surface: str = ""
    # The scope or means word it is the first content word after: "with" in "calls with clients", but not
    # in "a hook the reader relates to" ("reader" is not what "with" opens).


@dataclass(frozen=True)
class Analysis:
    text: str
    terms: tuple[Term, ...]
    values: tuple[str, ...]  # sorted, e.g. ("<=50", "30s", "2026-09-01", "monday")
    order: frozenset[tuple[str, str]] = frozenset()  # (earlier, later) events the rule sequences

    @property
    def words(self) -> frozenset[str]:
        return frozenset(t.word for t in self.terms)

    def weight(self) -> float:
        return sum(t.weight for t in unique_terms(self.terms))


T = TypeVar("T")


def remembered(analysis: Analysis, key: str, compute: Callable[[Analysis], T]) -> T:
    """`compute(analysis)`, worked out once per analysis: a tidy-up compares each rule with every other
    several times. Kept in the analysis's __dict__ (immutable, and cached by text in `analyze`), as
    cached_property keeps its values."""
    try:
        return analysis.__dict__[key]
    except KeyError:
        value = analysis.__dict__[key] = compute(analysis)
        return value


def unique_terms(terms) -> list[Term]:
    seen: dict[str, Term] = {}
    for t in terms:
        if t.word not in seen or t.weight > seen[t.word].weight:
            seen[t.word] = t
    return list(seen.values())


# A number after an acronym or a naming word names a thing ("HTTP 429", "ISO 8601", "PEP 8"): one term.
@lru_cache(maxsize=8192)
def analyze(text: str) -> Analysis:
    norm = normalize(text)
    values: list[str] = []

    def take_date(m: re.Match) -> str:
        # "before 9:00" and "after 9:00" bound one time from opposite sides: not the same value.
        before = re.search(r"\b(before|until|till|by|earlier than|after|since|from|later than)\s*$", m.string[:m.start()])
        bound = "" if before is None else ">=" if before.group(1) in ("after", "since", "from", "later than") else "<="
        values.append(bound + m.group(0))
        return " "

    def take_format(m: re.Match) -> str:
        values.append("format:" + re.sub(r"[-/.]", "-", m.group(0)))
        return " "

    # "DD/MM/YYYY" and "YYYY-MM-DD" are values of one setting (a date format), not words.
    norm = re.sub(r"\b(?:dd|mm|yyyy|yy|hh|month)(?:[-/.:](?:dd|mm|yyyy|yy|hh|ss|month))+\b", take_format, norm)
    norm = _DATE.sub(take_date, norm)
    norm = re.sub(r"\$\s?(\d[\d,]*(?:\.\d+)?)", r" \1 dollar ", norm)
    terms: list[Term] = []
    order: set[tuple[str, str]] = set()
    for sentence in split_sentences(norm):
        sentence_terms: list[tuple[int, Term]] = []  # (clause index, term)
        marks: list[tuple[int, int, str, bool]] = []  # (clause, position, marker, at clause start)
        clauses = split_clauses(sentence)
        for ci in range(len(clauses)):
            for term, mark in _clause_terms(trailing_contrast(clauses, ci), values):
                if mark:
                    marks.append((ci, len(sentence_terms), mark[0], mark[1]))
                else:
                    sentence_terms.append((ci, term))
        order |= _order(sentence_terms, marks)
        terms.extend(t for _, t in sentence_terms)
    return Analysis(text=text, terms=tuple(terms), values=tuple(sorted(values)), order=frozenset(order))


def _order(terms: list[tuple[int, Term]], marks: list[tuple[int, int, str, bool]]) -> set[tuple[str, str]]:
    """(earlier, later) pairs: "A before B", "before B, A", "A after B", "after B, A", "A, then B"."""
    pairs: set[tuple[str, str]] = set()
    content = [(ci, t) for ci, t in terms if t.weight >= 1]
    for clause, pos, marker, at_start in marks:
        if at_start and marker in ("before", "after", "prior"):
            inside = [t.word for ci, t in content if ci == clause]
            outside = [t.word for ci, t in content if ci != clause]
            earlier, later = (outside, inside) if marker in ("before", "prior") else (inside, outside)
        else:
            left = [t.word for i, (ci, t) in enumerate(terms) if i < pos and t.weight >= 1]
            right = [t.word for i, (ci, t) in enumerate(terms) if i >= pos and t.weight >= 1]
            if left and not right:  # "ask before deleting anything": the step is all light words, still a step
                right = [t.word for i, (ci, t) in enumerate(terms) if i >= pos]
            if lx.ORDER_MARKERS[marker] == "later":
                earlier, later = left, right
            else:
                earlier, later = right, left
            if marker in ("afterwards", "afterward"):  # "X first and Y afterwards": Y's clause is later
                earlier = [t.word for i, (ci, t) in enumerate(terms) if ci < clause and t.weight >= 1]
                later = [t.word for i, (ci, t) in enumerate(terms) if ci == clause and i < pos and t.weight >= 1]
        pairs |= {(x, y) for x in earlier for y in later if x != y}
    return pairs


def _clause_terms(clause: str, values: list[str]):
    """Yield (term, None) for each content word and (None, (marker, at_start)) for each order marker.
    A clause is cut into segments at condition/exception/contrast words; each segment has its own
    negation (so "escalate when the customer does not answer" does not negate "escalate")."""
    tokens = lx.WORD_RE.findall(clause)
    segments: list[tuple[str, list[str]]] = [("main", [])]
    cancel_main = False
    for i, tok in enumerate(tokens):
        opened = opens_scope(tokens, i, segments[-1][1])
        if opened:
            segments.append((opened, [tok]))  # "tell the owner | not to swim": the negation is the new part's
        elif tok == "without":
            # "never X without Y" is "X only with Y": Y is a carve-out and the negation of X is cancelled;
            # a plain "X without Y" is against Y.
            if any(t in lx.NEGATORS for t in tokens[:i]) and len(segments) == 1:
                cancel_main = True
                segments.append(("exception", []))
            else:
                segments.append(("contrast", []))
        elif tok in lx.CONTRAST_MARKERS:
            segments.append(("contrast", []))
        elif tok in lx.MODALS and segments[-1][0] == "contrast" and segments[-1][1] and len(segments) == 2:
            # "issues without activity for 90 days should be closed": the "without" phrase qualified the
            # subject, and the modal opens the instruction itself.
            segments.append(("main", [tok]))
        elif tok in lx.EXCEPTION_MARKERS and (tok != "other" or "than" in tokens[i + 1:i + 2]):
            segments.append(("exception", []))
        elif tok == "or" and i == 0:  # ", or Y when Z": an alternative carved out of the rule
            segments.append(("exception", []))
        elif tok in lx.CONDITION_MARKERS and not (tok == "once" and i == len(tokens) - 1):
            segments.append(("condition", []))
        elif tok in _RELATIVES and segments[-1][1] and any(t in lx.NEGATORS and t != "without" for t in tokens[i + 1:]):
            # "remove resources that are no longer used": the negation says which ones, like a condition;
            # it does not turn the instruction around. ("that arrive without an agenda" is read at "without".)
            segments.append(("condition", []))
        else:
            segments[-1][1].append(tok)
    main_negative = False
    first = True
    for role, toks in segments:
        negators = [t for t in toks if t in lx.NEGATORS or t in SUBJECT_NEGATORS]
        bound = next((_BOUNDS[t] for t in toks if t in _BOUNDS), "")
        # "do not retry more than 3 times" sets an upper bound; it does not forbid retrying.
        if bound == ">=" and negators:
            bound, negators = "<=", negators[1:]
        negative = len(negators) % 2 == 1
        if role == "main" and cancel_main:
            negative = not negative
        if role == "contrast" and not negators:
            negative = not main_negative
        if role == "main":
            main_negative = negative
        yield from _segment_terms(toks, role, negative, bound, values, at_clause_start=first)
        first = False


_PASSIVE = frozenset({"be", "been", "being", "is", "are", "was", "were", "get", "gets", "got"})
_UNDONE = re.compile(r"un(?!ited|ified)([a-z]{2,}ed)")


def _segment_terms(toks: list[str], role: str, negative: bool, bound: str, values: list[str],
                   *, at_clause_start: bool):
    toks = list(toks)  # "a" read as "1" below must read so for the unit after it too
    out: list[tuple] = []
    lead = True
    omitted = False  # after "skip"/"omit"/"remove": the object is what the rule is against
    object_read = False  # a word of the omitted object already read
    non = False  # "non-refundable": the next word is negated
    subordinate = False
    means, scoped = "", False
    subject_end = None  # where the subject's own words end: "comments | containing slurs must be hidden"
    for i, tok in enumerate(toks):
        if subject_end is None and out and (tok in lx.SCOPE_OPENERS or tok in _RELATIVES or tok in lx.MODALS
                                            or (len(tok) > 4 and tok.endswith(("ing", "ed")))):
            subject_end = len(out)
        if tok in lx.MEANS:
            means = "as" if tok == "as" else "by"
        elif tok in lx.SCOPE_OPENERS:
            means, scoped = "", True
        if tok in lx.MODALS and i > 0:
            lead = True  # "listings should name the school": the verb after the modal leads, as in an order
        elif tok in lx.SCOPE_OPENERS and not out:
            # ", on weekends" / ". in the footer": a clause that opens on a preposition has no verb at its head;
            # its first word is the case it names, which a paraphrase does not get to leave out.
            lead = False
        if omitted and (tok in lx.SCOPE_OPENERS or tok in _RELATIVES
                        or (object_read and len(tok) > 4 and tok.endswith(("ing", "ed")))):
            # "exclude test accounts | from every report", "delete posts | containing ...": the scope and
            # what says which ones are not themselves excluded.
            omitted = False
        if tok == "non" and i + 1 < len(toks):
            non = True
            continue
        if tok in ("a", "an") and i < len(toks) - 1 and toks[i + 1] in lx.TIME_UNITS \
                and (i == 0 or toks[i - 1] not in _COUNTS):
            tok = toks[i] = "1"  # "within a day" is "within 1 day"
        if tok == "first" and i < len(toks) - 1 and role == "main":
            out.append((None, ("then", False)))  # "X first and Y afterwards": X is earlier than Y
            continue
        if tok in lx.ORDER_MARKERS:
            if tok in ("after", "before") and i + 2 < len(toks) and toks[i + 2] in lx.TIME_UNITS \
                    and number_of(toks[i + 1]) is not None:
                continue  # "after 90 days without activity": a span of time, its value read below, not a step
            out.append((None, (tok, at_clause_start and i == 0)))
            subordinate = subordinate or (at_clause_start and i == 0)
            continue
        if tok in lx.NEGATORS or tok in _BOUNDS or tok == "than":
            continue
        number = number_of(tok)
        if number is not None:
            unit = toks[i + 1] if i + 1 < len(toks) else ""
            if unit in lx.TIME_UNITS:
                text = f"{fmt(number * lx.TIME_UNITS[unit])}s"
            elif alternative_group(canon(unit)) == FREQUENCY:
                text = f"{fmt(number)}x"  # "twice weekly": a count per period, against "once weekly"
            elif unit == "times" and i + 2 < len(toks) and alternative_group(canon(toks[i + 2])) == FREQUENCY:
                text = f"{fmt(number)}x"  # "three times daily"
                toks[i + 1] = "times_"
            elif unit == "times":
                text = fmt(number)  # "retry three times": the count is the value, "times" says nothing more
                toks[i + 1] = "times_"
            elif tok[0].isdigit() and tok.endswith(("st", "nd", "rd", "th")):
                text = f"day{fmt(number)}"
            else:
                text = fmt(number)
            if role in ("condition", "exception"):
                # A value inside a carve-out ("on Tuesday when Monday is a holiday") names a case, not
                # the setting: it is compared as a term of that carve-out.
                out.append((Term(word=f"{bound}{text}", weight=1.5, negative=negative, role=role, lead=False), None))
            else:
                values.append(f"{bound}{text}")
            continue
        if (tok in lx.TIME_UNITS and i > 0 and number_of(toks[i - 1]) is not None) or tok == "times_":
            continue  # already folded into the value
        if tok in lx.FOREVER and role not in ("condition", "exception"):
            values.append("forever")  # "ban permanently" sets the same setting as "ban for 7 days"
            continue
        if tok in STOP:
            continue
        undone = _UNDONE.fullmatch(tok)
        if undone:  # "leave brand names untranslated": not translated
            tok, non = undone.group(1), not non
        word = canon(tok)
        if word in STOP:
            continue
        neg = negative != (omitted or non)
        object_read = object_read or omitted
        non = False
        if word in NEG_VERBS:  # "omit X" == "do not include X"
            word, neg = NEG_VERBS[word], not negative
            omitted, object_read = word in OMISSION_TARGETS, False
            if omitted and _after_auxiliary(toks, i):
                # "negative comments must never be deleted": the passive's subject is what is deleted.
                end = len(out) if subject_end is None else subject_end
                out = [(replace(t, negative=not negative) if t is not None and t.role == role and k < end else t, m)
                       for k, (t, m) in enumerate(out)]
        if alternative_group(word) in DATE_VALUES and role not in ("condition", "exception"):
            values.append(word)  # weekdays and months are dates: values, not subjects
            continue
        # "if a patient reports chest pain", "invites that arrive without an agenda": the verb only says the
        # case came about.
        occurs = (tok in lx.OCCURRENCE_VERBS and (role == "condition" or (i > 0 and toks[i - 1] in _RELATIVES))) \
            or (tok in lx.THERE_VERBS and role in ("condition", "exception")
                and any(t is not None and t.weight >= 1 for t, _ in out))
        weight = 0.3 if occurs else weight_of(word)
        out.append((Term(word=word, weight=weight, negative=neg, role=role, lead=lead, subordinate=subordinate,
                         means=means, scoped=scoped, surface=written(tok)), None))
        lead = False
    return out


def _after_auxiliary(toks: list[str], i: int) -> bool:
    """The verb at `i` is a passive participle: "be", "is", "get" before it, negators and adverbs between."""
    j = i - 1
    while j >= 0 and (toks[j] in lx.NEGATORS or toks[j].endswith("ly")):
        j -= 1
    return j >= 0 and toks[j] in _PASSIVE


def __getattr__(name: str):
    # `overlap` lived here first and other modules import it from here (core/grouping.py). Resolved
    # lazily because overlap.py itself imports this module.
    if name in ("overlap", "Overlap", "similar_words"):
        from agentuse.core.helper import overlap as module

        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
