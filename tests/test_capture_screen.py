"""Before the vet (core/screen.py): candidates of one capture that say the same thing are vetted and
stored once, the other reported as a duplicate; a person's wording is the one kept, and a person's note
said twice is stored once with the repeat counted."""

from __future__ import annotations

import pytest
from capture_support import ScriptedHelper, TODAY, drafts, make_agent, make_session, passing, stored

from agentuse.core import cap, capture, store
from agentuse.core.helper import protocol as p
from agentuse.core.learning import Category, Channel, Source, State
from agentuse.core.screen import screen
from agentuse.flows.capture import capture_flow

CUSTOM_ONLY = """learning:
  capture:
    custom: Only capture rules about file paths and saving."""


@pytest.fixture
def agent(tmp_path):
    return make_agent(tmp_path / "p", CUSTOM_ONLY)


def capture_run(agent, helper):
    return capture_flow.fn(agent=str(agent), session=str(make_session(agent)), helper=helper, today=TODAY)


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
    """screen -> vet (all pass) -> stamp -> write, the capture pipeline's core calls."""
    screened = screen(candidates)
    answer = p.VetAnswer(verdicts=[p.VetVerdict(id=c.key, verdict="pass") for c in screened.candidates])
    judged = [*capture.judge(screened.candidates, answer, contract="", rules=[]), *screened.settled]
    records = [capture.stamp(j, rule_id=f"0000000{i}", session="s", ih=None, today=TODAY)
               for i, j in enumerate((j for j in judged if j.stored), start=1)]
    cap.write(store.locate(agent), [cap.Incoming(record=r) for r in records], cap=15)
    return judged


def test_a_persons_note_said_twice_in_one_batch_is_stored_once_with_the_repeat_counted(agent):
    judged = _store(agent, [_candidate("a", "Cite sources before publishing", human=True),
                            _candidate("b", "cite sources, before publishing.", human=True)])
    [rule] = stored(agent)
    assert (rule.title, rule.src, rule.re, rule.state) == ("Cite sources before publishing", Source.manual, 1,
                                                           State.active)
    assert [j.disposition for j in judged] == [capture.Disposition.active, capture.Disposition.duplicate]


def test_a_persons_wording_is_kept_over_a_models_and_two_paraphrased_notes_both_stay(agent):
    _store(agent, [_candidate("m", "Keep intros short", human=False),
                   _candidate("h", "Keep intros short.", human=True),
                   _candidate("h2", "Keep intros brief", human=True)])  # a person's words: text match only
    assert [(r.title, r.src, r.re) for r in stored(agent)] == [("Keep intros short.", Source.manual, 0),
                                                               ("Keep intros brief", Source.manual, 0)]
