"""A note that restates a rule already permanent (in the agent file's learned block, or a staged copy
marked graduated) is quarantined naming that rule: a person's duplicate is kept and shown, never dropped
(issue 12), and nothing counts on the permanent rule; one that contradicts a permanent rule collides with
the contract."""

from __future__ import annotations

import pytest
from capture_support import TODAY, make_agent, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, verdicts

from agentuse.core.agent_file import BlockRule, write_block
from agentuse.core.helper import protocol as p
from agentuse.core.helper.offline import OfflineHelper
from agentuse.core.learning import Category, Channel, Source, State
from agentuse.flows.remember import run_remember

APPLIED = "learning:\n  capture: true\n  apply: true\n  max: 15"


def run(agent, text, helper=None):
    return run_remember(agent=str(agent), text=text, helper=helper or OfflineHelper(), today=TODAY,
                            agent_arg="./blog.agentuse")


@pytest.fixture
def agent(tmp_path):
    path = make_agent(tmp_path / "p", APPLIED)
    path.write_text(write_block(path.read_text(), [
        BlockRule(category=Category.tip, text="Keep intros factual rather than promotional")]))
    return path


QUARANTINED = ('[Learning] Saved but quarantined "{title}": duplicates the learned block: "{rule}". It will not be '
               "injected; resolve the conflict in ./blog.agentuse or discard the rule.")


def test_a_note_restating_a_rule_in_the_learned_block_is_quarantined_naming_it(agent):
    # A person's duplicate is kept and shown, never dropped (issue 12): here, of a permanent rule.
    before = agent.read_text()
    result = run(agent, "Keep intros factual rather than promotional.")
    [kept] = stored(agent)
    assert (kept.state, kept.src) == (State.quarantined, Source.manual)
    assert kept.why == 'duplicates the learned block: "Keep intros factual rather than promotional"'
    assert result.lines == [QUARANTINED.format(title=kept.title, rule="Keep intros factual rather than promotional")]
    assert agent.read_text() == before


def test_a_model_vet_quoting_the_block_rule_is_read_the_same_way(agent):
    helper = ScriptedHelper(
        ground=[p.GroundAnswer(rule=p.Draft(title="Keep intros factual, never salesy"))],
        audit=[p.AuditAnswer()], reconcile=[p.ReconcileAnswer(action="new")],
        vet=[lambda r: verdicts(r, ("factual", "duplicate", "- [tip] Keep intros factual rather than promotional"))])
    result = run(agent, "intros should stay factual", helper)
    [kept] = stored(agent)
    assert kept.state is State.quarantined and kept.title == "Keep intros factual, never salesy"
    assert result.lines == [QUARANTINED.format(title="Keep intros factual, never salesy",
                                               rule="Keep intros factual rather than promotional")]


def test_a_note_restating_a_staged_graduated_copy_is_quarantined_and_counts_nothing(tmp_path):
    agent = make_agent(tmp_path / "p", APPLIED)
    seed(agent, [rule("a1b2c3d4", "Cite the source inline", src=Source.manual, ch=Channel.corrections,
                      state=State.graduated)])
    result = run(agent, "Always cite the source inline.")
    same, kept = stored(agent)
    assert (same.id, same.state, same.re) == ("a1b2c3d4", State.graduated, 0)
    assert kept.state is State.quarantined and kept.why == 'duplicates the learned block: "Cite the source inline"'
    assert result.lines == [QUARANTINED.format(title=kept.title, rule="Cite the source inline")]


def test_a_note_contradicting_a_permanent_rule_is_saved_quarantined_against_the_contract(agent):
    result = run(agent, "Make intros promotional rather than factual.")
    [kept] = stored(agent)
    assert kept.state is State.quarantined and kept.why.startswith("contradicts the contract")
    assert result.lines[0].startswith('[Learning] Saved but quarantined "Make intros promotional')
