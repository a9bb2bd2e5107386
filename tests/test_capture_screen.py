"""Before the vet (core/screen.py): candidates of one capture that say the same thing are vetted and
stored once, the other reported as a duplicate; a person's wording is the one kept, and a person's note
said twice is stored once with the repeat counted. A candidate with the text of a quarantined rule adds no
copy: a model's is rejected, a person's refreshes the quarantined entry."""

from __future__ import annotations

import pytest
from capture_support import TODAY, current_ih, make_agent, make_session, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, drafts, passing

from agentuse.core import cap, capture, store
from agentuse.core.capture_report import RevetSummary, build
from agentuse.core.helper import protocol as p
from agentuse.core.learning import Category, Channel, Source, State
from agentuse.core.screen import screen
from agentuse.flows.capture import run_capture
from agentuse.flows.remember import run_remember

CUSTOM_ONLY = """learning:
  capture:
    custom: Only capture rules about file paths and saving."""


@pytest.fixture
def agent(tmp_path):
    return make_agent(tmp_path / "p", CUSTOM_ONLY)


def capture_run(agent, helper):
    return run_capture(agent=str(agent), session=str(make_session(agent)), helper=helper, today=TODAY)


@pytest.mark.parametrize("twin", ["save posts under  POSTS/.", "Save posts under posts/"])
def test_two_candidates_of_one_batch_that_say_the_same_thing_are_stored_once(agent, twin):
    helper = ScriptedHelper(extract=[drafts("Save posts under posts/", twin, "Name files by date")], vet=[passing])
    report = capture_run(agent, helper)
    [request] = helper.requests["vet"]
    assert [c.text for c in request.candidates] == ["Save posts under posts/", "Name files by date"]
    assert [r.title for r in stored(agent)] == ["Save posts under posts/", "Name files by date"]
    assert report.line.startswith("Extracted 2 learning(s), 0 quarantined")
    assert (f'[Learning] 1 duplicate candidate(s) stored once: "{twin}" is the same as "Save posts under posts/" '
            "in this capture") in report.notes
    [dup] = [j for j in report.judged if j.disposition is capture.Disposition.duplicate]
    assert dup.candidate.draft.title == twin and dup.screened


def test_a_paraphrase_the_offline_evaluator_calls_a_duplicate_is_stored_once(agent):
    helper = ScriptedHelper(extract=[drafts("Keep intros short", "Keep intros brief", "Keep outros short")],
                            vet=[passing])
    capture_run(agent, helper)
    assert [r.title for r in stored(agent)] == ["Keep intros short", "Keep outros short"]


def _candidate(key, text, *, human):
    return capture.Candidate(key=key, channel=Channel.corrections if human else Channel.custom, human=human,
                             draft=p.Draft(category=Category.tip, title=text, body=text),
                             confidence=1.0 if human else 0.7)


def _store(agent, candidates):
    """screen -> vet (all pass) -> stamp -> write -> report: the capture pipeline's core calls."""
    screened = screen(candidates, store.load(store.locate(agent)).learnings)
    answer = p.VetAnswer(verdicts=[p.VetVerdict(id=c.key, verdict="pass") for c in screened.candidates])
    judged = [*capture.judge(screened.candidates, answer, contract="", rules=[]), *screened.settled]
    records = [capture.stamp(j, rule_id=f"0000000{i}", session="s", ih=None, today=TODAY)
               for i, j in enumerate((j for j in judged if j.stored), start=1)]
    written = cap.write(store.locate(agent), [cap.Incoming(record=r) for r in records], cap=15)
    return build(store_path="x.learnings.md", session=None, channels=[], failures={}, judged=judged,
                 vet_failure=None, write=written, revet=RevetSummary(), cap=15, model_calls=0)


def test_a_persons_note_said_twice_in_one_batch_is_stored_once_with_the_repeat_counted(agent):
    report = _store(agent, [_candidate("a", "Cite sources before publishing", human=True),
                            _candidate("b", "cite sources, before publishing.", human=True)])
    [rule] = stored(agent)
    assert (rule.title, rule.src, rule.re, rule.state) == ("Cite sources before publishing", Source.manual, 1,
                                                           State.active)
    assert [j.disposition for j in report.judged] == [capture.Disposition.active, capture.Disposition.duplicate]


def test_a_persons_wording_is_kept_over_a_models_and_two_paraphrased_notes_both_stay(agent):
    _store(agent, [_candidate("m", "Keep intros short", human=False),
                   _candidate("h", "Keep intros short.", human=True),
                   _candidate("h2", "Keep intros brief", human=True)])  # a person's words: text match only
    assert [(r.title, r.src, r.re) for r in stored(agent)] == [("Keep intros short.", Source.manual, 0),
                                                               ("Keep intros brief", Source.manual, 0)]


# ---------------------------------------------------------------- a candidate that is a quarantined rule

HELD_WHY = 'contradicts the contract: "Never publish without an approval gate"'


def _held(agent, src=Source.auto):
    seed(agent, [rule("aaaa0001", "Publish drafts without review", src=src, state=State.quarantined,
                      why=HELD_WHY, ih=current_ih(agent),
                      ch=Channel.corrections if src is Source.manual else Channel.custom)])


def test_a_models_candidate_equal_to_a_quarantined_rule_is_rejected_without_a_vet(agent):
    _held(agent)
    helper = ScriptedHelper(extract=[drafts("publish drafts without review.", "Save under posts/")], vet=[passing])
    report = capture_run(agent, helper)
    [request] = helper.requests["vet"]
    assert [c.text for c in request.candidates] == ["Save under posts/"]
    assert [(r.id, r.state, r.re) for r in stored(agent) if r.title.lower().startswith("publish")] == [
        ("aaaa0001", State.quarantined, 0)]
    assert report.line.startswith("Extracted 1 learning(s), 0 quarantined")
    assert ('[Learning] 1 candidate(s) already quarantined, not stored again: "publish drafts without review." '
            f"(id:aaaa0001: {HELD_WHY})") in report.notes


def test_a_persons_candidate_equal_to_a_quarantined_rule_refreshes_it(agent):
    _held(agent, src=Source.manual)
    report = _store(agent, [_candidate("h", "Publish drafts without review", human=True)])
    [held] = stored(agent)
    assert (held.id, held.state, held.re, held.date, held.why) == ("aaaa0001", State.quarantined, 1,
                                                                   TODAY.isoformat(), HELD_WHY)
    [judged] = report.judged
    assert judged.screened and judged.disposition is capture.Disposition.quarantined
    assert report.extracted == 0 and report.notes == [
        f'[Learning] Repeated a quarantined rule: "Publish drafts without review" (re:1, id:aaaa0001); '
        f"it stays set aside: {HELD_WHY}"]


def test_a_remembered_note_equal_to_a_quarantined_rule_refreshes_it(agent):
    _held(agent, src=Source.manual)
    helper = ScriptedHelper(ground=[p.GroundAnswer(rule=p.Draft(title="Publish drafts without review"))],
                            reconcile=[p.ReconcileAnswer(action=p.ReconcileAction.new)])
    result = run_remember(agent=str(agent), text="publish drafts without review", helper=helper,
                              today=TODAY, agent_arg="./blog.agentuse")
    [held] = stored(agent)
    assert (held.id, held.state, held.re, held.date) == ("aaaa0001", State.quarantined, 1, TODAY.isoformat())
    assert helper.count("vet") == 0  # already set aside with its reason: not vetted again
    assert result.lines == [
        f'[Learning] Repeated a quarantined rule: "Publish drafts without review" (re:1, id:aaaa0001): {HELD_WHY}. '
        "It will not be injected; resolve the conflict in ./blog.agentuse or discard the rule."]


@pytest.mark.parametrize("held, note", [
    ("Retry the upload when latency < 2 s", "Retry the upload when latency > 2 s"),
    ("Offset publish dates by -2 days", "Offset publish dates by +2 days"),
    ("Use 1.5 line spacing", "Use 1,5 line spacing"),
], ids=["less-greater", "minus-plus", "decimal"])
def test_a_note_that_flips_a_quarantined_rules_comparison_is_saved_as_a_rule_of_its_own(agent, held, note):
    """Case, spacing and punctuation do not make two rules different; a comparison, a sign or a decimal
    separator does. A person correcting a quarantined rule that way wrote a new rule: it is saved and
    vetted, never counted as a repeat of the rule it corrects (spec: human corrections are never dropped)."""
    seed(agent, [rule("aaaa0001", held, src=Source.manual, ch=Channel.corrections, state=State.quarantined,
                      why=HELD_WHY, ih=current_ih(agent))])
    helper = ScriptedHelper(ground=[p.GroundAnswer(rule=p.Draft(title=note))], vet=[passing],
                            reconcile=[p.ReconcileAnswer(action=p.ReconcileAction.new)])
    run_remember(agent=str(agent), text=note, helper=helper, today=TODAY, agent_arg="./blog.agentuse")
    assert helper.count("vet") == 1
    assert sorted((r.text, r.state.value, r.re) for r in stored(agent)) == sorted(
        [(held, "quarantined", 0), (note, "active", 0)])
