"""The store's fast paths give exactly what the general paths give (issue 17). Behaviour and counts only:
how fast is for benchmarks/store_scale.py."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentuse.core import learning, store_format
from agentuse.core.learning import Learning, State, opening_end, opening_end_by_regex, title_said_once
from agentuse.core.store_format import StoreDoc, StoreFormatError, parse, render

from reliability.test_bad_input import STORE_TEXT
from test_store_format import docs

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


# ---------------------------------------------------------------- render reuses what parse read


def _fresh(doc: StoreDoc) -> StoreDoc:
    """The same records in a plain list: rendered entry by entry, nothing reused."""
    return StoreDoc.model_construct(name=doc.name, agent=doc.agent, learnings=list(doc.learnings))


_ESCAPED = st.sampled_from(["<!-- x -->", "a -- b", "# heading", "  ### deep", "\\#", "<\\!--", "a | b", "é"])
_MUTATIONS = st.lists(st.tuples(st.sampled_from(["count", "title", "confidence", "zero", "extra", "drop",
                                                 "swap", "copy", "same", "body"]),
                                st.integers(0, 20), _ESCAPED), max_size=5)


def _mutate(doc: StoreDoc, steps) -> None:
    rules = doc.learnings
    for kind, pick, text in steps:
        if not rules:
            return
        rule = rules[pick % len(rules)]
        if kind == "count":
            rule.injected += 1
        elif kind == "title":
            rule.title = f"{rule.title} {text}"
        elif kind == "body":
            rule.body = f"{text}\n{rule.body}"
        elif kind == "confidence":
            rule.confidence = -0.0 if rule.confidence == 0.0 else 0.0
        elif kind == "zero":  # an equal value that renders differently
            if rule.confidence == 0.0:
                rule.confidence = -0.0
        elif kind == "extra":
            rule.extra.append(f"x-new:{pick}")  # in place: no assignment marks it
        elif kind == "drop":
            rules.remove(rule)
        elif kind == "swap":
            rules.reverse()
        elif kind == "copy":
            rules[pick % len(rules)] = rule.model_copy()
        elif kind == "same":
            rule.injected = rule.injected  # an assignment that changes nothing


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs(), _MUTATIONS)
def test_a_parsed_doc_renders_as_a_fresh_one_after_any_change(doc, steps):
    parsed = parse(render(doc))
    _mutate(parsed, steps)
    assert render(parsed) == render(_fresh(parsed))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(STORE_TEXT, _MUTATIONS)
def test_hand_written_text_renders_as_a_fresh_doc(text, steps):
    # Near-structure with odd spacing, escapes, blank lines and defaults written out: reused only if exact.
    try:
        parsed = parse(text)
    except StoreFormatError:
        return
    assert render(parsed) == render(_fresh(parsed))
    _mutate(parsed, steps)
    assert render(parsed) == render(_fresh(parsed))


_META = "<!-- id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27 -->"


# Each entry differs in one way from what render writes (or is exactly it): reused only when exact.
@pytest.mark.parametrize("entry", [
    f"### [tip] T\n{_META}\nbody",
    f"### [tip] T\n{_META}",
    f"### [tip] T\n{_META}\n\n",
    f"### [tip] T\n{_META}\nbody\n\n",
    f"### [tip] T\n{_META}\nbody  ",
    f"### [tip] T \n{_META}\nbody",
    f"### [tip]  T\n{_META}\nbody",
    f"### [tip]\n{_META}\nbody",
    f"### [tip] \n{_META}\nbody",
    f"### [tip] T -- U\n{_META}\nbody",
    f"### [tip] T --> U\n{_META}\nbody",
    f"### [tip] T <!-- U\n{_META}\nbody",
    f"### [tip] T\n{_META}\n<!-- why: w -->",
    f"### [tip] T\n{_META}\n<!-- why: w -->\n",
    f"### [tip] T\n{_META}\n<!-- why:  w -->",
    f"### [tip] T\n{_META}\n<!-- why: w -- x -->",
    f"### [tip] T\n{_META}\n<!-- why: w -->\n<!-- evidence: e -->\nbody",
    f"### [tip] T\n{_META}\n<!-- evidence: e -->\n<!-- why: w -->\nbody",
    f"### [tip] T\n{_META}\n\\# b",
    f"### [tip] T\n{_META}\n# b",
    f"### [tip] T\n{_META}\nx -- y",
    f"### [tip] T\n{_META}\nx <\\!-- y",
    f"### [tip] T\n{_META}\n## Retired",
    "### [tip] T\n<!-- id:a1b2c3d4 | confidence:0.50 | injected:3 | src:auto | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | confidence:0.5 | injected:3 | src:auto | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:03 | src:auto | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:0 | src:auto | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:3 | src:auto | re:0 | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:3 | src:auto | re:01 | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:3 | src:auto | ok:0 | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:3 | src:auto | ok:2 | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:3 | src:auto | state:active | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:3 | src:auto | state:graduated | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:3 | src:auto | sig:a-->b | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- id:a1b2c3d4 | injected:3 | src:auto | sig:a--b | 2026-01-27 -->\nb",
    "### [tip] T\n<!-- injected:3 | src:auto | 2026-01-27 -->\nb",
    f"### [tip] Keep it short\n{_META}\nKeep it short. Then go.",
])
@pytest.mark.parametrize("around", [("", ""), ("", "\n### [tip] N\n<!-- id:b1b2c3d4 | 2026-01-01 -->\n"),
                                    ("### [warning] P\n<!-- id:c1b2c3d4 | injected:0 | src:auto | 2026-01-02 -->\n\n", "")])
@pytest.mark.parametrize("final", ["", "\n", "\n\n"])
def test_entry_edges_render_as_a_fresh_doc(entry, around, final):
    before, after = around
    text = f"# Learnings for a\n\n{before}{entry}{after}{final}"
    parsed = parse(text)
    assert render(parsed) == render(_fresh(parsed))
    parsed.learnings[0].injected += 1
    assert render(parsed) == render(_fresh(parsed))


def test_rendering_a_parsed_store_renders_only_the_records_that_changed(monkeypatch):
    rules = [Learning(id=f"{i:08x}", title=f"Rule {i}", body=f"Say it {i} times.\nThen stop.", date="2026-01-02",
                      confidence=0.9, injected=i, ih="9c4d2ba17e08", sess="01K8", why="w" if i % 3 else None,
                      state=State.quarantined if i % 7 == 6 else State.active) for i in range(60)]
    doc = StoreDoc(name="a", agent="a.agentuse", learnings=rules)
    text = render(doc)
    parsed = parse(text)
    calls = []
    real = store_format.render_entry
    monkeypatch.setattr(store_format, "render_entry", lambda rule: calls.append(rule.id) or real(rule))
    assert render(parsed) == text and calls == []
    parsed.learnings[3].injected += 1
    parsed.learnings[40].ok += 1
    assert render(parsed) == render(_fresh(parsed)) and calls[:2] == [parsed.learnings[3].id, parsed.learnings[40].id]


def _one(text_body: str = "body") -> StoreDoc:
    return parse(f"# Learnings for a\n\n### [tip] T\n<!-- id:a1b2c3d4 | confidence:0.00 | injected:3 | src:auto"
                 f" | 2026-01-27 -->\n{text_body}\n\n### [tip] U\n<!-- id:b1b2c3d4 | injected:1 | src:auto | 2026-01-27 -->\n")


def test_an_unknown_token_added_in_place_is_written():
    doc = _one()
    doc.learnings[0].extra.append("x-new:1")  # no assignment: the record's list grew
    assert "x-new:1 | 2026-01-27" in render(doc) == render(_fresh(doc))


def test_a_negative_zero_confidence_is_written_as_such():
    doc = _one()
    doc.learnings[0].confidence = -0.0  # equal to the 0.0 read, written differently
    assert "confidence:-0.00" in render(doc) == render(_fresh(doc))


def test_reordered_removed_and_replaced_records_render_as_a_fresh_doc():
    doc = _one()
    doc.learnings.reverse()
    assert render(doc) == render(_fresh(doc))
    doc.learnings[0] = doc.learnings[0].model_copy(update={"title": "V"})
    assert render(doc) == render(_fresh(doc))
    del doc.learnings[0]
    assert render(doc) == render(_fresh(doc))
