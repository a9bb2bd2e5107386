"""The spec's 58-learning tidy-up, end to end through the flow (inline mode) with scripted model answers."""

from __future__ import annotations

import math
from datetime import date

import pytest
from tidy_scenario import ROLES, SPEC_SUMMARY, Scenario, install

from agentuse.core import store
from agentuse.core.grouping import GROUP_SIZE
from agentuse.core.learned_block import read_block
from agentuse.core.learning import State
from agentuse.core.tidy_report import render
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)


@pytest.fixture
def agent(tmp_path):
    return install(tmp_path, store.locate)


def test_ends_at_fifteen_in_force_across_passes(agent):
    scenario = Scenario()
    lines = []
    # The spec's lines, as the terminal prints them (per-rule events are the web page's count).
    result = run_tidy(agent, helper=scenario.helper(), progress=lambda e: e.per_rule or lines.append(e.line),
                      today=TODAY, seed=7)

    assert result.summary == SPEC_SUMMARY
    assert len(result.passes) >= 2
    assert lines[0] == "reading 58 learnings to see what repeats…"
    assert lines[1].startswith("rewriting ") and lines[1].endswith(" rules…")
    assert lines[2].startswith("pass 2: reading ") and lines[-1] == "writing both files…"
    assert render(result)[:2] == ["Done", f"  {SPEC_SUMMARY}"]

    doc = store.load(store.locate(agent))
    assert len([r for r in doc.learnings if r.state is State.active]) == 15
    graduated = {r.id for r in doc.learnings if r.state is State.graduated}
    assert graduated == {ROLES[f"G{i}"] for i in range(1, 10)}
    assert {r.id for r in doc.learnings if r.state is State.quarantined} == {ROLES["Q1"], ROLES["Q2"]}
    # Retired and merged-away rules are archived, never deleted: 12 retired + 23 merged away.
    archived = store.load_archive(store.locate(agent)).learnings
    assert len(archived) == 12 + 23
    assert {ROLES[f"R{i}"] for i in range(1, 13)} <= {r.id for r in archived}

    block = read_block(agent.read_text())
    assert len(block) == 10  # the rule already there, and nine made permanent
    assert "State the main takeaway in the first two sentences" in result.permanent  # rewritten, then graduated
    assert sorted(result.permanent) == sorted(c.title for c in result.changes if c.kind == "graduated")


def test_model_calls_per_pass_are_linear_in_groups(agent):
    scenario = Scenario()
    helper = scenario.helper()
    result = run_tidy(agent, helper=helper, today=TODAY, seed=7)

    plans = helper.ops("plan_groups")
    assert len(plans) == sum(info.groups for info in result.passes)
    start = 0
    for info in result.passes:  # the calls of a pass all end before the next pass begins
        calls, start = plans[start:start + info.groups], start + info.groups
        planned = sum(len(c.request.rules) for c in calls)
        assert info.groups == math.ceil(planned / GROUP_SIZE)  # one call per group of about 15
    # Stage 2 is one call per move that writes; the gate adds one vet per pass that wrote anything and one
    # audit per accepted rewrite, per rule a retire removes (against the rule said to state it), and per
    # combined rule of the block rewrite.
    rewrites = sum(info.rewrites for info in result.passes)
    assert len(helper.ops("rewrite_group")) == rewrites
    block_audits = [c for c in helper.ops("audit") if all(o.id.startswith("b") for o in c.request.originals)]
    retires = sum(1 for c in result.changes if c.kind == "retired") + sum("retire of" in n for n in result.notes)
    assert retires >= 12 and len(helper.ops("audit")) - len(block_audits) == rewrites + retires
    writing_passes = sum(1 for info in result.passes if info.rewrites)
    assert len(helper.ops("vet")) == 1 + writing_passes + (1 if block_audits else 0)  # re-vet, gate vets
    assert len(helper.ops("rewrite_block")) == 1
    assert result.model_calls == len(helper.calls)
    # Every plan call sees at most a group's worth of rules: no call grows with the size of the store.
    assert max(len(c.request.rules) for c in plans) <= GROUP_SIZE
    assert len(helper.calls) < 58  # far from one call per pair (58*57/2 = 1653)


def test_the_group_calls_of_a_pass_overlap(agent):
    scenario = Scenario()
    helper = scenario.helper(pause=0.05)
    result = run_tidy(agent, helper=helper, today=TODAY, seed=7)

    first_pass = helper.ops("plan_groups")[: result.passes[0].groups]
    assert len(first_pass) == 4
    # Overlap, not speed: every call of the pass started before any of them ended.
    assert max(c.start for c in first_pass) < min(c.end for c in first_pass)
    assert len({c.thread for c in first_pass}) == 4


def test_call_count_grows_with_groups_not_pairs(tmp_path):
    """120 distinct rules: one plan call per group of 15, nothing else (no moves proposed)."""
    from fakes.scripted_helper import ScriptedHelper, keep_everything

    from agentuse.core.contract import instruction_hash
    from agentuse.core.learning import Learning
    from agentuse.core.store_format import StoreDoc, render as render_store

    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nlearning: true\n---\n\n# A\n\nDo things.\n")
    ih = instruction_hash(agent.read_text())
    rules = [Learning(id=f"{i:08x}", title=f"Rule {i} about topic{i} and subject{i * 7}", body=f"Detail {i}.",
                      date="2026-01-01", ih=ih) for i in range(120)]
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_text(render_store(StoreDoc(name="a", learnings=rules)))

    helper = ScriptedHelper(plan_groups=keep_everything)
    result = run_tidy(agent, helper=helper, today=TODAY)
    assert [c.operation for c in helper.calls] == ["plan_groups"] * 8
    assert len(result.passes) == 1  # the pass freed nothing: stop
    assert result.overcap is not None and result.overcap.accounted == 120
