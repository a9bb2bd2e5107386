"""Provisional vets (issue 16, item 3): a rule the offline evaluator vetted says so (`vet:offline`); once a
real model serves helper calls, the next capture or tidy-up re-vets it as it re-vets stale rules, and undo
covers that pass. With the offline evaluator it is not asked again. `learnings`, `--json` and doctor count
them."""

from __future__ import annotations

import json

import pytest
from capture_support import TODAY, UPLOAD_FAIL, current_ih, make_agent, make_session, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, drafts, verdicts
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store, tidy_report
from agentuse.core.helper.factory import OFFLINE, override_helper
from agentuse.core.learning import VET_OFFLINE, Channel, Source, State
from agentuse.core.store_merge import MergeConflict, merge
from agentuse.flows.capture import run_capture
from agentuse.flows.tidy import run_tidy

LINE = "1 vetted offline, re-vetted when a model is configured"
NOTE = "Keep intros factual for informational posts"
CUSTOM_ONLY = """learning:
  capture:
    custom: Only capture rules about file paths and saving.
  max: 15"""
runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def provisional(agent, rule_id: str, title: str, **kw):
    """A rule the offline evaluator vetted against the current instructions (not stale)."""
    return rule(rule_id, title, ih=current_ih(agent), vet=VET_OFFLINE, **kw)


class OfflineNamed(ScriptedHelper):
    """Scripted answers under the offline evaluator's name: what the flows key provisional vets on."""

    name = OFFLINE


# ---------------------------------------------------------------- the offline evaluator, through the CLI


def test_a_note_added_offline_is_stored_provisional_and_counted_everywhere(tmp_path):
    agent = make_agent(tmp_path / "p", "learning: true")  # no key: the offline evaluator vets
    added = invoke("learnings", "add", agent, NOTE)
    assert added.exit_code == 0, added.output
    [saved] = stored(agent)
    assert saved.state is State.active and saved.provisional
    assert "| vet:offline |" in store.locate(agent).store_path.read_text()

    report = json.loads(invoke("learnings", agent, "--json").output)
    assert report["provisional"] == 1
    assert report["entries"][0]["record"]["vet"] == "offline"
    listing = invoke("learnings", agent).output
    assert LINE in listing and "vetted offline" in listing.split("\n")[2]  # the rule's own meta line too
    assert LINE in invoke("doctor", agent).output


def test_a_stale_rule_re_vetted_offline_becomes_provisional_and_a_tool_errors_record_never_does(tmp_path):
    agent = make_agent(tmp_path / "p", "learning: true")
    seed(agent, [rule("aaaa0001", "Save each post as markdown under posts/", ih="0ldc0ntract0"),
                 rule("aaaa0002", "upload: use a project-relative path", ch=Channel.tool_errors,
                      ih="0ldc0ntract0", tool="upload", sig="upload:path")])
    result = invoke("learnings", "tidy", agent)
    assert result.exit_code == 0, result.output
    by_id = {r.id: r for r in stored(agent)}
    assert by_id["aaaa0001"].ih == current_ih(agent) and by_id["aaaa0001"].provisional
    assert by_id["aaaa0002"].ih == current_ih(agent) and not by_id["aaaa0002"].provisional
    # The offline evaluator does not ask itself again: no loop, nothing written.
    before = store.locate(agent).store_path.read_bytes()
    assert invoke("learnings", "tidy", agent).output.endswith("Nothing to tidy up\n")
    assert store.locate(agent).store_path.read_bytes() == before


def test_capture_stamps_what_an_offline_vet_passed_and_never_a_tool_errors_record(tmp_path):
    agent = make_agent(tmp_path / "p")  # custom + tool-errors
    helper = OfflineNamed(extract=[drafts("Save posts under posts/ as markdown")], vet=[verdicts])
    run_capture(agent=str(agent), session=str(make_session(agent, UPLOAD_FAIL)), helper=helper, today=TODAY)
    by_channel = {r.ch: r for r in stored(agent)}
    assert by_channel[Channel.custom].provisional
    assert by_channel[Channel.tool_errors].vet is None
    # The next capture, offline again, re-vets none of them (a vet call would fail: none is scripted).
    before = store.locate(agent).store_path.read_bytes()
    again = OfflineNamed(extract=[drafts()])
    run_capture(agent=str(agent), session=str(make_session(agent, session_id="01K8ZCAPTURE0000000000000B")),
                helper=again, today=TODAY)
    assert again.count("vet") == 0 and store.locate(agent).store_path.read_bytes() == before


# ---------------------------------------------------------------- a real model re-vets them, and undo covers it


def test_the_next_tidy_with_a_model_re_vets_provisional_rules_and_undo_puts_the_marks_back(tmp_path):
    agent = make_agent(tmp_path / "p", "learning: true")
    location = seed(agent, [provisional(agent, "aaaa0001", NOTE, src=Source.manual, ch=Channel.corrections),
                            provisional(agent, "aaaa0002", "Publish drafts without review"),
                            rule("aaaa0003", "Start every post with a question", ih=current_ih(agent))])
    before = location.store_path.read_bytes()
    helper = ScriptedHelper(vet=[lambda r: verdicts(
        r, ("Publish", "contradiction", "Never publish without an approval gate"))])
    result = run_tidy(agent, helper=helper, today=TODAY)
    assert result.written
    [request] = helper.requests["vet"]
    assert sorted(c.id for c in request.candidates) == ["aaaa0001", "aaaa0002"]  # not the model-vetted one
    by_id = {r.id: r for r in stored(agent)}
    assert by_id["aaaa0001"].state is State.active and by_id["aaaa0001"].vet is None
    assert by_id["aaaa0002"].state is State.quarantined and by_id["aaaa0002"].vet is None
    assert json.loads(invoke("learnings", agent, "--json").output)["provisional"] == 0
    lines = tidy_report.render(result)
    assert "  1 learning(s) vetted offline re-vetted by the model and confirmed." in lines
    assert not any("stale" in line for line in lines)  # they were in force all along

    undone = invoke("learnings", "undo", agent)
    assert undone.exit_code == 0, undone.output
    assert location.store_path.read_bytes() == before


def test_the_next_capture_with_a_model_re_vets_provisional_rules_as_one_undo(tmp_path):
    agent = make_agent(tmp_path / "p", CUSTOM_ONLY)
    location = seed(agent, [provisional(agent, "aaaa0001", NOTE, src=Source.manual, ch=Channel.corrections),
                            provisional(agent, "aaaa0002", "Keep a quarantined note aside",
                                        state=State.quarantined, why="contradicts the contract: \"x\"")])
    before = location.store_path.read_bytes()
    helper = ScriptedHelper(extract=[drafts()], vet=[verdicts])
    report = run_capture(agent=str(agent), session=str(make_session(agent)), helper=helper, today=TODAY)
    assert helper.count("vet") == 1
    by_id = {r.id: r for r in stored(agent)}
    assert by_id["aaaa0001"].vet is None and by_id["aaaa0001"].state is State.active
    assert by_id["aaaa0002"].vet is None and by_id["aaaa0002"].state is State.active  # a model released it
    assert ("[Learning] Re-vetted 1 learning(s) the offline evaluator had vetted: 1 confirmed, "
            "0 quarantined.") in report.notes

    undone = invoke("learnings", "undo", agent)
    assert undone.exit_code == 0, undone.output
    assert undone.output.startswith("Undid the capture re-vet of ")
    assert location.store_path.read_bytes() == before


def test_restore_marks_an_offline_vet_and_a_model_s_vet_clears_the_archived_mark(tmp_path):
    agent = make_agent(tmp_path / "p", "learning: true")
    seed(agent, [rule("aaaa0001", "Cite the primary source for every statistic", ih=current_ih(agent),
                      src=Source.manual, ch=Channel.corrections)])
    assert invoke("learnings", "discard", agent, "aaaa0001").exit_code == 0
    restored = invoke("learnings", "restore", agent, "aaaa0001")  # no key: the offline evaluator vets
    assert restored.exit_code == 0, restored.output
    [back] = stored(agent)
    assert back.state is State.active and back.provisional

    assert invoke("learnings", "discard", agent, "aaaa0001").exit_code == 0  # archived with its mark
    with override_helper(ScriptedHelper(vet=[verdicts])):
        assert invoke("learnings", "restore", agent, "aaaa0001").exit_code == 0
    [back] = stored(agent)
    assert back.state is State.active and back.vet is None


def test_a_re_vet_that_cleared_the_mark_meanwhile_is_an_edit_a_rewrite_must_not_overwrite(tmp_path):
    """A tidy-up (or `--edit`) that rewrote a rule while a capture's model re-vet confirmed it: committing
    the rewrite would put `vet:offline` back over the model's verdict, so it is a conflict, as a re-stamp is."""
    agent = make_agent(tmp_path / "p", "learning: true")
    start = provisional(agent, "aaaa0001", NOTE)
    rewritten = start.model_copy(update={"title": "Keep intros factual"})
    confirmed = start.model_copy(update={"vet": None})
    with pytest.raises(MergeConflict):
        merge([start], [rewritten], [confirmed])
