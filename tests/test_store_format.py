"""The learnings file format (spec "Storage Format"): parse, render, escaping, errors."""

from __future__ import annotations

import datetime
import pickle
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentuse.core.learning import Category, Channel, Learning, Source, State
from agentuse.core.store_format import (
    StoreDoc,
    StoreFormatError,
    escape_inline,
    new_id,
    parse,
    render,
    unescape_inline,
)

SPEC_EXAMPLE = Path(__file__).parent / "data" / "spec_storage_example.learnings.md"


def _rule(**fields) -> Learning:
    base = {"id": "a1b2c3d4", "title": "Keep intros factual", "date": "2026-01-27"}
    return Learning(**{**base, **fields})


# ---------------------------------------------------------------- the spec's own example


def test_spec_example_parses_into_its_four_entries():
    doc = parse(SPEC_EXAMPLE.read_text(encoding="utf-8"), filename="spec.md")
    assert doc.name == "blog-writer"
    assert doc.agent == "blog-writer.agentuse"
    assert [rule.id for rule in doc.learnings] == ["a1b2c3d4", "7f3a91cd", "i9j0k1l2", "m3n4o5p6"]

    tip, fix, cite, reuse = doc.learnings
    assert (tip.category, tip.title) == (Category.tip, "Use specific examples over generic advice")
    assert (tip.confidence, tip.injected, tip.src, tip.ch) == (0.92, 3, Source.auto, Channel.custom)
    assert (tip.ih, tip.sess, tip.date, tip.state) == ("9c4d2ba17e08", "01K8Z...", "2026-01-27", State.active)
    assert tip.body == ('When writing productivity tips, include concrete scenarios\n'
                        'like "checking emails before coffee" rather than abstract advice.')
    assert tip.why is None and tip.evidence is None and tip.extra == []

    assert (fix.category, fix.title) == (Category.error_fix, "browser.uploadFile: files.length remained #")
    assert (fix.confidence, fix.injected, fix.ch) == (1.0, 1, Channel.tool_errors)
    assert (fix.tool, fix.sig) == ("browser.uploadFile", "files.length remained #")
    assert fix.evidence == 'failed: {"path":"./shot.png"} → succeeded: {"path":"/Users/me/shot.png"}'
    assert fix.body.endswith('call shape that succeeded: {"path":"/Users/me/shot.png"}')

    assert (cite.src, cite.ch, cite.ok, cite.re, cite.state) == (Source.manual, Channel.corrections, 4, 0,
                                                                   State.graduated)
    assert cite.body == "Always include source links before publishing."

    assert (reuse.state, reuse.confidence) == (State.quarantined, 0.85)
    assert reuse.why == 'contradicts the contract: "Every invocation creates one new run item"'
    assert reuse.body == "On a same-day re-invocation, reuse the run item the previous invocation created."


def test_spec_example_round_trips_byte_for_byte():
    text = SPEC_EXAMPLE.read_text(encoding="utf-8")
    assert render(parse(text)) == text


def test_spec_example_file_is_the_spec_text_verbatim():
    spec = Path("/work/shared/spec/learning.md")
    if not spec.exists():
        pytest.skip("the shared spec is not available here")
    assert SPEC_EXAMPLE.read_text(encoding="utf-8") in spec.read_text(encoding="utf-8")


# ---------------------------------------------------------------- reading older and hand-edited files


def test_minimal_older_file_loads_and_gets_a_stable_id():
    text = "# Learnings for old\n\n### [warning] Avoid vague intros\n<!-- 2025-03-01 -->\nOpen with a fact.\n"
    doc = parse(text, rng=random.Random(7))
    (rule,) = doc.learnings
    assert re.fullmatch(r"[0-9a-f]{8}", rule.id)
    assert (rule.category, rule.src, rule.injected, rule.confidence, rule.ch, rule.ih) == (
        Category.warning, Source.auto, 0, None, None, None)
    assert (rule.title, rule.body, rule.date) == ("Avoid vague intros", "Open with a fact.", "2025-03-01")
    saved = render(doc)
    assert f"<!-- id:{rule.id} | injected:0 | src:auto | 2025-03-01 -->" in saved
    assert parse(saved).learnings[0].id == rule.id  # stable once saved
    assert render(parse(saved)) == saved


def test_an_entry_without_an_id_gets_the_same_id_on_every_read_of_the_same_file():
    # Read-only views (the list, --json, the serve tab) never save, so an id drawn afresh per read would
    # address nothing: `--json` must be agent-operable, and the serve tab discards by id.
    text = "# Learnings for old\n\n### [warning] Avoid vague intros\n<!-- 2025-03-01 -->\nOpen with a fact.\n"
    twice = "### [tip] T\n<!-- id:abcd1234 | 2026-01-01 -->\n"
    for sample in (text, twice + "\n" + twice):
        assert [r.id for r in parse(sample).learnings] == [r.id for r in parse(sample).learnings]


def test_file_without_header_loads_with_an_empty_name():
    doc = parse("### [tip] T\n<!-- id:abcd1234 | 2026-01-01 -->\nB\n")
    assert doc.name == "" and doc.agent is None and doc.learnings[0].body == "B"


def test_empty_text_is_an_empty_doc():
    assert parse("") == StoreDoc(name="", agent=None, learnings=[])


def test_applied_is_read_as_injected_and_written_back_as_injected():
    doc = parse("# Learnings for a\n\n### [tip] T\n<!-- id:abcd1234 | applied:7 | 2026-01-01 -->\nB\n")
    assert doc.learnings[0].injected == 7
    text = render(doc)
    assert "injected:7" in text and "applied" not in text


def test_injected_wins_over_applied_in_either_order():
    for meta in ("id:abcd1234 | applied:7 | injected:2 | 2026-01-01", "id:abcd1234 | injected:2 | applied:7 | 2026-01-01"):
        doc = parse(f"### [tip] T\n<!-- {meta} -->\n")
        assert doc.learnings[0].injected == 2
        assert "applied" not in render(doc)


def test_tokens_read_by_key_in_any_order_and_written_in_spec_order():
    meta = ("2026-01-27 | state:quarantined | ok:4 | re:1 | sig:x | tool:t | sess:s | ih:9c4d2ba17e08 "
            "| ch:custom | src:approval | injected:3 | confidence:0.5 | id:a1b2c3d4")
    rule = parse(f"### [tip] T\n<!-- {meta} -->\n").learnings[0]
    assert (rule.id, rule.confidence, rule.injected, rule.src, rule.ch) == (
        "a1b2c3d4", 0.5, 3, Source.approval, Channel.custom)
    assert (rule.ih, rule.sess, rule.tool, rule.sig, rule.re, rule.ok, rule.state) == (
        "9c4d2ba17e08", "s", "t", "x", 1, 4, State.quarantined)
    assert render(StoreDoc(name="n", learnings=[rule])).split("\n")[3] == (
        "<!-- id:a1b2c3d4 | confidence:0.50 | injected:3 | src:approval | ch:custom | ih:9c4d2ba17e08 "
        "| sess:s | tool:t | sig:x | re:1 | ok:4 | state:quarantined | 2026-01-27 -->")


def test_defaults_are_omitted_and_confidence_has_two_decimals():
    assert render(StoreDoc(name="n", learnings=[_rule()])).split("\n")[3] == (
        "<!-- id:a1b2c3d4 | injected:0 | src:auto | 2026-01-27 -->")
    assert "confidence:1.00" in render(StoreDoc(name="n", learnings=[_rule(confidence=1)]))
    assert "confidence:0.50" in render(StoreDoc(name="n", learnings=[_rule(confidence=0.5)]))


def test_unknown_tokens_are_kept_in_order_and_written_back_before_the_date():
    text = ("# Learnings for a\n\n### [tip] T\n"
            "<!-- id:abcd1234 | future:1 | injected:0 | bare | src:auto | x-note:a \\| b | 2026-01-01 -->\nB\n")
    doc = parse(text)
    assert doc.learnings[0].extra == ["future:1", "bare", "x-note:a | b"]
    assert "| future:1 | bare | x-note:a \\| b | 2026-01-01 -->" in render(doc)
    assert parse(render(doc)) == doc


def test_an_offline_vet_is_a_vet_token_and_a_file_without_one_reads_unchanged():
    """issue 16: `vet:offline` marks a rule only the offline evaluator vetted; absent, it is not provisional."""
    older = "# Learnings for a\n\n### [tip] T\n<!-- id:abcd1234 | injected:0 | src:manual | state:quarantined | 2026-01-01 -->\n"
    assert parse(older).learnings[0].vet is None and not parse(older).learnings[0].provisional
    assert render(parse(older)) == older
    marked = older.replace("state:quarantined | ", "state:quarantined | vet:offline | ")
    rule = parse(marked).learnings[0]
    assert rule.provisional and rule.vet == "offline" and rule.extra == []
    assert render(parse(marked)) == marked
    # Read by key in any order, as every token is; written back in place.
    shuffled = marked.replace("id:abcd1234 | ", "vet:offline | id:abcd1234 | ").replace("| vet:offline | 2026", "| 2026")
    assert parse(shuffled).learnings[0] == rule and render(parse(shuffled)) == marked


def test_iso_timestamps_are_read_as_their_day_and_plain_dates_pass_through():
    doc = parse("### [tip] T\n<!-- id:abcd1234 | 2024-01-15T09:30:00.000Z -->\n")
    assert doc.learnings[0].date == "2024-01-15"
    assert parse("### [tip] T\n<!-- id:abcd1234 | 2024-01-15 -->\n").learnings[0].date == "2024-01-15"


def test_retired_entries_are_skipped_and_dropped_on_the_next_write():
    text = ("# Learnings for a\n\n### [tip] Keep\n<!-- id:aaaa1111 | injected:0 | src:auto | 2026-01-01 -->\nK\n\n"
            "### [tip] Gone\n<!-- id:bbbb2222 | injected:0 | src:auto | state:retired | 2026-01-01 -->\nG\n")
    doc = parse(text)
    assert [rule.id for rule in doc.learnings] == ["aaaa1111"]
    assert "Gone" not in render(doc)
    archived = parse(text, include_retired=True)
    assert [rule.state for rule in archived.learnings] == [State.active, State.retired]
    assert render(archived) == text


def test_upstream_retired_section_is_read_and_dropped():
    text = ("# Learnings for a\n<!-- agent: a.agentuse -->\n\n"
            "### [tip] Keep\n<!-- id:aaaa1111 | confidence:0.90 | applied:2 | src:auto | 2026-01-01 -->\nK\n\n"
            "## Retired\n\n"
            "### [tip] Gone\n<!-- id:bbbb2222 | confidence:0.90 | applied:0 | src:auto | state:retired | 2026-01-01 -->\nG\n")
    doc = parse(text)
    assert [(rule.id, rule.body, rule.injected) for rule in doc.learnings] == [("aaaa1111", "K", 2)]
    assert "## Retired" not in render(doc)


def test_only_retired_entries_under_the_section_heading():
    text = "# Learnings for a\n\n## Retired\n\n### [tip] Gone\n<!-- id:bbbb2222 | state:retired | 2026-01-01 -->\nG\n"
    assert parse(text).learnings == []


def test_duplicate_ids_in_a_live_store_are_reassigned_but_kept_in_an_archive():
    entry = "### [tip] T\n<!-- id:abcd1234 | 2026-01-01 -->\n"
    live = parse(entry + "\n" + entry)
    assert live.learnings[0].id == "abcd1234" and live.learnings[1].id != "abcd1234"
    assert [rule.id for rule in parse(entry + "\n" + entry, include_retired=True).learnings] == ["abcd1234"] * 2


def test_hand_edited_raw_comment_and_subheading_in_a_body_are_text():
    text = "### [tip] T\n<!-- id:abcd1234 | 2026-01-01 -->\nline\n<!-- note to self -->\n#### Detail\n"
    rule = parse(text).learnings[0]
    assert rule.body == "line\n<!-- note to self -->\n#### Detail"
    saved = render(parse(text))
    assert "<\\!-- note to self --\\>" in saved and "\\#### Detail" in saved
    assert parse(saved).learnings[0].body == rule.body


def test_why_and_evidence_in_either_order():
    text = ("### [tip] T\n<!-- id:abcd1234 | 2026-01-01 -->\n<!-- evidence: e -->\n<!-- why: w -->\nbody\n")
    rule = parse(text).learnings[0]
    assert (rule.why, rule.evidence, rule.body) == ("w", "e", "body")


def test_trailing_whitespace_in_a_body_is_not_stored():
    assert _rule(body="text  \n\n").body == "text"  # a blank line ends the body in the file
    assert _rule(body="\nindented\n  code").body == "\nindented\n  code"


# ---------------------------------------------------------------- errors name the file and line


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("# Learnings for a\n\n### [note] T\n<!-- 2026-01-01 -->\n", 3, "unknown category 'note'"),
        ("### [Tip] T\n<!-- 2026-01-01 -->\n", 1, "unknown category"),
        ("### T\n<!-- 2026-01-01 -->\n", 1, "malformed entry heading"),
        ("### [tip] A\n<!-- 2026-01-01 -->\n\n### [tip] B\nbody\n", 4, "no metadata comment"),
        ("### [tip] A\n", 1, "no metadata comment"),
        ("### [tip] A\n<!-- id:abcd1234 | src:auto -->\n", 2, "no date"),
        ("### [tip] A\n<!-- 2026-01-01 | 2026-01-02 -->\n", 2, "two dates"),
        ("### [tip] A\n<!-- 2026-02-30 -->\n", 2, "not a real date"),
        ("### [tip] A\n<!-- confidence:high | 2026-01-01 -->\n", 2, "'confidence:'"),
        ("### [tip] A\n<!-- confidence:nan | 2026-01-01 -->\n", 2, "'confidence:'"),
        ("### [tip] A\n<!-- injected:-1 | 2026-01-01 -->\n", 2, "'injected:'"),
        ("### [tip] A\n<!-- ok:two | 2026-01-01 -->\n", 2, "'ok:'"),
        ("### [tip] A\n<!-- src:robot | 2026-01-01 -->\n", 2, "auto, approval, manual"),
        ("### [tip] A\n<!-- ch:slack | 2026-01-01 -->\n", 2, "'ch:'"),
        ("### [tip] A\n<!-- state:sleeping | 2026-01-01 -->\n", 2, "'state:'"),
        ("### [tip] A\n<!-- id:a | id:b | 2026-01-01 -->\n", 2, "appears twice"),
        ("### [tip] A\n<!-- 2026-01-01 -->\n<!-- why: a -->\n<!-- why: b -->\n", 4, "second 'why:'"),
        ("# Learnings for a\nstray text\n\n### [tip] A\n<!-- 2026-01-01 -->\n", 2, "before the first entry"),
        ("### [tip] A\n<!-- 2026-01-01 -->\nbody\n## Retired\nstray\n", 5, "after '## Retired'"),
    ],
)
def test_malformed_files_raise_with_file_and_line(text, line, words):
    with pytest.raises(StoreFormatError) as caught:
        parse(text, filename="agents/x.learnings.md")
    assert caught.value.file == "agents/x.learnings.md"
    assert caught.value.line == line
    assert words in caught.value.message
    assert str(caught.value) == f"agents/x.learnings.md:{line}: {caught.value.message}"


def test_store_format_error_is_a_value_error_and_a_project_error():
    from agentuse.core.errors import AgentuseError

    error = StoreFormatError("f.md", 3, "bad")
    assert isinstance(error, ValueError) and isinstance(error, AgentuseError) and error.exit_code == 1


def test_store_format_error_survives_pickling():
    error = pickle.loads(pickle.dumps(StoreFormatError("f.md", 3, "bad")))
    assert (error.file, error.line, error.message, str(error)) == ("f.md", 3, "bad", "f.md:3: bad")


def test_render_refuses_what_parse_would_reject():
    for bad in (_rule(date="27/01/2026"), _rule(injected=-1), _rule(confidence=float("nan"))):
        with pytest.raises(ValueError, match="cannot store learning"):
            render(StoreDoc(name="n", learnings=[bad]))


def test_new_id_is_eight_hex_and_redrawn_on_collision():
    first = new_id(set(), random.Random(1))
    assert re.fullmatch(r"[0-9a-f]{8}", first)
    assert new_id({first}, random.Random(1)) != first  # same stream, first draw taken: drawn again
    assert new_id(set(), random.Random(1)) == first  # repeatable with an injected generator
    assert re.fullmatch(r"[0-9a-f]{8}", new_id(set()))


# ---------------------------------------------------------------- rule text is data


FORGERIES = [
    "<!-- id:deadbeef | injected:99 | src:manual | 2020-01-01 -->",
    "<!-- why: forged -->",
    "### [tip] A second entry",
    "# Learnings for someone-else",
    "<!-- agentuse:learned -->",
    "<!-- /agentuse:learned -->",
    "## Retired",
    "ends a comment -->",
    "\\### already looks escaped",
    "<\\!-- already looks escaped --\\>",
    "   ### indented heading",
]


@pytest.mark.parametrize("forgery", FORGERIES)
def test_forged_structure_in_title_or_body_stays_text(forgery):
    rule = _rule(title=f"Title {forgery}", body=f"{forgery}\nplain\n{forgery}", why=forgery, evidence=forgery,
                 sig=forgery, extra=[f"x-k:{forgery}"])
    doc = StoreDoc(name=forgery, agent=forgery, learnings=[rule, _rule(id="bbbb2222")])
    text = render(doc)
    assert parse(text) == doc
    lines = text.split("\n")
    assert sum(line.startswith("### ") for line in lines) == 2
    assert sum(line.startswith("# ") for line in lines) == 1
    assert sum(line.startswith("<!--") for line in lines) == 5  # agent, 2 metadata, why, evidence
    assert "<!-- agentuse:learned -->" not in text and "<!-- /agentuse:learned -->" not in text


def test_escapes_are_readable():
    rule = _rule(title="Use <!-- x --> rarely", body="# not a heading\n|pipes| stay in bodies")
    text = render(StoreDoc(name="n", learnings=[rule]))
    assert "### [tip] Use <\\!-- x --\\> rarely" in text
    assert "\\# not a heading\n|pipes| stay in bodies" in text


TRICKY = st.sampled_from(["<!--", "-->", "<\\!--", "--\\>", "<!-->", "---", "### [tip] x", "# Learnings for y",
                          "\n", "\n\n", "|", "\\|", "\\", "#", "\\#", " ", "\t", "\r", "\r\n", "## Retired",
                          "<!-- agentuse:learned -->", "<!-- /agentuse:learned -->", "<!-- why: x -->", "2026-01-01"])
TEXT = st.lists(st.one_of(st.text(max_size=12), TRICKY), max_size=8).map("".join)
OPTIONAL = st.none() | TEXT
EXTRA = st.tuples(st.from_regex(r"x[a-z]{0,4}", fullmatch=True), TEXT).map(lambda kv: f"{kv[0]}:{' '.join(kv[1].split())}")


@st.composite
def learnings(draw, rule_id: str, states) -> Learning:
    return Learning(
        id=rule_id, category=draw(st.sampled_from(list(Category))), title=draw(TEXT), body=draw(TEXT),
        date=draw(st.dates(datetime.date(1990, 1, 1), datetime.date(2200, 12, 31))).isoformat(),
        confidence=draw(st.none() | st.integers(0, 100).map(lambda n: n / 100)),
        injected=draw(st.integers(0, 10**9)), src=draw(st.sampled_from(list(Source))),
        ch=draw(st.none() | st.sampled_from(list(Channel))), ih=draw(OPTIONAL), tool=draw(OPTIONAL),
        sig=draw(OPTIONAL), sess=draw(OPTIONAL), state=draw(st.sampled_from(states)),
        re=draw(st.integers(0, 50)), ok=draw(st.integers(0, 50)), why=draw(OPTIONAL), evidence=draw(OPTIONAL),
        vet=draw(OPTIONAL), extra=draw(st.lists(EXTRA, max_size=3)),
    )


@st.composite
def docs(draw, states=(State.active, State.graduated, State.quarantined)) -> StoreDoc:
    ids = draw(st.lists(st.from_regex(r"[0-9a-zA-Z]{8}", fullmatch=True), unique=True, max_size=6))
    return StoreDoc(name=draw(TEXT), agent=draw(OPTIONAL), learnings=[draw(learnings(i, list(states))) for i in ids])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs())
def test_any_doc_round_trips(doc):
    text = render(doc)
    back = parse(text)
    assert back == doc
    assert len(back.learnings) == len(doc.learnings)
    assert render(back) == text
    assert sum(line.startswith("### ") for line in text.split("\n")) == len(doc.learnings)


@settings(max_examples=100, deadline=None)
@given(docs(states=list(State)))
def test_any_archive_round_trips_with_retired_entries(doc):
    assert parse(render(doc), include_retired=True) == doc


@given(st.text())
def test_inline_escape_is_reversible_and_leaves_no_comment_delimiter(text):
    escaped = escape_inline(text)
    assert unescape_inline(escaped) == text
    assert "<!--" not in escaped and "-->" not in escaped


def test_a_note_repeating_its_first_words_keeps_every_sentence_however_often_it_is_read():
    """The title is said once, but not at the cost of a sentence: reading the store again used to move the
    second sentence into the title, dropping the first (found by review)."""
    rule = Learning(id="a1b2c3d4", title="Use British spelling", date="2026-01-27",
                    body="Use British spelling.\nUse British spelling in titles too.")
    text = render(StoreDoc(name="blog", learnings=[rule]))
    for _ in range(3):
        [read] = parse(text).learnings
        assert "Use British spelling in titles too." in read.text and read.text.count("Use British spelling") == 3
        text = render(StoreDoc(name="blog", learnings=[read]))
