"""A rule body wrapped over lines, as every body in the spec's Storage Format example is, is one sentence
to the offline evaluator (review 20). It split at every line break and closed each piece with a period,
so a tidy-up that rewrote or graduated such a rule wrote "include a specific time estimate. (e.g., ...)"
into the agent file, the one file that is committed."""

from __future__ import annotations

from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.helper.offline_text import sentences
from agentuse.core.learned_block import read_block

runner = CliRunner()
AGENT = """---
model: anthropic:claude-sonnet-5
learning: true
---

# Blog Writer

Write short productivity blog posts (150-200 words).
"""
STORE = """# Learnings for blog-writer
<!-- agent: blog-writer.agentuse -->

### [pattern] Structure with time estimates
<!-- id:q1w2e3r4 | confidence:0.80 | injected:7 | src:manual | ch:corrections | re:2 | 2026-01-28 -->
Each actionable tip should include a specific time estimate
(e.g., "5-minute brain dump") to make it feel achievable.
"""


def test_a_wrapped_line_is_not_a_sentence_break():
    assert sentences('When writing productivity tips, include concrete scenarios\nlike "checking emails before '
                     'coffee" rather than abstract advice.') == [
        'When writing productivity tips, include concrete scenarios like "checking emails before coffee" '
        'rather than abstract advice.']
    # Lines that are items of their own stay apart: bullets, a new sentence, a blank line between.
    assert sentences("- Cite sources\n- Link them") == ["Cite sources", "Link them"]
    assert sentences("Cite sources.\nLink them.") == ["Cite sources.", "Link them."]
    assert sentences("Cite sources\n\nlink them") == ["Cite sources", "link them"]


def test_a_tidy_up_graduates_a_wrapped_rule_as_one_sentence(tmp_path):
    agent = tmp_path / "blog-writer.agentuse"
    agent.write_text(AGENT)
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_text(STORE)
    result = runner.invoke(app, ["learnings", "tidy", str(agent)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    [rule] = read_block(agent.read_text())
    assert "estimate. (e.g." not in rule.text and 'time estimate (e.g., "5-minute brain dump")' in rule.text, rule.text


def test_a_rule_whose_body_is_its_title_as_a_sentence_is_said_once():
    """A person's one-sentence note, repeated and so rewritten by the offline evaluator, came back as the
    title plus the same sentence with a full stop: graduated, the agent file read
    '- [tip] Keep intros under 50 words' followed by '  Keep intros under 50 words.'"""
    from agentuse.core.learning import rule_text

    assert rule_text("Keep intros under 50 words", "Keep intros under 50 words.") == "Keep intros under 50 words."
    assert rule_text("Keep intros short", "Fifty words at most.") == "Keep intros short\nFifty words at most."
