"""A command that finds a tidy-up or an undo cut short by a crash settles it, and says in one line what it did:
the person whose command died saw no outcome, and must not have to guess whether the pass happened."""

from __future__ import annotations

from datetime import date

import pytest
from tidy_scenario import Scenario, install, killed_writing
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import snapshots, store
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)


@pytest.fixture
def agent(tmp_path):
    return install(tmp_path, store.locate)


def _next_command(agent) -> str:
    result = CliRunner().invoke(app, ["learnings", str(agent)])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result.stderr


def _created(location) -> str:
    [snapshot] = snapshots._all(location)
    return snapshot.manifest.created


def test_a_tidy_up_cut_short_before_its_store_was_written_is_rolled_back_and_said_so(agent, monkeypatch):
    location = store.locate(agent)
    before = agent.read_bytes(), location.store_path.read_bytes()
    with pytest.raises(KeyboardInterrupt), killed_writing(location.store_path, monkeypatch):
        run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    created = _created(location)
    assert agent.read_bytes() != before[0], "killed after writing the agent file, before the store"

    said = _next_command(agent)
    assert (agent.read_bytes(), location.store_path.read_bytes()) == before
    assert said.count("note:") == 1 and (
        f"note: the tidy-up of {created} was cut short before it was written in full: rolled back, none of it "
        "is in force") in said, said
    assert "note:" not in _next_command(agent), "said once, by the command that settled it"


def test_a_tidy_up_cut_short_after_writing_both_files_stands_and_is_said_so(agent, monkeypatch):
    location = store.locate(agent)
    real_write = store.atomic_write

    def dies_marking_complete(target, text, **options):
        if target.name == snapshots.MANIFEST and '"complete": true' in text:
            raise KeyboardInterrupt("killed")
        real_write(target, text, **options)

    monkeypatch.setattr(store, "atomic_write", dies_marking_complete)
    with pytest.raises(KeyboardInterrupt):
        run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    monkeypatch.setattr(store, "atomic_write", real_write)
    created = _created(location)
    after = agent.read_bytes(), location.store_path.read_bytes()

    said = _next_command(agent)
    assert (agent.read_bytes(), location.store_path.read_bytes()) == after
    assert (f"note: the tidy-up of {created} was cut short after it had written both files: it stands "
            f"(agentuse learnings undo {location.agent_path} takes it back)") in said, said
    assert [s.manifest.created for s in snapshots.listing(location)] == [created]


def test_an_undo_cut_short_is_finished_by_the_next_command_and_said_so(agent, monkeypatch):
    location = store.locate(agent)
    before = agent.read_bytes(), location.store_path.read_bytes()
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    created = _created(location)
    with pytest.raises(KeyboardInterrupt), killed_writing(location.store_path, monkeypatch):
        snapshots.undo(location)
    assert agent.read_bytes() == before[0] and location.store_path.read_bytes() != before[1], "half undone"

    said = _next_command(agent)
    assert (agent.read_bytes(), location.store_path.read_bytes()) == before
    assert f"note: finished the undo of the tidy-up of {created}, which was cut short" in said, said
    assert snapshots.listing(location) == []


def test_an_undo_after_a_tidy_up_cut_short_undoes_no_earlier_pass(agent, monkeypatch):
    """The person runs undo to be rid of the tidy-up that died: it is rolled back already, so the undo says so
    and stops; the pass before it (here a graduating tidy-up) stays."""
    location = store.locate(agent)
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    [first] = snapshots.listing(location)
    after_first = agent.read_bytes(), location.store_path.read_bytes()
    location.store_path.write_text(location.store_path.read_text(encoding="utf-8") + SECOND_RULE, encoding="utf-8")
    grown = location.store_path.read_bytes()
    with pytest.raises(KeyboardInterrupt), killed_writing(location.store_path, monkeypatch):
        run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    cut_short = next(s for s in snapshots._all(location) if not s.manifest.settled)

    result = CliRunner().invoke(app, ["learnings", "undo", str(agent)])
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    assert result.stdout.startswith(f"The tidy-up of {cut_short.manifest.created}") and \
        "is rolled back: none of it is in force. Nothing else was undone." in result.stdout, result.stdout
    assert "note:" not in result.stderr, "said once"
    assert (agent.read_bytes(), location.store_path.read_bytes()) == (after_first[0], grown)
    assert [s.folder for s in snapshots.listing(location)] == [first.folder]


SECOND_RULE = """
### [tip] Use numbered lists for steps
<!-- id:5eed5eed | injected:0 | src:auto | ch:custom | 2026-11-01 -->
"""
