"""The fast store parser and renderer against the ones they replaced (commit 4c0d947, issue 17).

The old core/store_format.py is read out of git and loaded under another module name, so both run on the
same inputs in one process: every text either parses to equal records (the same fields marked as set,
in the same order) and renders to the same bytes, or fails with the same file:line message. Also: the
records the parser builds without pydantic's per-field pass are exactly what that pass makes.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentuse.core import store_format
from agentuse.core.learning import PARSER_APPLIES, Learning
from agentuse.core.store_format import StoreDoc, StoreFormatError, parse, render

from reliability.test_bad_input import STORE_TEXT
from test_store_format import SPEC_EXAMPLE, docs

BASELINE = "4c0d947"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def old(tmp_path_factory):
    try:
        source = subprocess.run(["git", "show", f"{BASELINE}:core/store_format.py"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"commit {BASELINE} is not in this checkout's git history")
    path = tmp_path_factory.mktemp("baseline") / "store_format_4c0d947.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("store_format_4c0d947", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the module's annotations through sys.modules
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _outcome(parse_fn, text: str, **options):
    try:
        doc = parse_fn(text, filename="f.learnings.md", **options)
    except ValueError as error:  # both modules' StoreFormatError are ValueErrors
        assert type(error).__name__ == "StoreFormatError"
        return ("error", error.line, error.message)
    return ("doc", doc.name, doc.agent, [(rule, rule.model_fields_set, list(rule.__dict__)) for rule in doc.learnings])


def _same(old, text: str) -> None:
    for options in ({}, {"include_retired": True}):
        new_outcome = _outcome(parse, text, **options)
        assert new_outcome == _outcome(old.parse, text, **options)
        if new_outcome[0] == "doc":
            doc = parse(text, **options)
            if options:
                assert render(doc) == old.render(old.StoreDoc(**dict(doc)))
            else:
                assert render(doc) == old.render(old.parse(text))


FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(STORE_TEXT)
def test_nearly_structured_text_parses_and_fails_exactly_as_before(old, text):
    _same(old, text)


def _without_vet(doc: StoreDoc) -> StoreDoc:
    # `vet:` came after the baseline (issue 16): the baseline reads it as an unknown token, checked below.
    return doc.model_copy(update={"learnings": [r.model_copy(update={"vet": None}) for r in doc.learnings]})


@FUZZ
@given(docs().map(_without_vet))
def test_rendered_docs_read_and_write_exactly_as_before(old, doc):
    assert render(doc) == old.render(doc)
    _same(old, render(doc))


def test_the_baseline_reader_keeps_a_vet_token_as_an_unknown_token(old):
    """An older reader tolerates `vet:offline` as it does any unknown token: kept and written back."""
    text = ("# Learnings for a\n\n### [tip] T\n"
            "<!-- id:abcd1234 | injected:0 | src:manual | vet:offline | 2026-01-01 -->\nB\n")
    assert old.parse(text).learnings[0].extra == ["vet:offline"]
    assert old.render(old.parse(text)) == text == render(parse(text))


# Each line changes one thing the fast path of the metadata line relies on.
VARIANTS = [
    "<!-- id:a1b2c3d4 | confidence:0.92 | injected:3 | src:auto | ch:custom | 2026-01-27 -->",
    "<!-- confidence:0.92 | id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | applied:5 | src:auto | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | ih:a  b | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | ih: ab | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | ih:a\tb | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | sig:a\\|b | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | sig:a-->b | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | x-new:1 | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | 2026-02-30 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27 | 2026-01-28 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27T10:00:00Z -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | ok:1 | re:1 | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | state:active | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | state:retired | 2026-01-27 -->",
    "<!-- id: | id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | id: | injected:3 | src:auto | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:007 | src:auto | confidence:00.5 | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:٣ | src:auto | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | ٢٠٢٦-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27 -->  ",
    "<!--  id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27 -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27 --> -->",
    "<!-- id:a1b2c3d4 | injected:3 | src:auto | 2026-01-27 -->\r",
]


@pytest.mark.parametrize("meta", VARIANTS)
def test_metadata_line_variants_read_exactly_as_before(old, meta):
    for tail in ("", "\n<!-- why: a  reason -->\nbody\n\n", "\n\\### escaped\n## Retired\n"):
        _same(old, f"# Learnings for a\n\n### [tip]  Title  text \n{meta}{tail}\n### [tip] B\n{meta}\n")


def test_spec_example_reads_exactly_as_before(old):
    _same(old, SPEC_EXAMPLE.read_text(encoding="utf-8"))


def test_parsed_records_are_what_validation_makes():
    doc = parse(SPEC_EXAMPLE.read_text(encoding="utf-8") + "\n### [tip] T\n<!-- ih:a  b | applied:2 | 2026-01-01 -->\nx  \n")
    for rule in doc.learnings:
        assert Learning.model_validate(rule.model_dump()) == rule
        assert list(rule.__dict__) == list(Learning.model_fields)
    assert isinstance(doc, StoreDoc) and isinstance(StoreFormatError("f", 1, "m"), ValueError)


def test_the_parser_applies_every_validator_the_model_has():
    # Learning validators the parser does not apply would be skipped for every stored rule.
    validated = {field for decorator in Learning.__pydantic_decorators__.field_validators.values()
                 for field in decorator.info.fields}
    assert validated == set(PARSER_APPLIES)
    # The one model validator (a title said once) is applied by `from_parsed`: checked on a record that needs it.
    assert set(Learning.__pydantic_decorators__.model_validators) == {"_title_once"}
    [rule] = parse("# Learnings for a\n\n### [tip] Cite sources\n<!-- id:a1b2c3d4 | 2026-01-01 -->\n"
                   "Cite sources. Link each one.\n").learnings
    assert (rule.title, rule.body) == ("Cite sources", "Link each one.")  # the heading keeps no period
    assert Learning.model_validate(rule.model_dump()) == rule
    assert store_format.one_line is PARSER_APPLIES["title"]


# One edit to a store exactly as render writes it: the text the fast reader (store_canonical) must take
# only when the edit leaves render's own form, and otherwise hand to the full reader unchanged.
_EDIT_CHARS = st.sampled_from(list(" \t\n\r\\|#-<>!:.0123456789aAzé\u00a0\u2028\x00") + ["--", "<!--", "-->", "  ",
                                                                                         "\n\n", "\n### ", "## Retired"])


@st.composite
def _edited(draw):
    text = render(draw(docs().map(_without_vet)))
    at = draw(st.integers(0, len(text)))
    cut = draw(st.integers(0, 3))
    return text[:at] + draw(st.one_of(st.just(""), _EDIT_CHARS)) + text[at + cut:]


@FUZZ
@given(_edited())
def test_a_rendered_store_with_one_edit_reads_and_fails_exactly_as_before(old, text):
    _same(old, text)


def test_a_store_as_render_writes_it_is_read_without_the_full_reader(monkeypatch):
    from agentuse.core import store_read

    doc = parse(SPEC_EXAMPLE.read_text(encoding="utf-8"))
    calls = []
    real = store_read._parse_entry
    monkeypatch.setattr(store_read, "_parse_entry", lambda *a: calls.append(a[1]) or real(*a))
    text = render(StoreDoc(name=doc.name, agent=doc.agent, learnings=list(doc.learnings)))
    assert parse(text) == doc and calls == []
    edited = text.replace("injected:3 |", "injected:03 |")  # read the same, but not as render writes it
    assert parse(edited) == doc and len(calls) == 1


# An entry as render writes it but for one thing: the fast reader hands it to the full one, which fails
# (or reads) exactly as the baseline did, naming the same line and saying the same thing.
_GOOD = ("### [tip] Keep intros short\n<!-- id:a1b2c3d4 | confidence:0.92 | injected:3 | src:auto | ch:custom | "
         "ih:9c4d2ba17e08 | ok:2 | 2026-01-27 -->\nSay it once.\n")
ONE_THING_WRONG = [
    ("[tip]", "[tips]", "3: unknown category 'tips'; use one of tip, warning, pattern, tool-usage, error-fix"),
    ("src:auto", "src:robot", "4: bad value for 'src:' ('robot'): use one of auto, approval, manual"),
    ("ch:custom", "ch:email", "4: bad value for 'ch:' ('email'): use one of corrections, tool-errors, custom, agent"),
    ("2026-01-27", "2026-02-30", "4: '2026-02-30' is not a real date"),
    ("injected:3", "injected:-3", "4: bad value for 'injected:' ('-3'): expected a whole number of 0 or more"),
    ("confidence:0.92", "confidence:nan", "4: bad value for 'confidence:' ('nan'): expected a finite number"),
    ("ok:2", "ok:2.5", "4: bad value for 'ok:' ('2.5'): expected a whole number of 0 or more"),
    ("ok:2", "state:asleep", "4: bad value for 'state:' ('asleep'): use one of active, graduated, quarantined, retired"),
    ("ok:2", "ok:2 | ok:3", "4: 'ok:' appears twice in the metadata comment"),
    ("| 2026-01-27", "", "4: the metadata comment has no date (YYYY-MM-DD); it is the one field every entry needs"),
    ("-->\nSay", "-->\n<!-- why: a -->\n<!-- why: b -->\nSay", "6: a second 'why:' comment for this entry"),
    ("Say it once.", "Say it once.\n## Retired\nmore", "7: unexpected text after '## Retired'"),
    ("### [tip] Keep", "### [tip]Keep", "3: malformed entry heading; expected '### [category] title'"),
    ("<!-- id", "<!--id", None), ("ok:2", "ok:02", None), ("ok:2", "state:active", None), ("0.92", "0.9", None),
    ("injected:3", "injected:1000", None), ("short", "short\\!", None), ("Say", "Say\\#", None), ("Say", "#Say", None),
]


@pytest.mark.parametrize("good, bad, message", ONE_THING_WRONG)
def test_one_thing_render_would_not_write_reads_and_fails_exactly_as_before(old, good, bad, message):
    text = "# Learnings for a\n\n" + _GOOD.replace(good, bad, 1) + "\n" + _GOOD.replace("a1b2c3d4", "b1b2c3d4")
    _same(old, text)
    if message is None:
        assert len(parse(text).learnings) == 2
    else:
        with pytest.raises(StoreFormatError) as error:
            parse(text, filename="f.learnings.md")
        assert str(error.value) == f"f.learnings.md:{message}"
