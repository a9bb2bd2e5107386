"""The fast entry reader's shortcuts (store_canonical, issue 17) give exactly the full reader's answer, and
the baseline's (4c0d947): the enum values spelled out in the pattern and told apart by one character, the
tokens after `sess:` read once per distinct text, the quick no of title_said_once told by the pattern, and
a body line starting with "#" after indentation. Each test also checks the shortcut is the one taken, so
a pattern that stopped taking such entries would not pass unseen."""

from __future__ import annotations

import enum
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentuse.core import store_canonical, store_read
from agentuse.core.learning import Category, Channel, Source, title_said_once
from agentuse.core.store_format import StoreDoc, StoreFormatError, parse, render

from test_store_format_baseline import _outcome, _same, old  # noqa: F401  (old: the baseline reader, a fixture)

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])
HEAD = "# Learnings for a\n\n"


def _same_as_the_full_reader(text: str) -> None:
    """`text` reads (or fails) the same with the fast reader as with the full reader alone."""
    fast = [_outcome(parse, text, **options) for options in ({}, {"include_retired": True})]
    taken = store_canonical.ENTRY
    store_canonical.ENTRY = re.compile("(?!)" + taken.pattern)  # the fast branch never matches
    try:
        full = [_outcome(parse, text, **options) for options in ({}, {"include_retired": True})]
    finally:
        store_canonical.ENTRY = taken
    assert fast == full


@pytest.fixture
def full_reader_calls(monkeypatch):
    """The offsets of the entries the full reader was handed (the fast reader took the others)."""
    calls: list[int] = []
    real = store_read._parse_entry
    monkeypatch.setattr(store_read, "_parse_entry", lambda *a: calls.append(a[1]) or real(*a))
    return calls


@pytest.mark.parametrize("kind", [Category, Source, Channel])
def test_an_enum_is_spelled_out_and_told_apart_by_one_character(kind):
    pattern, table = store_canonical._told_apart(kind)
    compiled = re.compile(pattern)
    for member in kind:
        match = compiled.fullmatch(member.value)
        assert match is not None and table[match[1]] is member
    assert len(table) == len(kind)


@given(st.text(alphabet="aceilnoprstuwgx-mhz", max_size=12))
def test_an_enum_pattern_takes_its_values_and_nothing_else(text):
    for kind in (Category, Source, Channel):
        assert (re.fullmatch(store_canonical._told_apart(kind)[0], text) is not None) == (
            text in {member.value for member in kind})


def test_an_enum_no_one_character_tells_apart_is_refused():
    Twins = enum.Enum("Twins", {"ab": "ab", "ba": "ba", "aa": "aa"})
    with pytest.raises(ValueError, match="Twins"):
        store_canonical._told_apart(Twins)


# The tokens after sess:, each as render writes it or one thing off: order, repeats, a default written
# out, a leading zero, spacing, an escape-worthy "--", an unknown state or key.
_LATER_TOKEN = st.sampled_from([
    "tool:browser.click", "tool:browser click", "tool:a--b", "tool:", "sig:files.length remained # (9)", "sig:x -- y",
    "sig:a  b", "re:1", "re:0", "re:01", "re:12", "ok:2", "ok:0", "ok:1000", "state:quarantined", "state:graduated",
    "state:retired", "state:active", "state:asleep", "vet:offline", "vet:off line", "x-new:1", "re:1 ", " ok:2"])
_LATER = st.lists(_LATER_TOKEN, max_size=4).map(lambda tokens: "".join(f" | {token}" for token in tokens))


def _entry(later: str, rule_id: str = "a1b2c3d4") -> str:
    return (f"### [tip] Keep intros short\n<!-- id:{rule_id} | confidence:0.92 | injected:3 | src:auto | "
            f"ch:custom | ih:9c4d2ba17e08 | sess:01K8ZQ{later} | 2026-01-27 -->\nSay it once.\n")


@FUZZ
@given(_LATER, _LATER)
def test_the_tokens_after_sess_read_and_fail_exactly_as_before(old, first, second):  # noqa: F811
    # Two entries, so the second reads the first's stretch from the table when they are the same text.
    text = HEAD + _entry(first) + "\n" + _entry(second, "b1b2c3d4")
    _same_as_the_full_reader(text)
    if "vet:" not in text:  # vet: came after the baseline, which keeps it as an unknown token
        _same(old, text)


@pytest.mark.parametrize("later", [" | ok:2", " | re:1 | ok:2", " | tool:browser click | sig:files.length # (9)",
                                   " | state:quarantined | vet:offline", " | re:3 | ok:1 | state:graduated"])
def test_tokens_after_sess_as_render_writes_them_are_read_by_the_fast_reader(old, full_reader_calls, later):  # noqa: F811
    text = HEAD + _entry(later) + "\n" + _entry(later, "b1b2c3d4")
    _same_as_the_full_reader(text)
    full_reader_calls.clear()
    doc = parse(text)
    assert full_reader_calls == [] and len(doc.learnings) == 2
    assert doc.learnings[0].model_dump() == {**doc.learnings[1].model_dump(), "id": "a1b2c3d4"}


def test_a_retired_entry_read_by_the_fast_reader_is_skipped_unless_an_archive(full_reader_calls):
    text = HEAD + _entry(" | state:retired") + "\n" + _entry("", "b1b2c3d4")
    assert [rule.id for rule in parse(text).learnings] == ["b1b2c3d4"]
    assert [rule.id for rule in parse(text, include_retired=True).learnings] == ["a1b2c3d4", "b1b2c3d4"]
    assert full_reader_calls == []


# Characters that test the quick no: ASCII letters and digits of either case, letters re's IGNORECASE
# pairs with a non-ASCII one (K and the Kelvin sign, s and the long s), other letters, punctuation.
_FIRST = st.sampled_from(list("aAkKsSzZ09._…é\u212a\u017f\u0130i\"'(-"))


@FUZZ
@given(_FIRST, _FIRST, st.sampled_from(["", "eep", "eep intros", "eep intros short."]),
       st.sampled_from(["", "eep intros short. Then more.", "ay it once.", "eep"]))
def test_the_quick_no_of_a_title_said_once_is_the_functions_own(old, title_first, body_first, title_rest,  # noqa: F811
                                                               body_rest):
    title, body = title_first + title_rest, body_first + body_rest
    text = HEAD + f"### [tip] {title}\n<!-- id:a1b2c3d4 | injected:0 | src:auto | 2026-01-27 -->\n{body}\n"
    _same(old, text)
    _same_as_the_full_reader(text)
    match = store_canonical.ENTRY.match(text, len(HEAD))
    quick_no = match.group(match.re.groups - 2) == ""  # the empty group before the body
    if quick_no:  # the pattern said the body cannot open with the title: the function agrees
        assert title_said_once(title, body) == (title, body)
    # And it says so exactly when the function's own first test does.
    assert quick_no == (title[0].isascii() and body[0].isascii() and title[0].isalnum() and body[0].isalnum()
                        and title[0].lower() != body[0].lower())


@pytest.mark.parametrize("body", ["  #not a heading", "\t# tabbed", "Line one\n  ## indented", "Tag # mid-line",
                                  "Line one\n#top"])
def test_a_body_line_starting_with_a_hash_reads_as_before(old, full_reader_calls, body):  # noqa: F811
    text = HEAD + _entry("").replace("Say it once.", body)
    _same(old, text)
    _same_as_the_full_reader(text)
    full_reader_calls.clear()
    parse(text)
    # Render escapes a line that starts with "#" after indentation: the full reader reads it (any other "#" is text).
    assert len(full_reader_calls) == (0 if body == "Tag # mid-line" else 1)


_TEXT = st.lists(st.sampled_from(["a", "b", " ", "-", "--", "<", ">", "!", "<!--", "-->", "<!-- a -->"]), min_size=1,
                 max_size=5).map("".join).filter(lambda text: text.strip())


@FUZZ
@given(_TEXT, _TEXT, st.none() | _TEXT, st.sampled_from(["", " | tool:a -- b", " | tool:a --> b", " | sig:<!-- x"]))
def test_an_entry_is_copied_on_render_only_when_render_writes_it_as_it_is(title, body, why, later):
    # Hand-written text with dashes, "<", ">" and raw comment delimiters where render would escape them:
    # render copies an entry's text (the reader said it is render's) only when rendering gives that text.
    note = "" if why is None else f"\n<!-- why: {why} -->"
    text = (HEAD + f"### [tip] {title}\n<!-- id:a1b2c3d4 | injected:0 | src:auto | sess:s{later} | 2026-01-27 -->"
            f"{note}\n{body}\n")
    try:
        doc = parse(text)
    except StoreFormatError:
        return
    assert render(doc) == render(StoreDoc(name=doc.name, learnings=list(doc.learnings)))  # a plain list: no copies
    _same_as_the_full_reader(text)


def test_dashes_that_open_or_close_no_comment_are_copied_as_they_are():
    text = HEAD + _entry("").replace("Keep intros short", "Keep -- intros <short>").replace("Say it once.", "a --> b")
    doc = parse(text)
    assert doc.learnings.spans == [None]  # "-->" in the body: rendered again (escaped), not copied
    text = text.replace("a --> b", "a -- b > c")
    doc = parse(text)
    assert doc.learnings.spans == [doc.learnings[0]] and render(doc) == text


@pytest.mark.parametrize("heading, body", [("### [tip]", "Say it once."), ("### [tip] Keep intros short", ""),
                                           ("### [tip]", ""), ("### [tip] Say it once", "Say it once. Then more.")])
def test_an_entry_without_a_title_or_a_body_reads_as_before(old, heading, body):  # noqa: F811
    entry = _entry("").replace("### [tip] Keep intros short", heading).replace("\nSay it once.", body and f"\n{body}")
    text = HEAD + entry + "\n" + _entry("", "b1b2c3d4")
    _same(old, text)
    _same_as_the_full_reader(text)


def test_a_store_of_several_runs_reads_as_the_full_reader_reads_it(full_reader_calls):
    # Records are made a run of entries at a time: entries the full reader takes, and retired ones
    # skipped, fall inside and at the edges of runs, and every record keeps its place and its text.
    run = store_canonical._RUN
    entries = [_entry(" | ok:2" if index % 3 else "", f"{index:08x}") for index in range(2 * run + 5)]
    for index in (0, run - 1, run, 2 * run + 4):
        entries[index] = entries[index].replace("injected:3", "injected:03")  # read the same, by the full reader
    entries[run + 1] = entries[run + 1].replace("| 2026-01-27", "| state:retired | 2026-01-27")
    text = HEAD + "\n".join(entries)
    _same_as_the_full_reader(text)
    full_reader_calls.clear()
    doc = parse(text)
    assert len(full_reader_calls) == 4
    assert [rule.id for rule in doc.learnings] == [f"{index:08x}" for index in range(2 * run + 5) if index != run + 1]
    assert render(doc) == render(StoreDoc(name=doc.name, learnings=list(doc.learnings)))
    assert sum(span is not None for span in doc.learnings.spans) == len(doc.learnings) - 4
