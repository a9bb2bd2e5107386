"""Sentence-level work for the offline evaluator: what a text carries, merges that drop nothing,
grounding against a trace, and turning a reviewer's words into an order.

The rule throughout: when in doubt, keep the words. A merge keeps every sentence of every original that
the sentences already kept do not carry; the audit reports any sentence whose terms, values, polarity,
exceptions or qualifiers the rewrite no longer carries. Both use one test of "carried" (`missing_from`).
"""

from __future__ import annotations

import re
from functools import lru_cache

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.offline_judge import Label, judge
from agentuse.core.helper.overlap import overlap, similar_words
from agentuse.core.helper.qualifiers import qualifiers
from agentuse.core.helper.similarity import Analysis, analyze, canon, normalize

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[[a-z-]+\]\s*)?")
# A line break inside a sentence (the line before ends without a stop, the next goes on in lower case or
# with a parenthesis): a body wrapped to a width, as the spec's Storage Format writes them, not a new item.
_WRAP = re.compile(r"(?<![.!?:;\n \t])[ \t]*\n[ \t]*(?=[a-z(])")


def sentences(text: str) -> list[str]:
    """Sentences and bullet lines, markers stripped, empty ones dropped, order kept."""
    return list(_sentences(text))


_ALPHANUMERIC = re.compile(r"[A-Za-z0-9]")
_KEY_WORD = re.compile(r"[a-z0-9_]+")


@lru_cache(maxsize=4096)  # a tidy-up splits each rule again for every rule it is compared with
def _sentences(text: str) -> tuple[str, ...]:
    out = []
    for part in _SENTENCE.split(_WRAP.sub(" ", text) if "\n" in text else text):
        part = _BULLET.sub("", part).strip()
        if part and _ALPHANUMERIC.search(part):
            out.append(part)
    return tuple(out)


@lru_cache(maxsize=8192)  # asked for every pair of sentences `restates` compares
def sentence_key(sentence: str) -> str:
    """Identity of a sentence for de-duplication: case, punctuation and spacing do not count."""
    return " ".join(_KEY_WORD.findall(sentence.lower()))


def with_period(sentence: str) -> str:
    sentence = sentence.strip()
    return sentence if sentence[-1:] in ".!?:" else sentence + "."


# --- what a text carries -----------------------------------------------------------------------------


def missing_from(original: str, carrier: str) -> list[str]:
    """What of `original` (one sentence) the `carrier` text no longer says: empty when it is carried.

    Carried means a carrier sentence is the same sentence, or says the same thing in other words (a
    duplicate: "each" or "every", "add" or "include"), or the carrier as a whole holds every content term
    of it with the same polarity, every value and every exception; and in the last two cases, every
    qualifier ("only", "some", "usually", "the first", an "at most" bound) too, because those are what a
    paraphrase most easily drops while every content word survives. The audit reports what this returns,
    and the offline merge leaves out only sentences this says are carried, so the two always agree."""
    key = sentence_key(original)
    carrier_sentences = sentences(carrier)
    if any(sentence_key(s) == key for s in carrier_sentences):
        return []
    a = analyze(original)
    whole = analyze(carrier)
    missing: list[str] = _lost_qualifiers(original, a, carrier, whole)
    if any(judge(a, analyze(s)).label is Label.duplicate for s in carrier_sentences):
        return missing
    missing += [f"the value {value}" for value in _lost_values(a, whole)]
    for term in a.terms:
        if term.weight < 1:
            continue
        match = next((t for t in whole.terms if similar_words(term.word, t.word)), None)
        word = _surface(original, term.word)
        if match is None:
            what = "the exception" if term.role == "exception" else "the condition" if term.role == "condition" else "the term"
            missing.append(f'{what} "{word}"')
        elif match.negative != term.negative and term.role in ("main", "contrast"):
            missing.append(f'the {"prohibition" if term.negative else "requirement"} on "{word}"')
    return missing


def _lost_values(a: Analysis, whole: Analysis) -> list[str]:
    """The values (numbers with their units read as one measure: "15 minutes" is "900s") of `a` that `whole`
    does not hold, under any bound ("at most 3" carried as "3" is a lost bound, not a lost value)."""
    values = list(whole.values) + [t.word for t in whole.terms]
    bare = {v.lstrip("<>=") for v in values}
    return [value.lstrip("<>=") for value in a.values if value not in values and value.lstrip("<>=") not in bare]


_CASE_ROLES = ("exception", "condition")


def shares_a_term(a: str, b: str) -> bool:
    """Whether two texts share a term (stems and synonyms applied, as `overlap` matches them). Two rules one
    of which corrects, restates or carries the other almost always do: of the labelled pairs of the 14 sets in
    tests/data at 82946ad (a test with no parameter to tune), 3 of 889 contradictions and 11 of 1,051
    duplicates share none, against 354 of 492 unrelated pairs."""
    return bool(overlap(analyze(a), analyze(b)).shared)


def lost_in_code(original: str, carrier: str) -> list[str]:
    """What of `original` (a whole rule) `carrier` surely no longer says, in the audit's words: each value it
    does not hold, and the exception when `original` makes one ("unless the editor is away") and `carrier`
    states no case at all. The part of the audit's question code can answer whoever audits; a paraphrase
    that keeps an exception in other words ("except when", "but not if", "only when") still states a case."""
    a, whole = analyze(original), analyze(carrier)
    lost = [f"the value {value}" for value in _lost_values(a, whole)]
    exception = [t for t in a.terms if t.role == "exception" and t.weight >= 1]
    if exception and not any(t.role in _CASE_ROLES for t in whole.terms):
        lost.append(f'the exception about "{" ".join(_surface(original, t.word) for t in exception)}"')
    return lost


def carries(carrier: str, sentence: str) -> bool:
    return not missing_from(sentence, carrier)


def _lost_qualifiers(original: str, a: Analysis, carrier: str, whole: Analysis) -> list[str]:
    theirs = qualifiers(carrier)
    lost = [f'the qualifier "{word}"' for family, word in qualifiers(original).items() if family not in theirs]
    # "at most 3" carried as a bare "3": the number survives, the bound does not. (A carrier with no 3 at
    # all is reported as a missing value instead.)
    numbers = {v.lstrip("<>=") for v in whole.values}
    for value in a.values:
        bound = value[:2] if value[:2] in ("<=", ">=") else ""
        if bound and value not in whole.values and value[2:] in numbers:
            lost.append(f'the bound "{"at most" if bound == "<=" else "at least"} {value[2:]}"')
    return lost


def _surface(text: str, term: str) -> str:
    """The word as the author wrote it, for messages ("publishing", not the stem "publish")."""
    for token in lx.WORD_RE.findall(normalize(text)):
        if canon(token) == term:
            return token
    return term


# --- merging -------------------------------------------------------------------------------------------


def merge_carried(texts: list[str]) -> str:
    """For a merge: the sentences of every text, in order, leaving out one that a single sentence kept
    already carries (`missing_from`, the audit's own test), then any kept sentence the others make
    redundant. Two rules that say one thing in different words keep one wording; whatever one of them
    adds (a case, a number, an exception, a qualifier) is still written, and the audit accepts the result
    by construction. Keeping every reworded copy instead made merged rules grow with each merge until two
    of them no longer fitted in one rule, so near-identical rules could never finish merging."""
    originals = [s for text in texts for s in sentences(text)]
    kept: list[str] = []
    for s in originals:
        if not _carried_by_one(kept, s):
            kept.append(with_period(s))
    i = 0
    while i < len(kept):
        # "Carries" is not transitive (a paraphrase may word its verb differently), so a kept sentence
        # goes only when every original is still carried by one of the sentences left.
        rest = kept[:i] + kept[i + 1:]
        if rest and all(_carried_by_one(rest, s) for s in originals):
            kept = rest
        else:
            i += 1
    text = " ".join(kept)
    # The audit reads the merged text as a whole; should that ever judge differently, keep the words.
    kept += [with_period(s) for s in originals if not carries(text, s)]
    return " ".join(kept)


def _carried_by_one(kept: list[str], sentence: str) -> bool:
    return any(carries(k, sentence) for k in kept)


def merge_texts(texts: list[str]) -> str:
    """Every sentence of every text, in order; a sentence identical to one already written is skipped."""
    seen: set[str] = set()
    kept: list[str] = []
    for text in texts:
        for s in sentences(text):
            key = sentence_key(s)
            if key and key not in seen:
                seen.add(key)
                kept.append(with_period(s))
    return " ".join(kept)


def combine_duplicates(texts: list[str]) -> str:
    """For the permanent block: sentences in order, leaving out one that an earlier kept sentence carries
    (the audit's test, so a sentence that adds a qualifier is kept rather than restored by the audit)."""
    kept: list[str] = []
    for text in texts:
        for s in sentences(text):
            if not _carried_by_one(kept, s):
                kept.append(with_period(s))
    return " ".join(kept)


# Hedges and filler that carry no instruction: removing them shortens a rule without changing it.
_FILLER = [
    (r"\bplease note that\s+|\bnote that\s+", ""), (r"\bplease\s+|\bkindly\s+", ""),
    (r"\bi think\s+(?:that\s+)?", ""), (r"^you (?:should|need to|must|have to)\s+", ""), (r"\bi(?:'d| would) like (?:you )?to\s+", ""),
    (r"\b(?:try|remember|make sure|be sure) to\s+", ""),
    (r"\bit is (?:important|essential|crucial|best) (?:to|that)\s+", ""), (r"\bin order to\b", "to"),
    (r"\b(?:basically|just|really|actually|simply)\s+", ""),
]


def tighten(text: str) -> str:
    """Drop hedges, repeated sentences and doubled spaces; capitalise each sentence. Nothing else."""
    out = []
    for s in sentences(text):
        for pattern, repl in _FILLER:
            s = re.sub(pattern, repl, s, flags=re.IGNORECASE)
        s = re.sub(r"\s{2,}", " ", s).strip(" ,;")
        if s:
            out.append(with_period(s[0].upper() + s[1:]))
    return merge_texts(out)


def title_of(text: str, limit: int = 90) -> str:
    """One line naming the behaviour: the first sentence, cut at a word boundary if it is long."""
    first = (sentences(text) or [text.strip()])[0].rstrip(".")
    if len(first) <= limit:
        return first
    return first[:limit].rsplit(" ", 1)[0]


# --- grounding --------------------------------------------------------------------------------------------


def trace_vocabulary(trace: str) -> frozenset[str]:
    words = lx.WORD_RE.findall(normalize(trace))
    return frozenset(words) | frozenset(canon(w) for w in words)


def unsupported_terms(claim: str, vocabulary: frozenset[str]) -> tuple[list[str], int]:
    """The claim's specific terms the trace never mentions, and how many specific terms it has."""
    a: Analysis = analyze(claim)
    specific = [t for t in a.terms if t.weight >= 1]
    missing = [t.word for t in specific
               if t.word not in vocabulary and not any(similar_words(t.word, v) for v in vocabulary if len(v) >= 6)]
    return [_surface(claim, w) for w in missing], len(specific)


# --- a reviewer's words as an order -----------------------------------------------------------------------

_POLITE = re.compile(r"^(?:please|pls|kindly|i think|i'd like you to|i would like you to|you should|you need to|"
                     r"you must|can you|could you|make sure to|make sure you|remember to)\s+", re.IGNORECASE)
_TOO = re.compile(r"^(?:this|that|the|your)\s+(?P<thing>[\w\s'-]{1,40}?)\s+(?:is|are|was|were|feels|seems|looks|"
                  r"reads|sounds)\s+(?:way\s+|much\s+|a bit\s+|far\s+|a little\s+)?too\s+(?P<adj>[\w-]+)",
                  re.IGNORECASE)
_LACKS = re.compile(r"^(?:this|that|the|your)\s+(?P<thing>[\w\s'-]{1,40}?)\s+(?:is missing|lacks|has no|needs)\s+"
                    r"(?P<what>.+?)\.?$", re.IGNORECASE)


def as_order(comment: str) -> str:
    """The reviewer's words, turned into an order only where the shape is unmistakable ("the intro is too
    salesy" -> "Do not make the intro too salesy."); anything else is kept as written."""
    out = []
    for s in sentences(comment):
        s = _POLITE.sub("", s.strip())
        m = _TOO.match(s)
        if m:
            s = f"Do not make the {m['thing'].strip()} too {m['adj']}"
        elif (m := _LACKS.match(s)):
            s = f"Include {m['what'].strip()} in the {m['thing'].strip()}"
        if s:
            out.append(with_period(s[0].upper() + s[1:]))
    return " ".join(out)
