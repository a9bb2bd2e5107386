"""Loading `.agentuse` files: the spec's configuration options, its upgrade table, and error messages that
name the file and line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agentuse.core.agent_file import (
    CAPTURE_TRUE_NOTICE,
    LEARNING_TRUE_NOTICE,
    AgentFileError,
    load_agent,
)
from agentuse.core.errors import AgentuseError

QUICK_START = """\
---
model: anthropic:claude-sonnet-5
approval: true   # exposes review comments and the Learn checkbox
learning: true   # apply checked feedback on similar future runs
---

# Blog Writer

Write short productivity blog posts.

## Guidelines
- Start with a relatable hook
- Include 3 actionable tips
"""

CRITERIA_TEXT = (
    '"criteria" was removed — free-form capture is opt-in now. To restore scoped\n'
    'free-form capture, move it to capture: { custom: "..." }'
)
BOTH_TEXT = 'set either "custom" (built-in evaluator) or "agent" (agent file), not both'


def write(folder: Path, text: str, name: str = "agent.agentuse") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(textwrap.dedent(text).encode())
    return path


def frontmatter(folder: Path, yaml_text: str) -> Path:
    return write(folder, "---\n" + textwrap.dedent(yaml_text) + "---\n\n# Agent\n\nDo the work.\n")


def error_for(path: Path) -> AgentFileError:
    with pytest.raises(AgentFileError) as caught:
        load_agent(path)
    return caught.value


# --- the spec's own examples ------------------------------------------------------------------------------


def test_quick_start_is_learning_true_sugar_with_a_notice(tmp_path):
    agent = load_agent(write(tmp_path, QUICK_START))
    assert agent.model == "anthropic:claude-sonnet-5"
    assert agent.approval is True
    assert agent.learning.apply is True
    assert agent.learning.capture.enabled is True
    assert agent.learning.capture.channels == []  # automatic observation remains off
    assert agent.learning.max == 15
    assert agent.helper_model == "anthropic:claude-sonnet-5"
    assert agent.body.startswith("\n# Blog Writer\n")
    assert agent.text == QUICK_START
    assert agent.notices == [LEARNING_TRUE_NOTICE]
    assert "learning: { capture: true, apply: true }" in LEARNING_TRUE_NOTICE
    assert "--remember" in LEARNING_TRUE_NOTICE and "automatic observation stays off" in LEARNING_TRUE_NOTICE


def test_advanced_capture_channels(tmp_path):
    agent = load_agent(frontmatter(tmp_path, """\
        model: anthropic:claude-sonnet-5
        learning:
          capture:
            addons: [tool-errors]         # typed, structurally-verified channels
            custom: |                     # scoped free-form capture, built-in evaluator
              Only note selector changes.
            # agent: ./capture.agentuse   # instead of custom: replace the evaluator
          apply: true
          max: 15
          model: anthropic:claude-haiku-4-5
        """))
    capture = agent.learning.capture
    assert capture.addons == ["tool-errors"]
    assert capture.custom == "Only note selector changes.\n"
    assert capture.agent is None
    assert capture.channels == ["tool-errors", "custom"]
    assert agent.helper_model == "anthropic:claude-haiku-4-5"
    assert agent.notices == []


def test_store_without_applying(tmp_path):
    agent = load_agent(frontmatter(tmp_path, "learning:\n  capture: true\n  apply: false\n"))
    assert agent.learning.apply is False and agent.learning.capture.enabled is True
    assert agent.notices == [CAPTURE_TRUE_NOTICE]


@pytest.mark.parametrize("capture", ["true", "{}"])
def test_capture_true_and_empty_object_enable_no_channel_and_notice(tmp_path, capture):
    agent = load_agent(frontmatter(tmp_path, f"learning:\n  capture: {capture}\n"))
    assert agent.learning.capture.enabled and agent.learning.capture.channels == []
    assert agent.notices == [CAPTURE_TRUE_NOTICE]
    assert 'capture: { custom: "..." }' in CAPTURE_TRUE_NOTICE


def test_capture_false_turns_capture_off(tmp_path):
    agent = load_agent(frontmatter(tmp_path, "learning:\n  capture: false\n"))
    assert agent.learning.capture.enabled is False
    assert agent.learning.apply is True
    assert agent.notices == []


def test_learning_false_is_explicitly_off_and_absent_is_none(tmp_path):
    off = load_agent(frontmatter(tmp_path, "learning: false\n")).learning
    assert off is not None and off.apply is False and off.capture.enabled is False
    assert off.capture.channels == []
    assert load_agent(frontmatter(tmp_path, "model: anthropic:x\n")).learning is None


def test_learning_object_defaults_capture_true_without_notice(tmp_path):
    agent = load_agent(frontmatter(tmp_path, "learning:\n  max: 1\n"))
    assert agent.learning.capture.enabled and agent.learning.apply and agent.learning.max == 1
    assert agent.notices == []


def test_capture_agent_resolves_relative_to_the_declaring_file(tmp_path, monkeypatch):
    write(tmp_path / "agents", "---\nmodel: anthropic:claude-haiku-4-5\n---\n# Capture\n", "capture.agentuse")
    path = write(tmp_path / "agents", "---\nlearning:\n  capture:\n    agent: ./capture.agentuse\n---\n")
    monkeypatch.chdir(tmp_path)  # not the agent's folder: resolution must not depend on the cwd
    agent = load_agent(Path("agents/agent.agentuse"))
    assert agent.learning.capture.agent == (tmp_path / "agents" / "capture.agentuse").resolve()
    assert agent.learning.capture.channels == ["agent"]
    assert path.exists()


def test_missing_capture_agent_is_an_error_at_its_line(tmp_path):
    error = error_for(frontmatter(tmp_path, "learning:\n  capture:\n    agent: ./nope.agentuse\n"))
    assert error.line == 4 and "nope.agentuse" in error.message and "relative to this agent file" in error.message


def test_no_frontmatter_is_a_valid_agent_with_defaults(tmp_path):
    text = "# Plain\n\nJust instructions.\n---\nnot frontmatter\n"
    agent = load_agent(write(tmp_path, text))
    assert agent.body == text and agent.learning is None and agent.model is None and agent.approval is False


def test_empty_frontmatter_and_unknown_top_level_keys(tmp_path):
    assert load_agent(write(tmp_path, "---\n---\nBody\n")).body == "Body\n"
    agent = load_agent(frontmatter(tmp_path, "description: d\nverify:\n  criteria: x\ntools: [a]\non: push\n"))
    assert agent.frontmatter["verify"] == {"criteria": "x"} and agent.learning is None
    assert agent.frontmatter[True] == "push"  # YAML 1.1 reads `on` as a boolean key; still not an error


def test_crlf_file_keeps_its_bytes(tmp_path):
    path = tmp_path / "crlf.agentuse"
    path.write_bytes(b"---\r\nmodel: anthropic:x\r\nlearning:\r\n  max: 3\r\n---\r\n# A\r\n")
    agent = load_agent(path)
    assert agent.text.encode() == path.read_bytes()
    assert agent.learning.max == 3 and agent.body == "# A\r\n"


# --- upgrade table: hard errors ---------------------------------------------------------------------------


def test_criteria_is_a_hard_error_with_the_spec_wording(tmp_path):
    path = frontmatter(tmp_path, "model: anthropic:x\nlearning:\n  criteria: Only selectors.\n")
    error = error_for(path)
    assert CRITERIA_TEXT in str(error)
    assert error.line == 4 and error.file == str(path)
    assert str(error).startswith(f"{path}:4: ")


def test_custom_and_agent_together_is_a_hard_error(tmp_path):
    write(tmp_path, "---\n---\n", "capture.agentuse")
    error = error_for(frontmatter(tmp_path, """\
        learning:
          capture:
            custom: Only selectors.
            agent: ./capture.agentuse
        """))
    assert BOTH_TEXT in error.message and error.line == 3


@pytest.mark.parametrize("key", ["evaluate", "file"])
def test_removed_keys_are_rejected_by_name(tmp_path, key):
    path = frontmatter(tmp_path, f"learning:\n  apply: true\n  {key}: something\n")
    error = error_for(path)
    assert error.message.startswith(f'"{key}" was removed in v0.17.0') and error.line == 4


def test_file_error_says_where_learnings_live(tmp_path):
    path = frontmatter(tmp_path, "learning:\n  file: ./my.learnings.md\n")
    message = error_for(path).message
    assert "state directory" in message and f"agentuse learnings {path} --path" in message


def test_unknown_addon_names_the_allowed_ones(tmp_path):
    error = error_for(frontmatter(tmp_path, "learning:\n  capture:\n    addons: [tool-errors, typos]\n"))
    assert 'unknown capture addon "typos"' in error.message and "allowed: tool-errors" in error.message
    assert error.line == 4


@pytest.mark.parametrize(("yaml_text", "key", "line"), [
    ("learning:\n  aply: true\n", '"aply" under learning', 3),
    ("learning:\n  capture:\n    addon: [tool-errors]\n", '"addon" under learning.capture', 4),
])
def test_unknown_keys_inside_learning_are_errors(tmp_path, yaml_text, key, line):
    error = error_for(frontmatter(tmp_path, yaml_text))
    assert f"unknown key {key}; allowed:" in error.message and error.line == line


@pytest.mark.parametrize(("value", "ok"), [("0", False), ("51", False), ("1", True), ("50", True)])
def test_max_range(tmp_path, value, ok):
    path = frontmatter(tmp_path, f"learning:\n  max: {value}\n")
    if ok:
        assert load_agent(path).learning.max == int(value)
    else:
        error = error_for(path)
        assert error.message == f"learning.max must be between 1 and 50, got {value} " \
                                "(how many rules this agent keeps)"
        assert error.line == 3


@pytest.mark.parametrize(("yaml_text", "expected", "line"), [
    ('learning:\n  max: "lots"\n', 'learning.max: expected a whole number, got "lots"', 3),
    ("learning:\n  max: true\n", "learning.max: expected a whole number, got true", 3),
    ("learning:\n  apply: maybe\n", 'learning.apply: expected true or false, got "maybe"', 3),
    ("approval: sometimes\n", 'approval: expected true or false, got "sometimes"', 2),
    ("learning:\n  capture: yes please\n", "learning.capture: must be true, false, or an object", 3),
    ("learning:\n  capture:\n    addons: tool-errors\n", "learning.capture.addons: expected a list", 4),
    ("learning:\n  capture:\n    custom:\n", "learning.capture.custom: has no value", 4),
    ('learning:\n  capture:\n    custom: "  "\n', "learning.capture.custom: is empty", 4),
    ("learning:\n", "learning has no value", 2),
    ("learning: 5\n", "learning must be true, false, or an object", 2),
    ("model: claude\n", 'model: must be "provider:model"', 2),
    ("learning:\n  model: haiku\n", 'learning.model: must be "provider:model"', 3),
])
def test_wrong_types_are_actionable(tmp_path, yaml_text, expected, line):
    error = error_for(frontmatter(tmp_path, yaml_text))
    assert error.message.startswith(expected), error.message
    assert error.line == line


def test_several_problems_are_reported_together(tmp_path):
    path = frontmatter(tmp_path, "approval: nope\nlearning:\n  max: 99\n  apply: maybe\n")
    error = error_for(path)
    lines = str(error).splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == [f"{path}:2", f"{path}:4", f"{path}:5"]


# --- malformed files ---------------------------------------------------------------------------------------


def test_malformed_yaml_names_the_file_line(tmp_path):
    path = write(tmp_path, "---\nmodel: anthropic:x\nlearning:\n  capture: [unclosed\n  apply: true\n---\n")
    error = error_for(path)
    assert error.message == ("frontmatter is not valid YAML: expected ',' or ']', but got ':' "
                             "(while parsing a flow sequence started on line 4)")
    assert error.line == 5 and str(error).startswith(f"{path}:5: ")


def test_bad_indentation_points_at_the_offending_line(tmp_path):
    error = error_for(write(tmp_path, "---\nmodel: anthropic:x\n  approval: true\n---\n"))
    assert error.line == 3


def test_frontmatter_must_be_a_mapping(tmp_path):
    error = error_for(write(tmp_path, "---\n- model\n- learning\n---\nbody\n"))
    assert "must be a YAML mapping" in error.message and "found a list" in error.message


def test_missing_closing_fence(tmp_path):
    error = error_for(write(tmp_path, "---\nmodel: anthropic:x\n\n# Agent\n"))
    assert error.line == 1 and "never closed" in error.message


def test_duplicate_keys_are_refused(tmp_path):
    error = error_for(frontmatter(tmp_path, "learning:\n  max: 3\n  max: 4\n"))
    assert error.line == 4 and '"learning.max" is set twice (first on line 3)' in error.message


def test_missing_and_unreadable_files(tmp_path):
    error = error_for(tmp_path / "absent.agentuse")
    assert isinstance(error, AgentuseError) and isinstance(error, ValueError)
    assert str(error) == f"{tmp_path / 'absent.agentuse'}: no such agent file"
    (tmp_path / "latin.agentuse").write_bytes(b"# caf\xe9\n")
    assert "not UTF-8" in error_for(tmp_path / "latin.agentuse").message


# --- warn once per agent ---------------------------------------------------------------------------------


def test_notices_are_shown_once_per_agent(tmp_path):
    from agentuse.core import notices, store

    first = store.locate(write(tmp_path, QUICK_START, "blog.agentuse"))
    other = store.locate(write(tmp_path, QUICK_START, "other.agentuse"))
    texts = load_agent(first.agent_path).notices
    assert notices.announce(first, texts) == [LEARNING_TRUE_NOTICE]
    assert notices.announce(first, texts) == []  # the next run stays quiet
    assert notices.announce(other, texts) == [LEARNING_TRUE_NOTICE]  # a different agent is told too
    assert notices.shown(first) == {"learning-true": LEARNING_TRUE_NOTICE}  # what doctor echoes
    assert notices.notices_path(first).parent == first.project_dir
    assert notices.once(first, "custom", "said once") and not notices.once(first, "custom", "said once")


def test_an_unreadable_notices_file_is_never_overwritten(tmp_path):
    from agentuse.core import notices, store

    location = store.locate(write(tmp_path, QUICK_START))
    path = notices.notices_path(location)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    assert notices.once(location, "learning-true", LEARNING_TRUE_NOTICE)  # shown again rather than never
    assert notices.once(location, "learning-true", LEARNING_TRUE_NOTICE)
    assert path.read_text() == "{not json"
