"""One tidy-up is one undo: snapshots, byte-exact restore, refusals; the commit's concurrency rules."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest
from tidy_scenario import ROLES, Scenario, install, killed_writing

from agentuse.core import snapshots, store
from agentuse.core.inject import record_injection
from agentuse.core.snapshots import UndoError
from agentuse.core.tidy_commit import ConcurrentEditError
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)


@pytest.fixture
def agent(tmp_path):
    path = install(tmp_path, store.locate)
    # Make the bytes unusual, so a lossy restore would show: CRLF line endings and a BOM in the store.
    location = store.locate(path)
    location.store_path.write_bytes(b"\xef\xbb\xbf" + location.store_path.read_bytes())
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    return path


def test_undo_restores_both_files_byte_for_byte_and_removes_the_snapshot(agent):
    location = store.locate(agent)
    agent_before, store_before = agent.read_bytes(), location.store_path.read_bytes()

    result = run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    assert result.written and agent.read_bytes() != agent_before
    assert location.store_path.read_bytes() != store_before
    assert b"\r\n- [tip] Check every link before saving\r\n" in agent.read_bytes()  # the file's own newlines

    snapshots.undo(location)
    assert agent.read_bytes() == agent_before
    assert location.store_path.read_bytes() == store_before
    assert snapshots.listing(location) == []
    with pytest.raises(UndoError, match="^Nothing to undo"):
        snapshots.undo(location)


def test_undo_refuses_when_a_file_changed_since_the_tidy(agent):
    location = store.locate(agent)
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    text = location.store_path.read_text(encoding="utf-8")
    assert "Stay under 60 characters" in text
    location.store_path.write_text(text.replace("Stay under 60 characters", "Stay under 50 characters"),
                                   encoding="utf-8")  # a person edited a rule after the tidy-up
    after_run = location.store_path.read_bytes()

    with pytest.raises(UndoError) as refused:
        snapshots.undo(location)
    assert str(location.store_path) in str(refused.value) and "Nothing was restored" in str(refused.value)
    assert location.store_path.read_bytes() == after_run
    assert len(snapshots.listing(location)) == 1


def test_nothing_to_undo_without_a_tidy(agent):
    with pytest.raises(UndoError, match="^Nothing to undo"):
        snapshots.undo(store.locate(agent))


def test_only_the_newest_twenty_snapshots_are_kept(agent):
    location = store.locate(agent)
    for _ in range(snapshots.KEEP + 3):
        snapshots.take(location, agent_before=b"a", store_before=None, agent_after=b"a", store_after=b"s",
                       block_after=[])
    assert len(snapshots.listing(location)) == snapshots.KEEP


def test_a_concurrent_edit_to_a_rule_the_tidy_changes_aborts_the_commit(agent):
    location = store.locate(agent)
    scenario = Scenario()
    edited = False

    def plan_and_edit(request):
        nonlocal edited
        if not edited:  # a person edits a rule the tidy-up is about to retire, while it runs
            edited = True
            text = location.store_path.read_bytes().decode("utf-8-sig")
            location.store_path.write_text(text.replace("\nKeep post titles short.\n", "\nTitles: 8 words max.\n"))
        return scenario.plan(request)

    agent_before = agent.read_bytes()
    with pytest.raises(ConcurrentEditError, match="Run the tidy-up again"):
        run_tidy(agent, helper=scenario.helper(plan_groups=plan_and_edit), today=TODAY, seed=3)
    assert agent.read_bytes() == agent_before
    assert "Titles: 8 words max." in location.store_path.read_text()
    assert snapshots.listing(location) == []


def test_counts_added_by_runs_during_the_tidy_are_kept(agent):
    location = store.locate(agent)
    scenario = Scenario()
    bumped = False

    def plan_and_run(request):
        nonlocal bumped
        if not bumped:  # two runs finish while the tidy-up is thinking
            bumped = True
            record_injection(location, [ROLES["S1"], ROLES["S2"]])
            record_injection(location, [ROLES["S1"]])
        return scenario.plan(request)

    start = {r.id: r.injected for r in store.load(location).learnings}
    run_tidy(agent, helper=scenario.helper(plan_groups=plan_and_run), today=TODAY, seed=3)
    now = {r.id: r.injected for r in store.load(location).learnings}
    assert now[ROLES["S1"]] == start[ROLES["S1"]] + 2 and now[ROLES["S2"]] == start[ROLES["S2"]] + 1


def test_a_dry_run_writes_nothing_and_shows_both_diffs(agent):
    location = store.locate(agent)
    agent_before, store_before = agent.read_bytes(), location.store_path.read_bytes()
    result = run_tidy(agent, dry_run=True, helper=Scenario().helper(), today=TODAY, seed=3)
    assert agent.read_bytes() == agent_before and location.store_path.read_bytes() == store_before
    assert not result.written and snapshots.listing(location) == []
    assert not location.archive_path.exists()
    learnings_diff, agent_diff = result.diffs["learnings file"], result.diffs["agent file"]
    assert learnings_diff.startswith("--- a/blog-writer.learnings.md\n+++ b/blog-writer.learnings.md\n")
    assert "-### [tip] Keep post titles short\n" in learnings_diff
    assert "+- [tip] Check every link before saving\r\n" in agent_diff
    assert result.summary.endswith("58 → 15 in force")


# --- the archive: a tidy-up's retired rules go back out of it on undo --------------------------------------


def _archived_ids(location) -> set[str]:
    return {r.id for r in store.load_archive(location).learnings} if location.archive_path.exists() else set()


def test_undo_takes_the_tidys_retired_rules_back_out_of_the_archive(agent):
    location = store.locate(agent)
    earlier = store.load(location).learnings[-1]
    store.archive(location, [earlier], reason="an earlier retirement")  # the archive already has history
    archive_before = location.archive_path.read_bytes()
    store_ids = {r.id for r in store.load(location).learnings}

    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    assert _archived_ids(location) > {earlier.id}  # the tidy-up retired and merged rules away

    snapshots.undo(location)
    # Back in the store means out of the archive: the archive says exactly what it said before the tidy-up.
    assert location.archive_path.read_bytes() == archive_before
    assert {r.id for r in store.load(location).learnings} == store_ids


def test_undo_removes_an_archive_the_tidy_created(agent):
    location = store.locate(agent)
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    assert location.archive_path.exists()
    snapshots.undo(location)
    assert not location.archive_path.exists()


def test_undo_keeps_what_was_archived_after_the_tidy(agent):
    """Something archived after the tidy-up (a discard, a capture) is kept; only the tidy-up's entries go."""
    location = store.locate(agent)
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    tidy_archived = _archived_ids(location)
    later = store.load(location).learnings[0].model_copy(update={"id": "0badcafe", "title": "Archived later"})
    store.archive(location, [later], reason="discarded later")

    snapshots.undo(location)
    assert _archived_ids(location) == {"0badcafe"}
    assert tidy_archived.isdisjoint(_archived_ids(location))
    # Byte for byte what archiving that rule would have written had the tidy-up never run.
    expected = location.archive_path.read_bytes()
    location.archive_path.unlink()
    store.archive(location, [later], reason="discarded later")
    assert location.archive_path.read_bytes() == expected


def test_undo_refuses_when_the_archive_was_rewritten_since(agent):
    location = store.locate(agent)
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    agent_after, store_after = agent.read_bytes(), location.store_path.read_bytes()
    edited = location.archive_path.read_bytes().replace(b"### [", b"### [", 1).replace(b"\n", b"\n\n", 3)
    location.archive_path.write_bytes(edited)  # a hand edit, not an append

    with pytest.raises(UndoError) as refused:
        snapshots.undo(location)
    assert str(location.archive_path) in str(refused.value) and "Nothing was restored" in str(refused.value)
    assert (agent.read_bytes(), location.store_path.read_bytes()) == (agent_after, store_after)
    assert location.archive_path.read_bytes() == edited
    assert len(snapshots.listing(location)) == 1


def test_a_commit_killed_before_the_store_write_also_takes_its_archive_entries_back(agent, monkeypatch):
    """The commit archives, writes the agent file, then the store: rolled back, none of it happened."""
    location = store.locate(agent)
    agent_before, store_before = agent.read_bytes(), location.store_path.read_bytes()
    with pytest.raises(KeyboardInterrupt), killed_writing(location.store_path, monkeypatch):
        run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    assert agent.read_bytes() != agent_before and location.archive_path.exists()

    store.load(location)  # any store read settles the interrupted commit
    assert agent.read_bytes() == agent_before and location.store_path.read_bytes() == store_before
    assert not location.archive_path.exists()
    assert snapshots.listing(location) == []


def test_a_snapshot_is_on_disk_before_the_commit_is_marked_pending(agent, monkeypatch):
    """A power cut after the pending marker must find every snapshot file whole: each is fsynced (the
    manifest written atomically, never torn), and so are the folders that name them, before the marker."""
    import os

    synced: list[str] = []
    real_fsync = os.fsync

    def spy(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", spy)
    location = store.locate(agent)
    snapshot = snapshots.take(location, agent_before=b"a", store_before=b"s", agent_after=b"A", store_after=b"S",
                              block_after=[], archive=snapshots.ArchiveAppend(before=b"old", after=b"old\nnew",
                                                                              kept=3), complete=False)
    marker = str(os.path.realpath(store.pending_tidy_marker(location)))
    before_marker = synced[:next(i for i, p in enumerate(synced) if os.path.basename(p).startswith(
        "." + os.path.basename(marker)))]
    folder = str(os.path.realpath(snapshot.folder))
    for name in ("agent.before", "store.before", "archive.before", "manifest.json"):
        assert any(p.startswith(os.path.join(folder, "." + name)) or p == os.path.join(folder, name)
                   for p in before_marker), name
    assert folder in before_marker and os.path.dirname(folder) in before_marker


# --- which snapshot is the newest: two passes in one second ------------------------------------------------


class _OneSecond:
    """Every snapshot taken at the same instant, and each drawing a folder suffix that sorts before the last
    one's: the folder names then order the two passes backwards."""

    def __init__(self, monkeypatch):
        from datetime import datetime, timezone

        instant = datetime(2026, 11, 30, 9, 15, 7, tzinfo=timezone.utc)
        suffixes = iter(f"{n:04x}" for n in range(0xFFFF, 0, -1))

        class Frozen(datetime):
            @classmethod
            def now(cls, tz=None):
                return instant

        monkeypatch.setattr(snapshots, "datetime", Frozen)
        monkeypatch.setattr(snapshots, "secrets", SimpleNamespace(token_hex=lambda n: next(suffixes)))


def test_of_two_snapshots_taken_in_one_second_the_later_is_the_newest(agent, monkeypatch):
    _OneSecond(monkeypatch)
    location = store.locate(agent)
    first = snapshots.take(location, agent_before=b"a", store_before=None, agent_after=b"a", store_after=b"1",
                           block_after=[], summary="first")
    second = snapshots.take(location, agent_before=b"a", store_before=b"1", agent_after=b"a", store_after=b"2",
                            block_after=[], summary="second")
    assert first.folder.name > second.folder.name  # the names alone would pick the first
    assert [s.manifest.summary for s in snapshots.listing(location)] == ["second", "first"]


def test_tidy_tidy_undo_undo_in_one_second_undoes_the_second_then_the_first(agent, monkeypatch):
    from agentuse.core.helper.offline import OfflineHelper

    _OneSecond(monkeypatch)
    location = store.locate(agent)
    original = agent.read_bytes(), location.store_path.read_bytes()
    run_tidy(agent, helper=OfflineHelper(), today=TODAY, seed=3)
    after_first = agent.read_bytes(), location.store_path.read_bytes()
    second = run_tidy(agent, helper=OfflineHelper(), today=TODAY, seed=3)  # goes on where the first stopped
    assert second.written and len(snapshots.listing(location)) == 2

    assert snapshots.undo(location).manifest.summary == second.summary
    assert (agent.read_bytes(), location.store_path.read_bytes()) == after_first
    snapshots.undo(location)
    assert (agent.read_bytes(), location.store_path.read_bytes()) == original


def test_snapshots_an_older_version_wrote_in_one_second_still_sort_and_undo(agent, monkeypatch):
    """Before the order was recorded, a snapshot's name and its manifest's time were all there was: of two in
    one second, the one whose manifest was written later is the newer; anything written now is newer still."""
    import json
    import os

    _OneSecond(monkeypatch)
    location = store.locate(agent)
    old = [snapshots.take(location, agent_before=b"a", store_before=b"s", agent_after=b"a", store_after=data,
                          block_after=[], summary=data.decode()) for data in (b"1", b"2")]
    for index, snapshot in enumerate(old):  # as an older version wrote them: no order in the manifest
        manifest = snapshot.folder / snapshots.MANIFEST
        fields = json.loads(manifest.read_text())
        fields.pop("seq", None)
        manifest.write_text(json.dumps(fields))
        os.utime(manifest, ns=(10**18 + index, 10**18 + index))
    assert [s.manifest.summary for s in snapshots.listing(location)] == ["2", "1"]

    newer = snapshots.take(location, agent_before=b"a", store_before=b"s", agent_after=b"a", store_after=b"3",
                           block_after=[], summary="3")
    assert newer.folder.name < old[1].folder.name
    assert [s.manifest.summary for s in snapshots.listing(location)] == ["3", "2", "1"]

    location.store_path.write_bytes(b"2")  # what the older version's second pass left
    agent.write_bytes(b"a")
    newer.folder.joinpath(snapshots.MANIFEST).unlink()  # out of the way: undo the old ones
    assert snapshots.undo(location).manifest.summary == "2"
    assert location.store_path.read_bytes() == b"s"


def test_a_snapshot_killed_before_its_manifest_is_swept_by_the_next_tidy_up(agent, monkeypatch):
    """Killed before its manifest, a snapshot folder holds copies of both files and is never offered to undo
    (nor swept by `recover`: no pending marker was written yet). The next snapshot sweeps it."""
    location = store.locate(agent)
    real_write = store.atomic_write

    def dies_at_the_manifest(target, text, **options):
        if target.name == snapshots.MANIFEST:
            raise KeyboardInterrupt("killed")
        real_write(target, text, **options)

    monkeypatch.setattr(store, "atomic_write", dies_at_the_manifest)
    with pytest.raises(KeyboardInterrupt):
        run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    monkeypatch.setattr(store, "atomic_write", real_write)
    root = location.consolidations_dir / agent.name.removesuffix(".agentuse")
    [abandoned] = [folder for folder in root.iterdir() if not (folder / snapshots.MANIFEST).exists()]
    assert (abandoned / "agent.before").exists()

    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    assert not abandoned.exists()
    assert [s.folder for s in snapshots.listing(location)] == [f for f in root.iterdir()]


@pytest.mark.parametrize("part", ["store.before", "agent.before", "archive.before"])
def test_a_snapshot_missing_a_part_its_manifest_names_refuses_the_undo_in_one_line(agent, part):
    """A snapshot folder emptied by hand (or restored from a partial backup): undo must not read a missing
    store.before as "there was no store" and delete the store, nor crash; it says which file is missing."""
    location = store.locate(agent)
    store.archive(location, [store.load(location).learnings[0]], reason="drained")  # so archive.before exists
    run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    [snapshot] = snapshots.listing(location)
    (snapshot.folder / part).unlink()
    files = {path: path.read_bytes() for path in (agent, location.store_path, location.archive_path)}

    with pytest.raises(UndoError) as refused:
        snapshots.undo(location)
    assert str(snapshot.folder) in str(refused.value) and part in str(refused.value)
    assert {path: path.read_bytes() for path in files} == files


def test_an_interrupted_commit_whose_snapshot_lost_its_agent_copy_is_one_error_for_every_reader(agent, monkeypatch):
    from typer.testing import CliRunner

    from agentuse.cli.app import app

    location = store.locate(agent)
    with pytest.raises(KeyboardInterrupt), killed_writing(location.store_path, monkeypatch):
        run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    [folder] = [f for f in (location.consolidations_dir / "blog-writer").iterdir()]
    (folder / "agent.before").unlink()
    result = CliRunner().invoke(app, ["learnings", str(agent), "--json"])
    assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.startswith(f"error: {folder}") and "agent.before" in result.stderr


def _killed_after_the_agent_file(agent, monkeypatch):
    """A graduating tidy-up killed after it wrote the agent file and before the store: a half-done commit."""
    location = store.locate(agent)
    before = agent.read_bytes(), location.store_path.read_bytes()
    with pytest.raises(KeyboardInterrupt), killed_writing(location.store_path, monkeypatch):
        run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    assert agent.read_bytes() != before[0] and location.store_path.read_bytes() == before[1]
    return location, before


def test_a_half_done_commit_whose_agent_file_was_edited_outside_the_block_is_rolled_back_keeping_the_edit(
        agent, monkeypatch):
    """The person edited the instructions after the crash, before any command settled the commit: the
    rules it made permanent come back out of the block, the person's edit stays, nothing is half done."""
    location, (agent_before, store_before) = _killed_after_the_agent_file(agent, monkeypatch)
    edited = agent.read_bytes().replace(b"# Blog Writer", b"# Blog Writer\r\n\r\nUse British spelling.", 1)
    assert edited != agent.read_bytes()
    agent.write_bytes(edited)

    store.load(location)  # any reader settles it
    mine = b"# Blog Writer\r\n\r\nUse British spelling."
    assert agent.read_bytes() == agent_before.replace(b"# Blog Writer", mine, 1)
    assert location.store_path.read_bytes() == store_before
    assert not location.archive_path.exists() and snapshots.listing(location) == []
    assert not store.pending_tidy_marker(location).exists()


def test_a_half_done_commit_whose_block_was_edited_is_left_and_undo_says_why(agent, monkeypatch):
    """Edited inside the block itself, the commit cannot be rolled back without guessing: left as it is,
    and undo says what happened and where the old agent file is, instead of 'Nothing to undo'."""
    location, _ = _killed_after_the_agent_file(agent, monkeypatch)
    agent.write_bytes(agent.read_bytes().replace(b"- [tip] Check every link before saving",
                                                 b"- [tip] Check every link twice before saving", 1))
    with pytest.raises(UndoError) as refused:
        snapshots.undo(location)
    message = str(refused.value)
    assert "cut short" in message and str(agent) in message and "agent.before" in message, message
    # Doing what it says: the block as it was before (the edit beside it may stay), then any command.
    from agentuse.core.learned_block import find_block

    before = (next(location.consolidations_dir.glob("*/*/agent.before"))).read_text(encoding="utf-8")
    now = agent.read_text(encoding="utf-8").replace("# Blog Writer", "# Blog Writer (mine)", 1)
    old, span = find_block(before), find_block(now)
    agent.write_text(now[:span.start_line] + before[old.start_line:old.after] + now[span.after:], encoding="utf-8",
                     newline="")
    store.load(location)
    assert not store.pending_tidy_marker(location).exists() and not location.archive_path.exists()
    with pytest.raises(UndoError, match="^Nothing to undo"):
        snapshots.undo(location)


def test_an_interrupted_commit_takes_the_temp_files_its_killed_writer_left_out_of_the_project(agent, monkeypatch):
    """A commit killed mid-write leaves `.blog-writer.agentuse.<hex>.tmp` beside the agent file, in the
    user's working tree. Settling the commit holds every lock those writers take, so none of them is live."""
    location = store.locate(agent)
    with pytest.raises(KeyboardInterrupt), killed_writing(location.store_path, monkeypatch):
        run_tidy(agent, helper=Scenario().helper(), today=TODAY, seed=3)
    left = [agent.with_name(f".{agent.name}.0123abcd.tmp"),
            location.store_path.with_name(f".{location.store_path.name}.4567cdef.tmp")]
    for temp in left:
        temp.write_text("half written")  # as a SIGKILLed writer leaves it: fresh, not yet stale
    store.load(location)
    assert [temp for temp in left if temp.exists()] == []
