"""What a person taught (a note, an edit) in a real `agentuse` process killed by strace at a chosen system
call, and then the same command or the next one run: it is there once, counted once, and the outcome is
said in one line that is true.

Each test first checks that the kill happened where it means (the process died by SIGKILL, and the files
show the state between the two writes it names), so none can pass because nothing was killed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from capture_support import make_agent, rule, seed
from strace_kills import KILLED, agentuse, killed_at, needs_strace, nth_call

from agentuse.core import store
from agentuse.core.learning import Channel, Learning, Source
from agentuse.core.store_format import StoreDoc
from agentuse.runtime.events import LearningResult
from agentuse.runtime.runner import start_run
from agentuse.runtime.summary import summarize

from .stores import AGENT_BODY

pytestmark = needs_strace

REPLIES = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"
AGENT = f"---\nmodel: anthropic:claude-sonnet-5\napproval: true\nlearning:\n  apply: true\n---\n\n{AGENT_BODY}"
RULE = Learning(id="a1b2c3d4", title="Keep intros factual",
                body="For informational posts, keep intros factual rather than promotional.",
                date="2026-08-01", src=Source.manual, ch=Channel.corrections)
REPEAT = "Keep intros factual for informational posts"  # the offline evaluator reads it as RULE said again


def _gate(tmp_path: Path, data_dir: Path, rule: Learning, agent: str = AGENT):
    """A run stopped at its approval gate, with `rule` in force; the state directory as it was."""
    text, agent = agent, tmp_path / "proj" / "blog-writer.agentuse"
    agent.parent.mkdir(parents=True)
    agent.write_text(text, encoding="utf-8")
    location = store.locate(agent)
    store.save(location, StoreDoc(name=location.name, agent=location.key, learnings=[rule]))
    result = start_run(agent, model=f"replay:{REPLIES}")
    assert result.status == "awaiting_review"
    saved = tmp_path / "state-before"
    shutil.copytree(data_dir, saved)

    def put_back() -> None:
        shutil.rmtree(data_dir)
        shutil.copytree(saved, data_dir)

    return location, result.session_id, Path(result.session_file), put_back


def _results(log: Path) -> list[str]:
    return [e.line for e in summarize(log).events if isinstance(e, LearningResult)]


def _re(location: store.AgentLocation) -> int:
    [rule] = store.load(location).learnings
    return rule.re


def test_a_resume_whose_note_repeated_a_rule_killed_before_its_result_line_counts_the_repeat_once(tmp_path, data_dir):
    location, session, log, put_back = _gate(tmp_path, data_dir, RULE)
    resume = ("sessions", "resume", session, "--approve", "--remember", REPEAT)
    at = nth_call(tmp_path, "write", *resume, touching=log.name, holding="learning_result")
    put_back()
    first = agentuse(*resume, before=killed_at("write", at), check=False)
    assert first.returncode in KILLED, (first.stdout, first.stderr)
    assert _re(location) == 1 and _results(log) == [], "killed after the repeat was stored, before its line"

    again = agentuse(*resume)
    assert _re(location) == 1, "the repeat was counted a second time"
    assert _results(log) == ['[Learning] Repeated an earlier rule: "Keep intros factual" (re:1, id:a1b2c3d4)']
    assert summarize(log).status == "completed"
    assert "Traceback" not in again.stdout + again.stderr


EDITED = ("#!/bin/sh\nsed -i -e 's/Use bullet lists for steps/Use numbered lists for steps/' "
          "-e '/Mention the reading time/d' -e '/bbbb2222/d' \"$1\"\n")


def test_a_resume_whose_note_replaced_a_rule_killed_before_its_result_lines_still_says_it_replaced_it(
        tmp_path, data_dir):
    """Spec: "[Learning] Replaced an earlier rule: ..." is how a person learns their note took a rule out of
    force. The re-run found the saved rule and said only that it was saved."""
    sharpened = RULE.model_copy(update={"body": ""})  # the note sharpens it: the offline evaluator folds the two
    location, session, log, put_back = _gate(tmp_path, data_dir, sharpened)
    resume = ("sessions", "resume", session, "--approve", "--remember", "Keep intros factual rather than promotional")
    at = nth_call(tmp_path, "write", *resume, touching=log.name, holding="learning_result")
    lines = _results(log)
    assert lines[0] == '[Learning] Replaced an earlier rule: "Keep intros factual" (archived, id:a1b2c3d4)', lines
    put_back()
    first = agentuse(*resume, before=killed_at("write", at), check=False)
    assert first.returncode in KILLED, (first.stdout, first.stderr)
    assert _results(log) == [] and [r.id for r in store.load_archive(location).learnings] == ["a1b2c3d4"]

    agentuse(*resume)
    [saved] = store.load(location).learnings
    assert _results(log) == ['[Learning] Replaced an earlier rule: "Keep intros factual" (archived, id:a1b2c3d4)',
                             f'[Learning] Saved "{saved.title}" (id:{saved.id})']
    assert [r.id for r in store.load_archive(location).learnings] == ["a1b2c3d4"]


def test_a_note_whose_fold_was_killed_after_archiving_names_the_rule_that_carries_it_when_given_again(
        tmp_path, data_dir):
    """The archive says which rule a folded one went into, and an approval of a run it was in force for
    credits that rule. Given again after a kill between the archive and the store, the note's new rule drew a
    fresh id, and the archive (which keeps its first copy) named one that never reached the store: the vote
    went nowhere."""
    from agentuse.core.store_merge import carried_by
    from strace_kills import killed_at_rename

    sharpened = RULE.model_copy(update={"body": ""})
    location, session, log, _ = _gate(tmp_path, data_dir, sharpened)  # a run with that rule in force
    note = ("learnings", "add", location.agent_path, "Keep intros factual rather than promotional")
    first = agentuse(*note, before=killed_at_rename(2), check=False)  # the archive (1), then the store (2)
    assert first.returncode in KILLED, (first.stdout, first.stderr)
    assert [r.id for r in store.load(location).learnings] == ["a1b2c3d4"]
    [archived] = store.load_archive(location).learnings
    assert archived.id == "a1b2c3d4", "killed with the rule in both files"

    again = agentuse(*note)
    assert 'Replaced an earlier rule: "Keep intros factual"' in again.stdout
    [now] = store.load(location).learnings
    [archived] = store.load_archive(location).learnings
    assert carried_by(archived) == now.id, (archived.why, now.id)

    agentuse("sessions", "resume", session, "--approve")
    [credited] = store.load(location).learnings
    assert (credited.id, credited.ok) == (now.id, 1), "the approval's vote reached the rule carrying it"


def test_an_approval_killed_before_its_capture_was_stored_captures_the_run_when_run_again(tmp_path, data_dir):
    """The approval completes the run and its capture (here the tool-errors channel) learns from it. Killed
    after the run's end was logged and before the capture's rule was stored, the same resume run again said
    'only a session awaiting review can be resumed', and the run was never captured."""
    location, session, log, put_back = _gate(tmp_path, data_dir, rule("bbbb2222", "Mention the reading time at the top"),
                                      agent=AGENT.replace("  apply: true", "  capture:\n    addons: [tool-errors]\n"
                                                                           "  apply: true"))
    resume = ("sessions", "resume", session, "--approve")
    at = nth_call(tmp_path, "write", *resume, touching=f"{location.store_path.parent}/.", holding="tool-errors")
    put_back()
    first = agentuse(*resume, before=killed_at("write", at), check=False)
    assert first.returncode in KILLED, (first.stdout, first.stderr)
    assert summarize(log).status == "completed" and _results(log) == []
    assert [r.ch for r in store.load(location).learnings] == [Channel.custom], "killed before the capture's write"

    again = agentuse(*resume)
    assert "Traceback" not in again.stdout + again.stderr
    rules = store.load(location).learnings
    assert sorted(r.ch.value for r in rules) == ["custom", "tool-errors"], again.stdout + again.stderr
    assert [r.ok for r in rules if r.id == "bbbb2222"] == [1], "the approval credited once"
    assert any(line.startswith("Extracted 1 learning(s)") for line in _results(log)), _results(log)


def test_an_edit_killed_after_it_was_saved_is_not_called_unsaved_by_the_next_edit(tmp_path, monkeypatch):
    agent = make_agent(tmp_path / "p", "learning:\n  apply: true")
    stamped = rule("aaaa1111", "Use bullet lists for steps", ih="0123456789ab")  # reworded: saved unstamped
    location = seed(agent, [stamped, rule("bbbb2222", "Mention the reading time at the top")])
    editor = tmp_path / "edit.sh"
    editor.write_text(EDITED)
    editor.chmod(0o755)
    monkeypatch.setenv("EDITOR", str(editor))
    edit = ("learnings", agent, "--edit")
    at = nth_call(tmp_path, "unlink", *edit, touching=f"{location.project_dir}/edits/")
    shutil.rmtree(location.project_dir / "edits")
    seed(agent, [stamped, rule("bbbb2222", "Mention the reading time at the top")])
    location.archive_path.unlink()
    first = agentuse(*edit, before=killed_at("unlink", at), check=False)
    assert first.returncode in KILLED, (first.stdout, first.stderr)
    assert [(r.title, r.ih) for r in store.load(location).learnings] == [("Use numbered lists for steps", None)], \
        "the edit is saved"
    [left] = (location.project_dir / "edits").iterdir()  # killed before its copy was removed

    monkeypatch.setenv("EDITOR", "true")  # opened and closed, nothing changed
    again = agentuse(*edit)
    assert "never saved" not in again.stderr, again.stderr
    assert f"held nothing {location.store_path} does not (it was saved, or never changed): removed {left}" \
        in again.stderr, again.stderr
    assert not left.exists() and list((location.project_dir / "edits").iterdir()) == []
    assert [r.title for r in store.load(location).learnings] == ["Use numbered lists for steps"]


def test_an_undo_killed_part_way_and_run_again_finishes_that_undo_and_undoes_no_other_pass(tmp_path):
    from tidy_scenario import install

    from agentuse.core import snapshots

    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    agentuse("learnings", "tidy", agent)  # graduates rules into the agent file
    after_first = agent.read_bytes(), location.store_path.read_bytes()
    agentuse("learnings", "tidy", agent)  # a second pass, newest: the one an undo takes back
    [newest, older] = snapshots.listing(location)
    saved = tmp_path / "saved"
    shutil.copytree(location.project_dir, saved / "state")
    shutil.copy2(agent, saved / "agent")

    def put_back() -> None:
        shutil.rmtree(location.project_dir)
        shutil.copytree(saved / "state", location.project_dir)
        shutil.copy2(saved / "agent", agent)

    at = nth_call(tmp_path, "rename", "learnings", "undo", agent, touching=str(location.store_path))
    put_back()
    first = agentuse("learnings", "undo", agent, before=killed_at("rename", at), check=False)
    assert first.returncode in KILLED, (first.stdout, first.stderr)
    marked = {s.folder.name: s.manifest.undoing for s in snapshots._all(location)}
    assert marked == {newest.folder.name: True, older.folder.name: False}, "killed after marking it undoing"

    again = agentuse("learnings", "undo", agent)
    assert again.stdout.startswith(f"Finished the undo of the {newest.manifest.kind} of {newest.manifest.created}"), \
        again.stdout
    assert "nothing else was undone" in again.stdout
    assert (agent.read_bytes(), location.store_path.read_bytes()) == after_first, "the first tidy-up was undone too"
    assert [s.folder.name for s in snapshots.listing(location)] == [older.folder.name]


def test_a_graduating_tidy_up_killed_at_its_store_write_is_rolled_back_by_the_next_command_which_says_so(tmp_path):
    from tidy_scenario import install

    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    before = agent.read_bytes(), location.store_path.read_bytes(), location.archive_path.exists()
    tidy = ("learnings", "tidy", agent)
    at = nth_call(tmp_path, "rename", *tidy, touching=str(location.store_path))
    shutil.rmtree(location.project_dir)
    install(tmp_path / "proj", store.locate)  # the agent file and the store as they were
    assert (agent.read_bytes(), location.store_path.read_bytes(), location.archive_path.exists()) == before

    first = agentuse(*tidy, before=killed_at("rename", at), check=False)
    assert first.returncode in KILLED, (first.stdout, first.stderr)
    assert agent.read_bytes() != before[0] and location.store_path.read_bytes() == before[1], \
        "killed with the block written and the store not"

    listed = agentuse("learnings", agent)
    notes = [line for line in listed.stderr.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "was cut short before it was written in full: rolled back, none of it is in force" \
        in notes[0], listed.stderr
    assert (agent.read_bytes(), location.store_path.read_bytes(), location.archive_path.exists()) == before
    assert "note:" not in agentuse("learnings", agent).stderr
