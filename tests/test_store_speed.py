"""The store's fast paths give exactly what the general paths give (issue 17). Behaviour and counts only:
how fast is for benchmarks/store_scale.py."""

from __future__ import annotations

import datetime
import pickle
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentuse.core import learning, store, store_write
from agentuse.core.inject import record_injection
from agentuse.core.ranking import rank
from agentuse.core.learning import (
    Learning,
    Source,
    State,
    fields_set_slot,
    opening_end,
    opening_end_by_regex,
    title_said_once,
)
from agentuse.core.store_meta import STATED_AS_WRITTEN
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


@settings(max_examples=500)
@given(st.text(alphabet=_TRICKY + "\x00\u200b\u2028\x1c\x85\u3000 ", max_size=20))
def test_one_line_is_whitespace_runs_made_one_space(text):
    assert learning.one_line(text) == " ".join(text.split())


def _said_once_by_regex(title: str, body: str) -> tuple[str, str]:
    """title_said_once as first written: a pattern per title (the reference the fast one must equal)."""
    text = body.strip()
    cut = title.endswith("…")
    head = title.removesuffix("…").rstrip() if cut else title.rstrip(" .!?:;,")
    opening = re.match(r"\s+".join(map(re.escape, head.split())) + ("" if cut else r"(?!\w)"), text,
                       flags=re.IGNORECASE) if head and text else None
    if opening is None:
        return title, body
    end = learning._SENTENCE_END.search(text, opening.end())
    stop = len(text) if end is None else end.start() if end.group() == "\n" else end.end()
    heading = " ".join(text[:stop].split())
    return (heading if title.endswith(".") else heading.removesuffix(".")), text[stop:].strip()


@settings(max_examples=500)
@given(st.text(alphabet=_TRICKY, max_size=16), st.text(alphabet=_TRICKY, max_size=30), st.booleans())
def test_title_said_once_is_what_the_pattern_made(title, rest, opens):
    body = " ".join(title.split()) + rest if opens else rest
    assert (learning._title_opening_body(title, body) or (title, body)) == _said_once_by_regex(title, body)


@settings(max_examples=800)
@given(st.text(alphabet=_TRICKY, max_size=16), st.text(alphabet=_TRICKY, max_size=40), st.booleans(), st.integers(0, 3))
def test_title_said_once_changes_nothing_the_second_time_and_loses_no_word(title, rest, opens, repeats):
    """Every read of a record applies it again: a body opening with its title twice over once lost a sentence
    per read (found by review, in a note that repeated its first sentence)."""
    said = " ".join(title.split())
    body = (said + ". ") * repeats + (said + rest if opens else rest)
    once = title_said_once(title, body)
    assert title_said_once(*once) == once
    if once != (title, body):  # the body's own words, moved: none lost, none added
        assert re.sub(r"\W", "", once[0] + once[1]) == re.sub(r"\W", "", body)


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
    real = store_write.render_entry
    monkeypatch.setattr(store_write, "render_entry", lambda rule: calls.append(rule.id) or real(rule))
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


def test_parsed_records_share_one_stand_in_for_their_fields_set_until_it_is_asked_for():
    # A set of a dozen field names per record was twice the entry's text; one stand-in serves them all.
    first, second = _one().learnings
    assert fields_set_slot(first) is fields_set_slot(second) is STATED_AS_WRITTEN
    assert first.model_fields_set == {"id", "category", "title", "body", "extra", "date", "confidence", "injected",
                                      "src"}
    assert type(fields_set_slot(first)) is set and fields_set_slot(second) is STATED_AS_WRITTEN
    second.ok = 1  # a validated assignment asks for the set, so the record no longer passes for as read
    assert "ok" in second.model_fields_set and "ok" not in first.model_fields_set
    copied, thawed = _one().learnings[1].model_copy(), pickle.loads(pickle.dumps(_one().learnings[1]))
    assert copied.model_fields_set == thawed.model_fields_set == {"id", "category", "title", "body", "extra", "date",
                                                                  "injected", "src"}
    assert Learning(id="a1b2c3d4", title="T", date="2026-01-01").model_fields_set == {"id", "title", "date"}


def test_reordered_removed_and_replaced_records_render_as_a_fresh_doc():
    doc = _one()
    doc.learnings.reverse()
    assert render(doc) == render(_fresh(doc))
    doc.learnings[0] = doc.learnings[0].model_copy(update={"title": "V"})
    assert render(doc) == render(_fresh(doc))
    del doc.learnings[0]
    assert render(doc) == render(_fresh(doc))


# ---------------------------------------------------------------- counting an injection in place


def _agent_at(folder: Path) -> store.AgentLocation:
    path = folder / "write.agentuse"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nmodel: anthropic:claude-sonnet-5\n---\n\n# Blog Writer\n")
    return store.locate(path)


@pytest.fixture
def two(tmp_path):
    """Two agents' stores: one counted in place, one in a transaction."""
    return _agent_at(tmp_path / "a"), _agent_at(tmp_path / "b")


# Ways a store's text can differ from render's own while still parsing: counted in place only if not.
_EDITS = [
    lambda t: t,
    lambda t: t.replace("\n\n", "\n\n\n", 1),
    lambda t: t.replace("\n\n### ", "\n### ", 1),
    lambda t: t.rstrip("\n"),
    lambda t: t + "\n",
    lambda t: t.replace("\n", "\n\n", 1),
    lambda t: t.replace("<!-- id:", "<!-- ", 1),
    lambda t: t.replace(" | injected:", " | applied:", 1),
    lambda t: t + t[t.find("\n### ") :] if "\n### " in t else t,  # every id twice
    lambda t: t.replace("\n### ", "\n### [tip] R\n<!-- id:rrrrrrrr | state:retired | 2026-01-01 -->\n\n### ", 1),
    lambda t: t.replace("# Learnings for", "# Learnings for  ", 1),
    lambda t: " \n### ".join(t.rsplit("\n\n### ", 1)),  # a space where the blank line was
    lambda t: t.replace("# Learnings for write", "# Learnings for wr\tite", 1),  # written back with a space
]


@st.composite
def _plain_docs(draw) -> StoreDoc:
    """Stores as agentuse writes them, every entry render's own (docs() mostly has some that are not)."""
    numbers = draw(st.lists(st.integers(0, 10**6), unique=True, max_size=6))
    # The header the store's location gives it (a file without one is given it on its next write).
    return StoreDoc(name="write", agent=draw(st.sampled_from(["write.agentuse", "write.agentuse", None])),
                    learnings=[Learning(id=f"{n:08x}", title=draw(st.sampled_from(["", "T", "Keep it"])),
                                        body=draw(st.sampled_from(["", "Do it.", "Keep it short.\nThen go."])),
                                        date="2026-01-02", injected=draw(st.sampled_from([0, 8, 9, 98, 99, 100])),
                                        ok=draw(st.integers(0, 2)),
                                        why=draw(st.sampled_from([None, "w"]))) for n in numbers])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(_plain_docs() | _plain_docs() | docs(), st.sampled_from(_EDITS), st.lists(st.integers(0, 9), max_size=6),
       st.sampled_from([(), ("zzzzzzzz",)]))
def test_counting_in_place_writes_what_a_transaction_writes(two, doc, edit, picks, unknown):
    fast, slow = two
    for location in two:
        location.store_path.unlink(missing_ok=True)
        location.store_path.parent.mkdir(parents=True, exist_ok=True)
        # As written by anyone: the text need not be render's own (then nothing is counted in place).
        location.store_path.write_text(edit(render(doc)), encoding="utf-8")
    store.load(fast)  # what a run does first
    # Three counts in a row (a run's rounds): each after the last one's write, lines that grew included.
    for round_picks in (picks, picks[::-1], picks[1:]):
        ids = [doc.learnings[i % len(doc.learnings)].id for i in round_picks] if doc.learnings else []
        ids += list(unknown)
        record_injection(fast, ids)
        store._VERBATIM.pop(slow.store_path, None)
        if ids:  # as record_injection did before it could count in place
            with store.transaction(slow) as counted:
                for rule in counted.learnings:
                    if rule.id in set(ids):
                        rule.injected += 1
        assert fast.store_path.read_bytes() == slow.store_path.read_bytes()


def test_a_run_counts_in_place_what_it_read_and_only_those_lines_change(two, monkeypatch):
    location, _ = two
    rules = [Learning(id=f"{i:08x}", title=f"Rule {i}", body="Do it.", date="2026-01-02", injected=i,
                      why="because" if i == 2 else None) for i in range(5)]
    store.save(location, StoreDoc(name="write", agent="write.agentuse", learnings=rules))
    before = location.store_path.read_text(encoding="utf-8").split("\n")
    store.load(location)
    monkeypatch.setattr(store, "transaction", None)  # would fail if called
    record_injection(location, ["00000001", "00000002", "00000002"])
    after = location.store_path.read_text(encoding="utf-8").split("\n")
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert changed == [("<!-- id:00000001 | injected:1 | src:auto | 2026-01-02 -->",
                        "<!-- id:00000001 | injected:2 | src:auto | 2026-01-02 -->"),
                       ("<!-- id:00000002 | injected:2 | src:auto | 2026-01-02 -->",
                        "<!-- id:00000002 | injected:3 | src:auto | 2026-01-02 -->")]
    record_injection(location, ["00000001"])  # what it wrote is known too
    assert store.load(location).learnings[1].injected == 3


def test_a_store_changed_since_it_was_read_is_counted_in_a_transaction(two):
    location, _ = two
    store.save(location, StoreDoc(name="write", learnings=[Learning(id="a1b2c3d4", title="T", date="2026-01-02")]))
    store.load(location)
    # Edited by hand since: applied: is the old name, rewritten as injected: by a transaction.
    location.store_path.write_text("# Learnings for write\n\n### [tip] T\n<!-- id:a1b2c3d4 | applied:4 | "
                                   "2026-01-02 -->\n", encoding="utf-8")
    record_injection(location, ["a1b2c3d4"])
    assert "injected:5 | src:auto" in location.store_path.read_text(encoding="utf-8")


def test_a_store_whose_bytes_changed_but_not_its_text_is_counted_in_a_transaction(two, monkeypatch):
    # The count in place compares the file's bytes with those it read, not their decoding: a BOM an
    # editor added reads as the same text, and is dropped by a transaction's write as by any other save.
    location, _ = two
    store.save(location, StoreDoc(name="write", learnings=[Learning(id="a1b2c3d4", title="T", date="2026-01-02")]))
    text = location.store_path.read_text(encoding="utf-8")
    store.load(location)
    location.store_path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert store.load(location).learnings[0].injected == 0  # (now remembered with the BOM)
    location.store_path.write_bytes(text.encode("utf-8"))
    monkeypatch.setattr(store, "bump", lambda *a: pytest.fail("counted in place"))
    record_injection(location, ["a1b2c3d4"])
    assert location.store_path.read_bytes().startswith(b"# Learnings for write\n")
    assert store.load(location).learnings[0].injected == 1


@pytest.mark.parametrize("header", ["# Learnings for a ", "# Learnings for a \n", "# Learnings for  a\n", "# Learnings for a\n\n",
                                    "# Learnings for a\n<!--  agent: x -->\n", "\n# Learnings for a\n"])
def test_a_header_render_would_write_otherwise_is_rewritten(header):
    text = f"{header}\n### [tip] T\n{_META}\nbody\n"
    parsed = parse(text)
    assert render(parsed) == render(_fresh(parsed)) != text


# ---------------------------------------------------------------- ranking


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(Source)), st.sampled_from(["2026-01-02", "2025-12-31", "0001-01-01",
                                                                          "9999-12-31", "2026-02-30", "x"]),
                          st.sampled_from([State.active, State.active, State.quarantined])), max_size=30))
def test_ranking_is_the_order_of_source_date_and_later_position(shapes):
    rules = [Learning.model_construct(id=f"{i:08x}", src=src, date=day, state=state, title="t")
             for i, (src, day, state) in enumerate(shapes)]

    def day_of(text):
        try:
            return datetime.date.fromisoformat(text).toordinal()
        except ValueError:
            return 0  # unreadable ranks as oldest

    rank_of = {Source.manual: 0, Source.approval: 1, Source.auto: 2}
    expected = sorted((rule for rule in rules if rule.state is State.active),
                      key=lambda rule: (rank_of[rule.src], -day_of(rule.date), -rules.index(rule)))
    assert rank(rules) == expected


def test_a_process_keeps_the_bytes_of_its_most_recent_stores_only(tmp_path):
    store._VERBATIM.clear()
    locations = [_agent_at(tmp_path / f"p{i}") for i in range(store._VERBATIM_KEPT + 1)]
    for location in locations:
        store.save(location, StoreDoc(name="write", agent="write.agentuse",
                                      learnings=[Learning(id="a1b2c3d4", title="T", date="2026-01-02")]))
        store.load(location)
    assert len(store._VERBATIM) == store._VERBATIM_KEPT
    assert locations[0].store_path not in store._VERBATIM and locations[-1].store_path in store._VERBATIM
    record_injection(locations[0], ["a1b2c3d4"])  # counted in a transaction, as before
    assert store.load(locations[0]).learnings[0].injected == 1
