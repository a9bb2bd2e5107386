"""How a rule's text is rewritten and cut before its words are read: Unicode and case folded, the phrases of
`phrases.py` applied (contractions, comparators, idioms, times of day), then sentences and clauses split.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from agentuse.core.helper.phrase_required import REQUIRED
from agentuse.core.helper.phrases import PHRASES
from agentuse.core.lazy_regex import LazyPattern, lazy

_NAMED_NUMBER = re.compile(r"\b([A-Z]{2,}|(?i:version|status|code|error|port|pep|rfc|step|chapter|section))[ -](\d+)\b")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")  # "1,200 words": one number, not a clause break


def _rewrite(source: str, repl: str) -> tuple[LazyPattern, str, str | None, tuple[str, ...] | None]:
    """A phrase rewrite with the text it cannot match without (phrase_required.py): most find nothing in
    a given rule, and a substring test is far cheaper than the search that would say so; a pattern is
    compiled the first time a text holds its required text."""
    if source in REQUIRED:
        needed = REQUIRED[source]
    else:  # phrases.py changed since the table was made (the tests say so): read this one here
        from agentuse.core.helper.required_text import table

        needed = table([source])[source]
    one, options = (needed[0], None) if needed is not None and len(needed) == 1 else (None, needed)
    return lazy(source), repl, one, options


_PHRASES = [_rewrite(pattern, repl) for pattern, repl in PHRASES]
# Runs of consecutive rewrites, each with every text one of them needs: a run none of whose texts a rule holds
# is passed over with one test (most are), instead of one per pattern. A pattern that needs nothing is a
# run of its own, always tried.
_RUN = 8


def _runs(rewrites: list) -> list[tuple[tuple[str, ...] | None, list]]:
    runs: list[tuple[tuple[str, ...] | None, list]] = []
    for rewrite in rewrites:
        _pattern, _repl, one, options = rewrite
        needed = (one,) if one is not None else options
        if needed is None:
            runs.append((None, [rewrite]))
        elif runs and runs[-1][0] is not None and len(runs[-1][1]) < _RUN:
            runs[-1] = (runs[-1][0] + tuple(needed), runs[-1][1] + [rewrite])
        else:
            runs.append((tuple(needed), [rewrite]))
    return runs


_PHRASE_RUNS = _runs(_PHRASES)
# Rule texts are normalized again and again (every pair a tidy-up or a vet compares); traces are long and
# read once, so only texts up to this size are remembered.
_REMEMBERED_CHARS = 2_000


def normalize(text: str) -> str:
    return _remembered(text) if len(text) <= _REMEMBERED_CHARS else _normalize(text)


@lru_cache(maxsize=4096)
def _remembered(text: str) -> str:
    return _normalize(text)


def _normalize_without_phrases(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _NAMED_NUMBER.sub(r"\1_\2", text)
    text = _THOUSANDS.sub("", text)
    text = text.lower()
    return text.replace("’", "'").replace("“", '"').replace("”", '"').replace("–", "-")


def _normalize(text: str) -> str:
    text = _normalize_without_phrases(text)
    for needed, rewrites in _PHRASE_RUNS:
        if needed is not None and not any(map(text.__contains__, needed)):
            continue  # no pattern of the run can match, and so the text stays as it is through the run
        for pattern, repl, one, options in rewrites:
            if one is not None:
                if one not in text:
                    continue
            elif options is not None and not any(map(text.__contains__, options)):  # no generator per phrase
                continue
            text = pattern.sub(repl, text)
    return text


_SENTENCE_BREAK = re.compile(r"[.!?\n]+(?:\s|$)")
# A colon inside a token (":latest", "image:tag") is part of it; one before a space ends a clause.
_CLAUSE_BREAK = re.compile(r"[,;()]|:(?=\s|$)|\s-\s|\u2014")


def split_sentences(norm: str) -> list[str]:
    """A normalized text's sentences (`normalize` first)."""
    return _SENTENCE_BREAK.split(norm)


def split_clauses(sentence: str) -> list[str]:
    """A sentence's clauses: commas, semicolons, colons, brackets and dashes end one."""
    return _CLAUSE_BREAK.split(sentence)
