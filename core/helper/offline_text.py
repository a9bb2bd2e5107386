"""Sentence-level work for the offline evaluator: what a text carries, merges that drop nothing,
grounding against a trace, and turning a reviewer's words into an order.

The rule throughout: when in doubt, keep the words. A merge keeps every sentence of every original
(only identical sentences are written once); the audit reports any sentence whose terms, values,
polarity or exceptions the rewrite no longer carries.
"""

from __future__ import annotations

import re

from agentuse.core.helper import lexicon as lx
from agentuse.core.helper.offline_judge import Label, judge
from agentuse.core.helper.overlap import similar_words
from agentuse.core.helper.similarity import Analysis, analyze, canon, normalize

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[[a-z-]+\]\s*)?")


def sentences(text: str) -> list[str]:
    """Sentences and bullet lines, markers stripped, empty ones dropped, order kept."""
    out = []
    for part in _SENTENCE.split(text):
        part = _BULLET.sub("", part).strip()
        if part and re.search(r"[A-Za-z0-9]", part):
            out.append(part)
    return out


def sentence_key(sentence: str) -> str:
    """Identity of a sentence for de-duplication: case, punctuation and spacing do not count."""
    return " ".join(re.findall(r"[a-z0-9_]+", sentence.lower()))


def with_period(sentence: str) -> str:
    sentence = sentence.strip()
    return sentence if sentence[-1:] in ".!?:" else sentence + "."


# --- what a text carries -----------------------------------------------------------------------------


def missing_from(original: str, carrier: str) -> list[str]:
    """What of `original` (one sentence) the `carrier` text no longer says: empty when it is carried.
    Carried means a carrier sentence is the same sentence or a duplicate of it, or the carrier as a whole
    holds every term of it with the same polarity, every value, and every exception."""
    key = sentence_key(original)
    carrier_sentences = sentences(carrier)
    if any(sentence_key(s) == key for s in carrier_sentences):
        return []
    a = analyze(original)
    if any(judge(a, analyze(s)).label is Label.duplicate for s in carrier_sentences):
        return []
    whole = analyze(carrier)
    missing: list[str] = []
    values = list(whole.values) + [t.word for t in whole.terms]
    for value in a.values:
        if value not in values and value.lstrip("<>=") not in {v.lstrip("<>=") for v in values}:
            missing.append(f"the value {value.lstrip('<>=')}")
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


def _surface(text: str, term: str) -> str:
    """The word as the author wrote it, for messages ("publishing", not the stem "publish")."""
    for token in lx.WORD_RE.findall(normalize(text)):
        if canon(token) == term:
            return token
    return term


# --- merging -------------------------------------------------------------------------------------------


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
    """For the permanent block: sentences in order, leaving out one that an earlier kept sentence
    duplicates (same meaning by the strict duplicate test) or repeats word for word."""
    kept: list[str] = []
    for text in texts:
        for s in sentences(text):
            a = analyze(s)
            if any(sentence_key(k) == sentence_key(s) or judge(a, analyze(k)).label is Label.duplicate
                   for k in kept):
                continue
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
