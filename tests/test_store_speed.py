"""The store's fast paths give exactly what the general paths give (issue 17). Behaviour and counts only:
how fast is for benchmarks/store_scale.py."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agentuse.core import learning
from agentuse.core.learning import opening_end, opening_end_by_regex, title_said_once
from agentuse.core.store_format import parse

# Letters re's IGNORECASE pairs with a non-ASCII character (K and the Kelvin sign, s and the long s, i and
# the dotted/dotless i), other cases, word characters and whitespace of both kinds.
_TRICKY = "kKsSiIaA_1 \t\n.!?…" + "\u212a\u017f\u0130\u0131\u00e9\u00c9\u00df\u2003\u00a0\u0660"
_words = st.lists(st.text(alphabet=_TRICKY.replace(" ", "").replace("\t", "").replace("\n", "")
                          .replace("\u2003", "").replace("\u00a0", ""), min_size=1, max_size=4), max_size=4)


@settings(max_examples=400)
@given(_words, st.text(alphabet=_TRICKY, max_size=24), st.booleans())
def test_opening_match_is_the_regex_match(words, text, word_end):
    assert opening_end(words, text, word_end=word_end) == opening_end_by_regex(words, text, word_end=word_end)


@settings(max_examples=300)
@given(st.text(alphabet=_TRICKY, max_size=16), st.text(alphabet=_TRICKY, max_size=30))
def test_an_opening_taken_from_the_body_itself_is_found(title, rest):
    # Bodies that do open with their title, which random text rarely produces.
    words = title.split()
    text = " ".join(words) + rest
    assert opening_end(words, text, word_end=False) == opening_end_by_regex(words, text, word_end=False)
    title_said_once(title, text)  # and the whole function accepts it


def test_parsing_a_store_compiles_no_pattern_per_entry(monkeypatch):
    # A pattern built per title went through re's cache (512 entries), so a store with more distinct
    # titles than that compiled one per entry: most of a large store's parse.
    entries = "".join(f"\n### [tip] Keep draft {i}\n<!-- id:{i:08x} | injected:0 | src:auto | 2026-01-01 -->\n"
                      f"Keep draft {i} short. Then more.\n" for i in range(600))
    calls = []
    real_match, real_compile = re.match, re.compile
    monkeypatch.setattr(re, "match", lambda *a, **k: calls.append(a[0]) or real_match(*a, **k))
    monkeypatch.setattr(re, "compile", lambda *a, **k: calls.append(a[0]) or real_compile(*a, **k))
    doc = parse("# Learnings for a\n" + entries)
    assert calls == []
    assert [(rule.title, rule.body) for rule in doc.learnings[:2]] == [("Keep draft 0 short", "Then more."),
                                                                      ("Keep draft 1 short", "Then more.")]
    assert learning.re is re
