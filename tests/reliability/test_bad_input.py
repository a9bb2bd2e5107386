"""Bad input: fuzzed learnings files and agent files never crash anything with an undocumented error, and a
file that cannot be parsed is never rewritten — not by a transaction, not by a run's counting, not by the
CLI. The documented errors: StoreFormatError (file:line) for learnings files, AgentFileError (and its
BlockMarkerError) for agent files; both are AgentuseErrors, which the CLI prints as one line and exit 1.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.agent_file import AgentFileError, BlockMarkerError, load_agent, read_block, write_block
from agentuse.core.errors import AgentuseError
from agentuse.core.inject import credit_approval, record_injection
from agentuse.core.learned_block import BlockRule
from agentuse.core.learning import Category
from agentuse.core.store_format import StoreFormatError, parse, render

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# --- learnings files: lines that are nearly structure --------------------------------------------------

_TOKENS = st.sampled_from([
    "id:a1b2c3d4", "id:", "confidence:0.92", "confidence:nan", "confidence:1e999", "injected:3", "injected:-1",
    "applied:2", "src:auto", "src:robot", "ch:custom", "ch:", "ih:9c4d2ba17e08", "state:quarantined",
    "state:retired", "state:bogus", "re:1", "ok:x", "2026-01-27", "2026-02-30", "2026-01-27T10:00:00Z",
    "tool:a|b", "sig:files.length remained #", "x-unknown:kept", "", " ", "\\|", "|",
])
_META = st.lists(_TOKENS, max_size=7).map(lambda tokens: "<!-- " + " | ".join(tokens) + " -->")
_STORE_LINE = st.one_of(
    st.sampled_from(["# Learnings for write", "# Learnings for", "<!-- agent: agents/blog/write.agentuse -->",
                     "### [tip] Title", "### [error-fix] browser.uploadFile: files.length remained #",
                     "### [nonsense] Title", "### ", "###", "## Retired", "<!-- why: a reason -->",
                     "<!-- evidence: failed → succeeded -->", "<!--", "-->", "", "\\### escaped", "\ufeff"]),
    _META,
    st.text(max_size=30),
)
STORE_TEXT = st.lists(_STORE_LINE, max_size=14).flatmap(
    lambda lines: st.sampled_from(["\n", "\r\n"]).map(lambda newline: newline.join(lines)))


@FUZZ
@given(STORE_TEXT)
def test_learnings_parser_only_ever_raises_its_documented_error(text):
    try:
        doc = parse(text, filename="fuzz.learnings.md")
    except StoreFormatError as error:
        assert isinstance(error, AgentuseError) and str(error).startswith("fuzz.learnings.md:")
        assert 1 <= error.line <= max(1, text.count("\n") + 1)
        return
    # What parsed can be written, and what is written reads back as the same rules.
    assert parse(render(doc)) == doc


@FUZZ
@given(data=st.one_of(STORE_TEXT.map(lambda t: t.encode("utf-8")), st.binary(max_size=200)))
def test_unparseable_store_is_never_rewritten_by_writes_or_the_cli(project, data):
    location = project.location
    location.store_path.parent.mkdir(parents=True, exist_ok=True)
    location.store_path.write_bytes(data)
    try:
        store.load(location)
    except StoreFormatError:
        pass
    else:
        return  # it parses: rewriting it is allowed (and other tests check how)
    for write in (lambda: record_injection(location, ["a1b2c3d4"]), lambda: credit_approval(location, ["a1b2c3d4"]),
                  lambda: store.save(location, store.StoreDoc(name="x"))):
        with pytest.raises(StoreFormatError):
            write()
        assert location.store_path.read_bytes() == data
    for args in (["learnings", str(project.agent)], ["learnings", str(project.agent), "--json"],
                 ["doctor", str(project.agent)]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
        assert result.stderr.startswith("error: ") and str(location.store_path) in result.stderr
        assert location.store_path.read_bytes() == data


# --- agent files ------------------------------------------------------------------------------------------

_YAML_LINE = st.sampled_from([
    "model: anthropic:claude-sonnet-5", "model: 3", "model: [a]", "approval: true", "approval: maybe",
    "learning: true", "learning: false", "learning:", "  capture: true", "  capture:", "    addons: [tool-errors]",
    "    addons: [nope]", "    custom: only selectors", "    agent: ./missing.agentuse", "  apply: false",
    "  max: 0", "  max: 51", "  max: 15", "  max: 1e400", "  criteria: x", "  evaluate: x", "file: x",
    "  model: anthropic:claude-haiku-4-5", "a: &a [1, 2]", "b: *a", "c: *undefined", "? [a, b]", ": x",
    "!!python/object:os.system x", "- item", "\t tab: indented", "key: 'unclosed", "key: {a: 1",
    "learning: {capture: {custom: a, agent: b}}", "",
])
_BODY_LINE = st.sampled_from([
    "# Blog Writer", "## Requirements", "- Start with a relatable hook", "<!-- agentuse:learned -->",
    "<!-- /agentuse:learned -->", "## Learned Guidance", "- [tip] Cite sources before publishing",
    "- [nonsense] x", "- ", "  continued rule text", "unindented text", "", "---", "```", "````html", "~~~",
]) | st.text(max_size=20)
AGENT_TEXT = st.builds(
    lambda fm, yaml_lines, body, newline: newline.join(
        (["---", *yaml_lines, "---"] if fm == "closed" else ["---", *yaml_lines] if fm == "open" else []) + body),
    st.sampled_from(["closed", "closed", "open", "none"]), st.lists(_YAML_LINE, max_size=8),
    st.lists(_BODY_LINE, max_size=10), st.sampled_from(["\n", "\r\n"]))


@FUZZ
@given(text=AGENT_TEXT | st.text(max_size=200))
# Seeds that once failed: balanced markers around an empty bullet, an unknown category, a stray line.
@example(text="# A\n<!-- agentuse:learned -->\n- \n<!-- /agentuse:learned -->\n")
@example(text="<!-- agentuse:learned -->\n- [nonsense] x\n<!-- /agentuse:learned -->")
@example(text="<!-- agentuse:learned -->\n- [tip] a\n\nunindented text\n<!-- /agentuse:learned -->")
def test_agent_file_parser_only_ever_raises_its_documented_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.agentuse"
    path.write_text(text, encoding="utf-8", newline="")
    try:
        agent = load_agent(path)
    except AgentFileError as error:
        assert str(error).startswith(str(path))
        return
    try:
        rules = read_block(agent.text)
    except BlockMarkerError:
        # Unbalanced markers: editing is refused, and the file stays exactly as it was.
        with pytest.raises(BlockMarkerError):
            write_block(agent.text, [BlockRule(category=Category.tip, text="new rule")])
        assert path.read_bytes() == text.encode("utf-8")
        return
    new = [*(rules or []), BlockRule(category=Category.tip, text="A rule added by graduation")]
    try:
        edited = write_block(agent.text, new)
    except BlockMarkerError as refused:
        # Only appending after a code fence that never closes is refused: the block would be code.
        assert rules is None and "never closed" in str(refused)
        return
    assert read_block(edited) == new  # what is written reads back; nothing else in the file is lost
    if rules is not None:
        assert write_block(edited, rules or []) == write_block(agent.text, rules or [])


@FUZZ
@given(text=AGENT_TEXT)
def test_cli_reports_a_bad_agent_file_in_one_line_and_never_crashes(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "fuzz.agentuse"
    path.write_text(text, encoding="utf-8", newline="")
    for args in (["doctor", str(path)], ["learnings", str(path), "--json"]):
        result = CliRunner().invoke(app, args)
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        assert result.exit_code in (0, 1)
        if result.exit_code == 1:
            assert result.stderr.startswith("error: ")
    assert path.read_bytes() == text.encode("utf-8")  # reading never writes the agent file


# --- YAML features that turn a small frontmatter into a crash or a very long wait ------------------------


@pytest.mark.parametrize("frontmatter", [
    "a: &a [*a]\nmodel: anthropic:claude-sonnet-5",
    "model: &m [*m]",
    "learning:\n  capture:\n    addons: &x [*x]",
    "a: &a {capture: *a}\nlearning: *a",
])
def test_recursive_yaml_alias_loads_or_is_an_agent_file_error(tmp_path, frontmatter):
    path = tmp_path / "loop.agentuse"
    path.write_text(f"---\n{frontmatter}\n---\n# Loop\n")
    try:
        load_agent(path)
    except AgentFileError as error:
        assert str(error).startswith(str(path))  # refusing is fine; a RecursionError or ValueError is not


class _TooMuchWork(Exception):
    pass


def test_nested_yaml_aliases_do_not_expand_into_exponential_work(tmp_path):
    # 10 aliases at each of 6 levels: 10^6 paths through one small frontmatter ("billion laughs"). Counted
    # in Python function calls rather than seconds, so the test is exact on any machine.
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    path = tmp_path / "laughs.agentuse"
    path.write_text("---\n" + "\n".join(lines) + "\nmodel: anthropic:claude-sonnet-5\n---\n# Laughs\n")
    budget = {"calls": 0}

    def tracer(frame, event, arg):
        if event == "call":
            budget["calls"] += 1
            if budget["calls"] > 200_000:
                raise _TooMuchWork
        return None

    sys.settrace(tracer)
    try:
        agent = load_agent(path)
    except _TooMuchWork:
        pytest.fail("loading a 7-line frontmatter took over 200,000 function calls: aliases are expanded")
    finally:
        sys.settrace(None)
    assert agent.model == "anthropic:claude-sonnet-5"
