"""Model faults at every model-judged step, through the Anthropic helper against the fake Messages API.

For each step and each fault (timeout, 529 storm, malformed answer, ids that do not exist, a rule left
out): the step's documented outcome, the command still finishes, and nothing a person wrote is lost.
"""

from __future__ import annotations

from datetime import date

import pytest
from capture_support import CUSTOM, UPLOAD_FAIL, make_agent, make_session, rule, seed
from fakes.scripted_helper import ScriptedHelper, passing
from tidy_scenario import ROLES, Scenario, install

from agentuse.core import store
from agentuse.core.helper import protocol as p
from agentuse.core.learned_block import read_block
from agentuse.core.learning import Channel, Source, State
from agentuse.flows.capture import run_capture
from agentuse.flows.remember import run_remember
from agentuse.flows.tidy import run_tidy

from .faults import FAULTS, FaultyAnthropic

TODAY = date(2026, 11, 30)
FAILS = ("timeout", "storm", "malformed")  # the call yields no usable answer at all


def _ids(learnings) -> set[str]:
    return {r.id for r in learnings}


# ---------------------------------------------------------------- tidy-up

TIDY_NOTES = {
    "vet": "could not be re-vetted",
    "plan_groups": "could not be planned",
    "rewrite_group": "not written",
    "audit": "the audit failed",
}


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("operation", ["vet", "plan_groups", "rewrite_group", "audit", "rewrite_block"])
def test_tidy_survives_a_faulty_model_at_every_step(fake_anthropic, tmp_path, operation, fault):
    (tmp_path / "proj").mkdir()
    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    before = store.load(location).learnings
    block_before = read_block(agent.read_text())
    helper = FaultyAnthropic(fake_anthropic, Scenario().helper(), operation=operation, fault=fault)
    try:
        result = run_tidy(agent, helper=helper, today=TODAY, seed=7)
    finally:
        helper.close()
    assert helper.faulted, "the faulty step was never reached"

    # Nothing may vanish: every rule is still in the store or in the archive, every block rule in the block.
    after, archived = store.load(location).learnings, store.load_archive(location).learnings
    assert _ids(before) <= _ids(after) | _ids(archived)
    humans = {r.id for r in before if r.is_human}
    assert humans <= _ids(after) | _ids(archived)
    block_after = [r.text for r in read_block(agent.read_text()) or []]
    assert all(rule.text in block_after for rule in block_before)

    stale = [ROLES["Q1"], ROLES["Q2"]]
    by_id = {r.id: r for r in after}
    if operation == "vet" and fault != "drop_rule":
        # No verdict: the stale rules are neither re-stamped nor quarantined, and stay held out.
        assert all(by_id[i].state is State.active and by_id[i].ih == r.ih for i in stale
                   for r in before if r.id == i)
    if fault in FAILS and operation in TIDY_NOTES:
        assert any(TIDY_NOTES[operation] in note for note in result.notes), result.notes
    if operation in ("plan_groups", "rewrite_group") and fault in (*FAILS, "unknown_ids"):
        assert result.counts.merged == 0  # no move, or no wording that claims its originals
    if operation == "audit" and fault in FAILS:
        assert result.counts.merged == 0 and result.counts.rewritten == 0  # unaudited wording is not applied
    if operation == "rewrite_block":
        assert result.block_discarded  # the whole rewrite discarded, the block left as it was
        assert "permanent block" in result.block_discarded


# ---------------------------------------------------------------- remembering a reviewer's note

NOTE = "Always include source links before publishing."


def _remember_truth() -> ScriptedHelper:
    return ScriptedHelper(
        ground=lambda r: p.GroundAnswer(rule=p.Draft(category="tip", title="Include source links", body=NOTE)),
        reconcile=lambda r: p.ReconcileAnswer(action="new"),
        vet=lambda r: p.VetAnswer(verdicts=[p.VetVerdict(id=c.id, verdict="pass") for c in r.candidates]),
        audit=lambda r: p.AuditAnswer(),  # the gate's audit of the grounded rule
    )


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("operation", ["ground", "audit", "reconcile", "vet"])
def test_a_reviewers_note_is_saved_whatever_the_model_does(fake_anthropic, tmp_path, operation, fault):
    agent = make_agent(tmp_path / "proj", CUSTOM.format(max=3))
    existing = [rule(f"{i:08x}", f"Existing rule {i}", src=Source.manual, ch=Channel.corrections)
                for i in range(3)]  # a full set of human rules: nothing can be traded away
    location = seed(agent, existing)
    helper = FaultyAnthropic(fake_anthropic, _remember_truth(), operation=operation, fault=fault)
    try:
        run_remember(agent=str(agent), text=NOTE, helper=helper, today=TODAY)
    finally:
        helper.close()
    assert helper.faulted
    after, archived = store.load(location).learnings, store.load_archive(location).learnings
    saved = [r for r in after if r.is_human and ("source links" in r.text.lower())]
    assert saved, f"the note was lost: {[r.text for r in after]}"
    assert saved[0].state in (State.active, State.quarantined)
    assert _ids(existing) <= _ids(after) | _ids(archived)  # no correction of theirs lost either


# ---------------------------------------------------------------- capture after a run

OBSERVATION = p.Draft(category="tip", title="Save posts under posts/", body="Save every post under posts/.")


def _capture_truth() -> ScriptedHelper:
    return ScriptedHelper(extract=lambda r: p.ExtractAnswer(candidates=[OBSERVATION]), vet=passing,
                          reconcile=lambda r: p.ReconcileAnswer(action="new"))


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("operation", ["extract", "vet", "reconcile"])
def test_capture_fails_closed_for_observations_and_keeps_every_correction(fake_anthropic, tmp_path, operation,
                                                                           fault):
    agent = make_agent(tmp_path / "proj", CUSTOM.format(max=4))
    humans = [rule(f"{i:08x}", f"Correction {i}", src=Source.approval, ch=Channel.corrections) for i in range(3)]
    location = seed(agent, [*humans, rule("0000aaaa", "An older observation")])  # full: reconcile is asked
    session = make_session(agent, UPLOAD_FAIL)
    helper = FaultyAnthropic(fake_anthropic, _capture_truth(), operation=operation, fault=fault)
    try:
        report = run_capture(agent=str(agent), session=str(session), helper=helper, today=TODAY)
    finally:
        helper.close()
    assert helper.faulted
    after, archived = store.load(location).learnings, store.load_archive(location).learnings
    assert _ids(humans) <= _ids(after)  # corrections are never evicted, whatever the model said
    assert "0000aaaa" in _ids(after) | _ids(archived)
    # The structural channel needs no model: its record was captured whatever happened to the others (in a
    # full set the observation, when it is stored, may trade it away: it is then archived, not lost).
    assert any(r.ch is Channel.tool_errors for r in after + archived), report.lines
    observed = [r for r in after if r.title == OBSERVATION.title]
    if operation in ("extract", "vet") and fault in FAILS:
        assert not observed, "an observation with no vet behind it was stored"
    if operation == "vet" and fault in ("unknown_ids", "drop_rule"):
        assert not observed  # no verdict for it: fails closed
