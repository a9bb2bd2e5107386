"""A tidy-up of an agent whose only rules are in its permanent block (review 20: a new user's walk through
the spec). Such an agent has no learnings store yet: the tidy-up rewrites the block and must neither report
"reading 0 learnings" nor create a header-only store it did not need."""

from __future__ import annotations

from fakes.scripted_helper import ScriptedHelper, block_unchanged, keep_everything, nothing_missing, passing
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.helper import protocol as p
from agentuse.core.helper.factory import override_helper
from agentuse.core.learned_block import read_block

runner = CliRunner()
AGENT = """---
model: anthropic:claude-sonnet-5
learning: true
---

# Blog Writer

Write short productivity blog posts.

<!-- agentuse:learned -->
## Learned Guidance

Guidance consolidated from previous runs.

- [tip] Cite sources before publishing
- [tip] Always include source links before publishing
<!-- /agentuse:learned -->
"""


def helper(**ops) -> ScriptedHelper:
    defaults = dict(vet=passing, plan_groups=keep_everything, audit=nothing_missing, rewrite_block=block_unchanged)
    return ScriptedHelper(**{**defaults, **ops})


def combine(request: p.BlockRequest) -> p.BlockAnswer:
    return p.BlockAnswer(rules=[p.RewrittenRule(category="tip", text="Cite sources and link them before publishing",
                                                covers=["b1", "b2"])])


def tidy(agent, *flags, h):
    with override_helper(h):
        return runner.invoke(app, ["learnings", "tidy", str(agent), *flags], catch_exceptions=False)


def test_a_block_only_tidy_that_changes_nothing_writes_nothing_and_reads_no_store(tmp_path):
    agent = tmp_path / "blog-writer.agentuse"
    agent.write_text(AGENT)
    location = store.locate(agent)
    for flags in ([], ["--dry-run"]):
        result = tidy(agent, *flags, h=helper())
        assert result.exit_code == 0, result.output
        assert "reading 0 learnings" not in result.output
        assert "reading the 2 rules of the permanent block to see what overlaps…" in result.output
        if flags:  # the plan shows both diffs; a tidy-up that changed nothing prints none
            assert "(no change to the learnings file)" in result.output, result.output
        assert not location.store_path.exists()
    assert agent.read_text() == AGENT


def test_a_block_only_tidy_rewrites_the_block_without_creating_a_store_and_undo_puts_it_back(tmp_path):
    agent = tmp_path / "blog-writer.agentuse"
    agent.write_text(AGENT)
    location = store.locate(agent)
    result = tidy(agent, h=helper(rewrite_block=combine))
    assert result.exit_code == 0, result.output
    assert [b.text for b in read_block(agent.read_text())] == ["Cite sources and link them before publishing"]
    assert not location.store_path.exists(), location.store_path.read_text()
    assert "(no change to the learnings file)" in result.output
    # The next tidy-up knows the block is as the last one left it.
    again = tidy(agent, h=helper(rewrite_block=combine))
    assert again.output.startswith("Nothing to tidy up"), again.output
    undone = runner.invoke(app, ["learnings", "undo", str(agent)], catch_exceptions=False)
    assert undone.exit_code == 0, undone.output
    assert agent.read_text() == AGENT and not location.store_path.exists()


def test_the_list_names_the_permanent_rules_of_an_agent_with_no_learnings_file(tmp_path):
    """It said only "No learnings yet", of an agent taught two rules (doctor counted them)."""
    agent = tmp_path / "blog-writer.agentuse"
    agent.write_text(AGENT)
    out = runner.invoke(app, ["learnings", str(agent)], catch_exceptions=False).stdout
    lines = out.splitlines()
    assert lines[0] == "No learnings yet for blog-writer.agentuse."
    assert lines[3:6] == ["In agent file — Learned Guidance (2)",
                          "  in agent file  [tip] Cite sources before publishing",
                          "  in agent file  [tip] Always include source links before publishing"]


def test_a_store_holding_only_quarantined_rules_reads_no_learnings_either(tmp_path):
    from agentuse.core.agent_file import load_agent
    from agentuse.core.contract import agent_hash

    agent = tmp_path / "blog-writer.agentuse"
    agent.write_text(AGENT)
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_text(f"""# Learnings for blog-writer
<!-- agent: blog-writer.agentuse -->

### [tip] Never cite sources
<!-- id:q1q1q1q1 | confidence:1.00 | src:manual | ch:corrections | ih:{agent_hash(load_agent(agent))} | state:quarantined | 2026-01-27 -->
<!-- why: contradicts the contract: "Cite sources before publishing" -->
""")
    result = tidy(agent, h=helper())
    assert result.exit_code == 0, result.output
    assert "reading 0 learnings" not in result.output
    assert "reading the 2 rules of the permanent block to see what overlaps…" in result.output


def test_the_json_list_carries_the_permanent_rules(tmp_path):
    """review 21: the list's --json said so in its commit and nothing held it."""
    import json

    agent = tmp_path / "blog-writer.agentuse"
    agent.write_text(AGENT)
    out = runner.invoke(app, ["learnings", str(agent), "--json"], catch_exceptions=False).stdout
    report = json.loads(out)
    assert report["permanent"] == [{"category": "tip", "text": "Cite sources before publishing"},
                                   {"category": "tip", "text": "Always include source links before publishing"}]
    assert report["permanent_rules"] == 2 and report["entries"] == []
