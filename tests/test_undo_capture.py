"""Every pass that rewrites rules is one undo (issue 12): capture's re-vet (the backfill after an upgrade)
and its drain of an over-cap store, through `agentuse learnings undo` like a tidy-up's."""

from __future__ import annotations

from capture_support import TODAY, archived, current_ih, make_agent, make_session, rule, seed, stored
from fakes.scripted_helper import ScriptedHelper, drafts, passing, verdicts
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import snapshots, store
from agentuse.core.inject import record_injection
from agentuse.core.learning import Channel, Source, State
from agentuse.flows.capture import run_capture

CUSTOM = """learning:
  capture:
    custom: Only capture rules about file paths and saving.
  max: {max}"""
runner = CliRunner()


def capture(agent, helper):
    return run_capture(agent=str(agent), session=str(make_session(agent)), helper=helper, today=TODAY)


def undo(agent):
    return runner.invoke(app, ["learnings", "undo", str(agent)])


def test_the_re_vet_after_an_upgrade_is_one_undo_restoring_the_store_byte_for_byte(tmp_path):
    agent = make_agent(tmp_path / "p", CUSTOM.format(max=15))
    location = seed(agent, [
        rule("aaaa0001", "Keep posts short", ih="0ldc0ntract0"),  # stale, still holds
        rule("aaaa0002", "Publish without review", src=Source.manual, ch=Channel.corrections),  # unhashed
        rule("aaaa0003", "Save posts as markdown"),  # unhashed
    ])
    before = location.store_path.read_bytes()
    helper = ScriptedHelper(extract=[drafts()], vet=[lambda r: verdicts(
        r, ("Publish", "contradiction", "Never publish without an approval gate"))])
    capture(agent, helper)
    by_id = {r.id: r for r in stored(agent)}
    assert by_id["aaaa0002"].state is State.quarantined and by_id["aaaa0003"].ih == current_ih(agent)

    undone = undo(agent)
    assert undone.exit_code == 0, undone.output
    assert undone.output.startswith("Undid the capture re-vet of ")
    assert "(capture re-vet: 2 re-stamped, 1 quarantined)" in undone.output
    assert location.store_path.read_bytes() == before
    assert "Nothing to undo" in undo(agent).output


def test_undoing_a_re_vet_keeps_a_runs_count_and_refuses_a_persons_edit(tmp_path):
    agent = make_agent(tmp_path / "p", CUSTOM.format(max=15))
    location = seed(agent, [rule("aaaa0001", "Keep posts short"), rule("aaaa0002", "Save as markdown")])
    before = {r.id: r for r in stored(agent)}
    capture(agent, ScriptedHelper(extract=[drafts()], vet=[passing]))
    record_injection(location, ["aaaa0001"])  # a run finished after the capture: its count survives the undo
    counted = location.store_path.read_text(encoding="utf-8")
    location.store_path.write_text(counted.replace("Keep posts short", "Keep posts brief"), encoding="utf-8")
    edited = location.store_path.read_bytes()
    refused = undo(agent)  # a person's edit is not a run's count
    assert refused.exit_code == 1
    assert "Cannot undo the capture re-vet of" in refused.output and "Nothing was restored" in refused.output
    assert location.store_path.read_bytes() == edited

    location.store_path.write_text(counted, encoding="utf-8")  # the edit taken back: undoable again
    assert undo(agent).exit_code == 0
    assert {r.id: r for r in stored(agent)} == {**before, "aaaa0001": before["aaaa0001"].model_copy(
        update={"injected": before["aaaa0001"].injected + 1})}


def test_a_capture_that_only_adds_is_not_an_undo(tmp_path):
    agent = make_agent(tmp_path / "p", CUSTOM.format(max=15))
    seed(agent, [rule("aaaa0001", "Keep posts short", ih=current_ih(agent))])
    capture(agent, ScriptedHelper(extract=[drafts("Save posts under posts/")], vet=[passing]))
    assert len(stored(agent)) == 2
    assert snapshots.listing(store.locate(agent)) == []


def test_a_drain_of_an_over_cap_store_is_one_undo_bringing_the_rules_back_out_of_the_archive(tmp_path):
    agent = make_agent(tmp_path / "p", CUSTOM.format(max=2))
    ih = current_ih(agent)
    autos = [rule(f"a000000{i}", f"Auto rule {i}", date_=f"2026-07-0{i}", ih=ih) for i in range(1, 6)]
    people = [rule("m0000001", "Cite sources", src=Source.manual, ch=Channel.corrections, ih=ih)]
    location = seed(agent, [*autos, *people])
    before = location.store_path.read_bytes()
    capture(agent, ScriptedHelper(extract=[drafts()]))
    drained = {r.id for r in archived(agent)}
    assert len(drained) == 4 and drained < {r.id for r in autos}

    undone = undo(agent)
    assert undone.exit_code == 0, undone.output
    assert "(capture drain: 4 retired over the 2-rule cap)" in undone.output
    assert location.store_path.read_bytes() == before
    assert not location.archive_path.exists()  # the drain created it; undo takes its rules back out


def test_undoing_a_drain_keeps_what_the_same_write_added(tmp_path):
    """The write places the capture's new records, then drains: undo takes back the drain, not the records."""
    from agentuse.core.cap import Incoming, write

    agent = make_agent(tmp_path / "p", CUSTOM.format(max=2))
    ih = current_ih(agent)
    location = seed(agent, [rule(f"a000000{i}", f"Auto rule {i}", date_=f"2026-07-0{i}", ih=ih)
                            for i in range(1, 5)])
    held = rule("q0000001", "Publish without review", src=Source.manual, ch=Channel.corrections, ih=ih,
                state=State.quarantined, why="contradicts the contract")  # set aside: outside the count
    report = write(location, [Incoming(record=held)], cap=2)
    assert len(report.drained) == 2
    placed = location.store_path.read_bytes()

    assert undo(agent).exit_code == 0
    assert {r.id for r in stored(agent)} == {"a0000001", "a0000002", "a0000003", "a0000004", "q0000001"}
    assert not location.archive_path.exists()
    assert placed != location.store_path.read_bytes()


def test_a_capture_fold_is_one_undo_putting_back_the_rule_it_replaced(tmp_path):
    """A fold rewrites a rule in force (the merged wording takes its place): one undo, like the re-vet."""
    from agentuse.core.helper import protocol as p

    agent = make_agent(tmp_path / "p", CUSTOM.format(max=2))
    ih = current_ih(agent)
    location = seed(agent, [rule("a0000001", "Save posts as markdown", date_="2026-06-01", ih=ih),
                            rule("a0000002", "Use numbered lists", date_="2026-06-02", ih=ih)])
    before = location.store_path.read_bytes()
    merged = p.Draft(title="Save posts as markdown files under posts/")
    capture(agent, ScriptedHelper(extract=[drafts("Save under posts/")], vet=[passing, passing],
                                  reconcile=[p.ReconcileAnswer(action="fold", replaces=["a0000001"], merged=merged)],
                                  audit=[p.AuditAnswer()]))
    assert [r.id for r in archived(agent)] == ["a0000001"]
    assert merged.title in {r.title for r in stored(agent)}

    undone = undo(agent)
    assert undone.exit_code == 0, undone.output
    assert "Undid the capture fold of " in undone.output and "(capture fold: 1 folded)" in undone.output
    assert location.store_path.read_bytes() == before
    assert not location.archive_path.exists()  # the fold's archive entry is taken back out


def test_a_run_counting_a_folded_rule_is_counted_on_the_rule_the_undo_puts_back(tmp_path):
    from agentuse.core.helper import protocol as p

    agent = make_agent(tmp_path / "p", CUSTOM.format(max=2))
    ih = current_ih(agent)
    location = seed(agent, [rule("a0000001", "Save posts as markdown", date_="2026-06-01", ih=ih),
                            rule("a0000002", "Use numbered lists", date_="2026-06-02", ih=ih)])
    before = {r.id: r for r in stored(agent)}
    merged = p.Draft(title="Save posts as markdown files under posts/")
    capture(agent, ScriptedHelper(extract=[drafts("Save under posts/")], vet=[passing, passing],
                                  reconcile=[p.ReconcileAnswer(action="fold", replaces=["a0000001"], merged=merged)],
                                  audit=[p.AuditAnswer()]))
    [folded] = [r for r in stored(agent) if r.title == merged.title]
    record_injection(location, [folded.id, "a0000002"])  # a run after the capture

    assert undo(agent).exit_code == 0
    assert {r.id: r.injected for r in stored(agent)} == {"a0000001": before["a0000001"].injected + 1,
                                                         "a0000002": before["a0000002"].injected + 1}
