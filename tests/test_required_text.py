"""core/helper/required_text.py: a pattern skipped by its required text would have matched nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentuse.core.helper.phrases import PHRASES
from agentuse.core.helper.required_text import applies, required

DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize("pattern, needed", [
    (r"\bdon't\b", {"don't"}),
    (r"\bat most\b|\bup to\b", {"at most", "up to"}),
    (r"\b(?:no|not) more than\b", {" more than"}),  # the longest literal run every match holds
    (r"(?:a )?maximum of", {"maximum of"}),           # an optional part is not required
    (r"x*y+zz", {"zz"}),                               # y+ needs "y"; the longer run is more selective
    (r"\b(\w+)n't\b", {"n't"}),
    (r"\d+ days", {" days"}),
])
def test_what_a_pattern_needs(pattern, needed):
    assert required(re.compile(pattern)) == frozenset(needed)


@pytest.mark.parametrize("pattern", [
    r"(?i)never", r"\d+", r"(?:never|)", r"(?:a|b)?", r"[abc]+", r"(?=x)", r"a{0,3}",
])
def test_a_pattern_that_needs_no_literal_is_always_tried(pattern):
    assert required(re.compile(pattern)) is None
    assert applies(required(re.compile(pattern)), "")


def _texts() -> list[str]:
    texts = []
    for path in sorted(DATA.glob("rule_pairs*.jsonl")):
        if "frozen" in path.name:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            texts += [row["a"].lower(), row["b"].lower()]
    return texts


def test_no_phrase_pattern_that_is_skipped_would_have_matched():
    compiled = [re.compile(pattern) for pattern, _ in PHRASES]
    needs = [required(pattern) for pattern in compiled]
    skipped = 0
    for text in _texts():
        for pattern, needed in zip(compiled, needs):
            if not applies(needed, text):
                skipped += 1
                assert pattern.search(text) is None, (pattern.pattern, text)
    assert skipped > 100_000  # the filter does skip: most patterns find nothing in most rules


_WORDS = sorted({w for pattern, _ in PHRASES for w in re.findall(r"[a-z']+", pattern)} | {" ", "1", "10", "."})


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join))
def test_on_texts_made_of_the_patterns_own_words(text):
    for pattern, _ in PHRASES:
        compiled = re.compile(pattern)
        if not applies(required(compiled), text):
            assert compiled.search(text) is None, (pattern, text)


def test_the_phrase_tables_requirements_are_made_from_the_phrase_table_as_it_is():
    """phrase_required.py is derived data: remake it with `python -m agentuse.core.helper.required_text`."""
    from agentuse.core.helper.phrase_required import REQUIRED
    from agentuse.core.helper.required_text import table

    assert REQUIRED == table(pattern for pattern, _ in PHRASES)


def test_normalize_with_the_table_is_normalize_without_it():
    from agentuse.core.helper import wording

    def plain(text: str) -> str:
        for pattern, repl in PHRASES:
            text = re.sub(pattern, repl, text)
        return text

    for text in _texts()[:600]:
        assert wording._normalize(text) == plain(wording._normalize_without_phrases(text)), text
