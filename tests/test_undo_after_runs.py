"""A run after a tidy-up does not make it impossible to undo (spec: Storage, "Every run rewrites this file
... injecting a learning updates its counters"; Tidying up, undoable "for as long as it is undoable").

Undo puts back the rules from before the tidy-up with the counts runs recorded since carried onto them;
anything else changed since (a person's edit, a capture's rule, a rule discarded) still refuses."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import pytest
from tidy_scenario import MERGED, ROLES, Scenario, install, killed_writing
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import snapshots, store
from agentuse.core.discard import discard
from agentuse.core.helper.factory import override_helper
from agentuse.core.inject import credit_approval, record_injection
from agentuse.core.snapshots import UndoError
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)
RECORDING = Path(__file__).resolve().parents[1] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"
runner = CliRunner()
CLUSTERS = {name: [rule_id for role, rule_id in ROLES.items() if role[0] == name] for name in MERGED}
CLUSTER_A = CLUSTERS["A"]


@pytest.fixture
def agent(tmp_path):
    return install(tmp_path, store.locate)


def _rules(location):
    return {r.id: r for r in store.load(location).learnings}


def _merged(location, cluster):
    [rule] = [r for r in store.load(location).learnings if r.title == MERGED[cluster].title]
    return rule


def _merged_a(location):
    return _merged(location, "A")


def test_a_run_after_the_tidy_up_is_undone_with_it_and_its_counts_are_kept(agent, monkeypatch):
    """The reviewer's steps through the CLI: tidy, one replayed run (it only counts its injections), undo."""
    location = store.locate(agent)
    monkeypatch.chdir(agent.parent)
    (agent.parent / "posts").mkdir()
    original_agent, original = agent.read_bytes(), _rules(location)
    with override_helper(Scenario().helper()):
        assert runner.invoke(app, ["learnings", "tidy", str(agent)]).exit_code == 0
    tidied = _rules(location)
    run = runner.invoke(app, ["run", str(agent), "Write a post", "--model", f"replay:{RECORDING}"])
    assert run.exit_code == 0, (run.stdout, run.stderr)
    counted = {rule_id for rule_id, rule in _rules(location).items() if rule.injected > tidied[rule_id].injected}
    merged = {cluster: _merged(location, cluster).id for cluster in CLUSTERS}
    assert merged["A"] in counted and ROLES["S1"] in counted  # a merged rule and one the tidy-up left alone

    undone = runner.invoke(app, ["learnings", "undo", str(agent)])
    assert undone.exit_code == 0, undone.output
    assert undone.output.startswith("Undid the tidy-up of ")
    assert f"  restored {location.store_path}: {snapshots.CARRIED}\n" in undone.output
    assert agent.read_bytes() == original_agent
    now = _rules(location)
    assert list(now) == list(original)  # every rule from before, in its place
    for rule_id, rule in now.items():
        was = original[rule_id]
        assert rule.model_copy(update={"injected": was.injected}) == was  # nothing but the count changed
        # The run's injection, on the rule itself, or on every rule the tidy-up had merged into what it counted.
        ran = rule_id in counted or any(rule_id in ids and merged[c] in counted for c, ids in CLUSTERS.items())
        assert rule.injected == was.injected + ran, rule.title
    assert snapshots.listing(location) == []
    assert not location.archive_path.exists()  # the tidy-up created it; undo takes its entries back out


def test_approvals_and_injections_on_merged_and_kept_rules_land_on_the_rules_put_back(agent):
    location = store.locate(agent)
    original = _rules(location)
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    merged = _merged_a(location).id
    for _ in range(2):
        record_injection(location, [merged, ROLES["S1"]])
    credit_approval(location, [merged, ROLES["S2"]])

    assert snapshots.blockers(location, snapshots.latest(location)) == []  # the web UI still offers the undo
    snapshots.undo(location)
    now = _rules(location)
    for rule_id in CLUSTER_A:
        assert (now[rule_id].injected, now[rule_id].ok) == (original[rule_id].injected + 2, original[rule_id].ok + 1)
    assert now[ROLES["S1"]].injected == original[ROLES["S1"]].injected + 2
    assert now[ROLES["S2"]].ok == original[ROLES["S2"]].ok + 1
    untouched = set(original) - set(CLUSTER_A) - {ROLES["S1"], ROLES["S2"]}
    assert all(now[i] == original[i] for i in untouched)
    assert merged not in now


def _change(location, rule_id, **fields):
    doc = store.load(location)
    store.save(location, doc.model_copy(update={"learnings": [
        r.model_copy(update=fields) if r.id == rule_id else r for r in doc.learnings]}))


def _edit_a_rule(location, agent):
    _change(location, ROLES["S1"], body="Titles: 50 characters at most.")


def _add_a_rule(location, agent):
    doc = store.load(location)
    extra = doc.learnings[0].model_copy(update={"id": "0badcafe", "title": "Name files after their slug"})
    store.save(location, doc.model_copy(update={"learnings": [*doc.learnings, extra]}))


def _discard_a_rule(location, agent):
    discard(location, ROLES["S1"])


def _take_a_count_back(location, agent):  # below what the tidy-up wrote: no run does that
    _change(location, ROLES["S1"], injected=_rules(location)[ROLES["S1"]].injected - 2)


@pytest.mark.parametrize("change", [_edit_a_rule, _add_a_rule, _discard_a_rule, _take_a_count_back])
def test_anything_but_runs_counts_since_the_tidy_up_still_refuses(agent, change):
    location = store.locate(agent)
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    record_injection(location, [ROLES["S1"]])  # a run as well: it does not make the other change undoable
    change(location, agent)
    changed = location.store_path.read_bytes(), agent.read_bytes()

    with pytest.raises(UndoError) as refused:
        snapshots.undo(location)
    assert str(refused.value).startswith("Cannot undo the tidy-up of ")
    assert f"{location.store_path} changed since it ran" in str(refused.value)
    assert "Nothing was restored" in str(refused.value)
    assert (location.store_path.read_bytes(), agent.read_bytes()) == changed
    assert len(snapshots.listing(location)) == 1


def test_a_snapshot_from_before_the_store_after_was_kept_refuses_after_a_run(agent):
    """Without the store as the tidy-up wrote it, runs' counts cannot be told from anything else."""
    location = store.locate(agent)
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    (snapshots.latest(location).folder / snapshots.STORE_AFTER).unlink()
    record_injection(location, [ROLES["S1"]])
    with pytest.raises(UndoError, match="changed since it ran"):
        snapshots.undo(location)


def test_an_undo_killed_while_carrying_counts_is_finished_by_the_next_command(agent, monkeypatch):
    location = store.locate(agent)
    twin = install(agent.parent / "twin", store.locate)  # the same steps, never interrupted
    for path in (agent, twin):
        run_tidy(path, helper=Scenario().helper(), today=TODAY, seed=3)
        where = store.locate(path)
        record_injection(where, [_merged_a(where).id, ROLES["S1"]])
    snapshots.undo(store.locate(twin))
    expected = store.locate(twin).store_path.read_bytes()
    with pytest.raises(KeyboardInterrupt), killed_writing(location.store_path, monkeypatch):
        snapshots.undo(location)

    store.load(location)  # any store read finishes the undo
    assert location.store_path.read_bytes() == expected
    assert snapshots.listing(location) == [] and not os.path.exists(store.pending_tidy_marker(location))


def test_two_tidy_ups_each_followed_by_a_run_undo_one_after_the_other(agent):
    from agentuse.core.helper.offline import OfflineHelper

    location = store.locate(agent)
    original = _rules(location)
    counted_total = 0
    for _ in range(2):
        assert run_tidy(agent, helper=OfflineHelper(), today=TODAY, seed=3).written
        record_injection(location, [ROLES["S1"]])
        counted_total += 1
    snapshots.undo(location)
    snapshots.undo(location)
    now = _rules(location)
    assert list(now) == list(original)
    assert now[ROLES["S1"]].injected == original[ROLES["S1"]].injected + counted_total
