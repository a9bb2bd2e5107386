"""Undo snapshots of a tidy-up (spec: Storage `consolidations/`; Tidying up, "one tidy-up is one Undo").

Every pass that rewrites rules is one undo, not only the tidy-up: capture's re-vet (the backfill after an
upgrade) and its drain of an over-cap store snapshot the same way through `store_pass`. They write only the
store (and the archive), so their snapshot records the agent file's bytes as both before and after.

Before a tidy-up writes, the exact bytes of both files go into a snapshot folder, with the digests of
what the tidy-up is about to write. Undo restores the newest snapshot byte for byte and removes it, but
only while both files still hold what the tidy-up wrote: anything written since (a hand edit, a capture)
would be silently lost otherwise, so undo refuses and says which file changed.

Runs are the exception. Every run rewrites the store to count what it injected and what an approval
credited (spec: Storage), so refusing then would make a tidy-up undoable only until the next run. When
what changed in the store since is only those counts (`store_merge.RUN_COUNTERS`), undo puts back the
rules from before with the counts carried onto them, each to the rules the tidy-up had merged or rewritten
into the rule the runs counted (`store_merge.carry_back`): no run's count is lost. That needs the store as
the pass wrote it (`store.after`) and what it carried into what (`Manifest.carriers`); a snapshot from
before they were kept refuses after a run, as it always did.

The archive is the third file a tidy-up writes: the rules it retired or merged away. Undo puts those
rules back in the store, so it takes them back out of the archive too (or the archive would say they were
retired while they are in force, and a later retirement would file them twice). The archive is different
from the other two in one way: it is only ever appended to, and other things append to it (a capture that
drains or replaces rules, `learnings discard`). An append after the tidy-up does not refuse the undo:
undo removes exactly the bytes the tidy-up appended and keeps everything after them, which is the file
those later appends would have written had the tidy-up never run. Anything else (an edited or truncated
archive, or one a restore took an entry out of) refuses like the other two files.

    consolidations/<agent key minus .agentuse>/<YYYYmmddTHHMMSS>-<4 hex>/
        manifest.json   agent.before   store.before (absent when the store did not exist)   store.after
        store.undo      (while an undo that carries runs' counts is writing: the store it leaves)
        archive.before  (when the tidy-up appended to an archive that existed)
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel

from agentuse.core import recovered, store, store_merge
from agentuse.core.errors import AgentuseError
from agentuse.core.file_access import FileAccessError, check_regular, make_folder, read_optional
from agentuse.core.agent_errors import BlockMarkerError
from agentuse.core.learned_block import BlockRule, find_block, read_block, write_block
from agentuse.core.learning import Learning
from agentuse.core.store_format import StoreDoc, StoreFormatError, parse, render
from agentuse.core.terminal_text import shell_word

KEEP = 20  # newest snapshots kept per agent
MANIFEST = "manifest.json"
STORE_AFTER = "store.after"  # the store as the pass wrote it: what runs' counts since are measured from
STORE_UNDO = "store.undo"
CARRIED = "the counts runs recorded since are kept, on the rules it put back"  # said when undo carried them
TIDY_UP = "tidy-up"  # Manifest.kind of a tidy-up; capture's passes name themselves ("capture re-vet", ...)


class UndoError(AgentuseError):
    """Nothing to undo, or undoing would overwrite changes made since the tidy-up."""


class Manifest(BaseModel):
    created: str  # ISO 8601, UTC
    agent_path: str
    store_path: str
    store_existed: bool
    agent_after: str  # sha256 of what the tidy-up wrote (or left) in the agent file
    store_after: str
    block_after: str = ""  # digest of the learned block it left: an unchanged block needs no rewrite
    # False: the pass left the agent file as it was (capture's passes, a tidy-up that made nothing permanent),
    # so undo leaves it alone, and an edit made to it since is no reason to refuse. True for older manifests.
    agent_written: bool = True
    # The archive, when the tidy-up appended to it; None when it did not (or the snapshot predates this).
    archive_after: str | None = None  # sha256 of the archive as the tidy-up left it
    archive_existed: bool = False
    archive_kept: int = 0  # bytes of that archive before the tidy-up's entries (the old one, right-trimmed)
    archive_end: int = 0  # bytes up to the end of its entries: where a later append starts writing
    archive_upto: str = ""  # sha256 of those first archive_end bytes
    summary: str = ""
    kind: str = TIDY_UP  # what undo says it undid: "Undid the <kind> of <created>"
    # False from the moment the commit snapshots until both files are written. A tidy-up killed in between
    # leaves it False, and `recover` then puts back what it had written (manifests from before this field
    # existed read as complete).
    complete: bool = True
    # True from the moment an undo starts writing until it has put every file back and removed the
    # snapshot. An undo killed in between leaves it True, and `recover` then finishes it from these bytes.
    undoing: bool = False
    # The order the snapshots of this agent were taken in (1, 2, ...): newest is highest. The folder name
    # and `created` have one-second resolution and two passes can share a second. 0: written before this
    # field existed, ordered by `_order` below, and older than any snapshot that has one.
    seq: int = 0
    carriers: dict[str, str] = {}  # id of a rule the pass merged or rewrote away -> the id it went into
    # Set by an undo that carries runs' counts, before its first write: the digest of the store it found
    # (it then writes `store.undo`, not `store.before`), so an undo killed midway is finished the same way.
    undo_from: str | None = None

    @property
    def settled(self) -> bool:
        """Neither a commit nor an undo of this snapshot is half-written."""
        return self.complete and not self.undoing


class Snapshot(BaseModel):
    folder: Path
    manifest: Manifest
    # What `undo` returns for a pass a crash cut short that it settled instead of undoing another one:
    # UNDONE (an undo killed part way, finished) or ROLLED_BACK (a tidy-up or capture pass killed mid-commit).
    resumed: str | None = None


def digest(data: bytes | None) -> str:
    return hashlib.sha256(data or b"").hexdigest()


def block_digest(block: list[BlockRule]) -> str:
    return digest(json.dumps([[b.category.value, b.text] for b in block]).encode("utf-8"))


def _root(location: store.AgentLocation) -> Path:
    return location.consolidations_dir / location.key.removesuffix(store.AGENT_SUFFIX)


def _marker(folder: Path) -> Path:
    """`store.pending_tidy_marker` of the agent whose snapshot lives in `folder`."""
    return folder.parent.with_name(folder.parent.name + ".pending")


def _read(path: Path) -> bytes | None:
    return read_optional(path, "file")


class ArchiveAppend(BaseModel):
    """What a tidy-up appends to the archive: the file before, and after with `kept` bytes of it unchanged."""

    before: bytes | None
    after: bytes
    kept: int


def archive_append(location: store.AgentLocation, retired: list[tuple[Learning, str]]) -> ArchiveAppend | None:
    """Everything a pass retires, (rule, reason) in order, as one append to the archive (the caller holds its
    lock), and where the old archive ends in the new one: undo needs both to take them back out."""
    if not retired:
        return None
    before = _read(location.archive_path)
    base = store.archive_base(location, before)
    groups: dict[str, list[Learning]] = {}
    for rule, reason in retired:
        groups.setdefault(reason, []).append(rule)
    entries = "".join(store.archive_entries(rules, reason=reason).removesuffix("\n")
                      for reason, rules in groups.items())
    return ArchiveAppend(before=before, after=f"{base}{entries}\n".encode("utf-8"), kept=len(base.encode("utf-8")))


def take(location: store.AgentLocation, *, agent_before: bytes, store_before: bytes | None,
         agent_after: bytes, store_after: bytes, block_after: list[BlockRule], summary: str = "",
         archive: ArchiveAppend | None = None, now: datetime | None = None, complete: bool = True,
         kind: str = TIDY_UP, carriers: dict[str, str] | None = None) -> Snapshot:
    """Write a snapshot before the commit; the caller holds the locks of the files it is about to write."""
    now = now or datetime.now(timezone.utc)
    make_folder(_root(location))
    # A pass killed before its manifest wrote no pending marker, so `recover` never looks for its folder.
    _sweep_unfinished(location)
    seq = max((s.manifest.seq for s in _all(location)), default=0) + 1  # under the caller's locks
    while True:  # two passes in one second can draw the same 4 hex: draw again rather than fail the pass
        folder = _root(location) / f"{now:%Y%m%dT%H%M%S}-{secrets.token_hex(2)}"
        try:
            folder.mkdir()
            break
        except FileExistsError:
            continue
    # Every file durably (fsynced, renamed into place, the folder fsynced): recover() trusts a snapshot whose
    # manifest it can read, so a power cut after the pending marker must find them whole, never torn.
    store.atomic_write(folder / "agent.before", agent_before)
    if store_before is not None:
        store.atomic_write(folder / "store.before", store_before)
    store.atomic_write(folder / STORE_AFTER, store_after)
    archived = {}
    if archive is not None:
        if archive.before is not None:
            store.atomic_write(folder / "archive.before", archive.before)
        # A later append trims trailing whitespace (str.rstrip, so Unicode spaces too) and writes from there.
        end = len(archive.after.decode("utf-8").rstrip().encode("utf-8"))
        archived = dict(archive_after=digest(archive.after), archive_existed=archive.before is not None,
                        archive_kept=archive.kept, archive_end=end, archive_upto=digest(archive.after[:end]))
    manifest = Manifest(created=now.isoformat(timespec="seconds"), agent_path=str(location.agent_path),
                        store_path=str(location.store_path), store_existed=store_before is not None,
                        agent_after=digest(agent_after), agent_written=agent_after != agent_before,
                        store_after=digest(store_after),
                        block_after=block_digest(block_after), summary=summary, kind=kind, complete=complete,
                        seq=seq, carriers=carriers or {}, **archived)
    # The manifest last: a folder without one is an interrupted snapshot and is never offered to undo.
    store.atomic_write(folder / MANIFEST, manifest.model_dump_json(indent=2))
    store.fsync_dir(folder.parent)  # the new folder's own name
    if not complete:
        # Every store reader settles an interrupted commit first when it sees this (store.settle).
        store.atomic_write(store.pending_tidy_marker(location), manifest.created)
    _prune(location)
    return Snapshot(folder=folder, manifest=manifest)


def mark_complete(snapshot: Snapshot) -> Snapshot:
    """Both files are written: from now on the snapshot is the tidy-up's undo."""
    manifest = snapshot.manifest.model_copy(update={"complete": True})
    store.atomic_write(snapshot.folder / MANIFEST, manifest.model_dump_json(indent=2))
    _marker(snapshot.folder).unlink(missing_ok=True)
    return Snapshot(folder=snapshot.folder, manifest=manifest)


def _all(location: store.AgentLocation) -> list[Snapshot]:
    """Every snapshot with a readable manifest, newest first."""
    root = _root(location)
    if not root.is_dir():
        return []
    found = []
    for folder in (p for p in root.iterdir() if p.is_dir()):
        path = folder / MANIFEST
        try:
            if not check_regular(path, "snapshot manifest"):
                continue
        except FileAccessError:  # a folder, FIFO or device in its place: never opened, and not a snapshot
            continue
        try:
            manifest = Manifest.model_validate(json.loads(path.read_text(encoding="utf-8")))
            written = path.stat().st_mtime_ns
        except (FileNotFoundError, ValueError):  # one that does not parse is not a snapshot either
            continue
        found.append((_order(manifest, folder, written), Snapshot(folder=folder, manifest=manifest)))
    return [snapshot for _, snapshot in sorted(found, key=lambda pair: pair[0], reverse=True)]


def _order(manifest: Manifest, folder: Path, written: int) -> tuple[int, str, int]:
    """Newest is largest: the recorded order; for snapshots an older version wrote (seq 0), the second in
    the folder name, then when the manifest was last written (a commit marks it complete after both files,
    so of two passes in one second the later one's is written later)."""
    return manifest.seq, folder.name.partition("-")[0], written


def listing(location: store.AgentLocation) -> list[Snapshot]:
    """Complete snapshots of this agent, newest first (an interrupted tidy-up's is not an undo, nor is one
    an interrupted undo is taking back)."""
    return [snapshot for snapshot in _all(location) if snapshot.manifest.settled]


def recover(location: store.AgentLocation, *, tell: bool = True) -> list[tuple[Snapshot, str]]:
    """Finish the story of a tidy-up or an undo that was killed while writing: both files as before, or
    both as after.

    The commit writes the agent file, then the store, then marks its snapshot complete. A snapshot still
    incomplete means the process died on the way: when both files hold what it wrote, only the mark was
    missing; otherwise the agent file is put back (the store was not written yet) and the snapshot is
    dropped, so the interrupted tidy-up did not happen and undo reaches the one before it. A file edited
    since (neither version) is left alone, and undo says which one changed.

    An undo marks its snapshot `undoing` before its first write, so an undo killed at any point is finished
    here, from the snapshot's bytes (it had already checked that nothing changed since the tidy-up).

    Returns what it did to each pass it settled, and says each in one line (core/recovered.py) unless
    `tell` is off: undo says it itself (`said`)."""
    marker = store.pending_tidy_marker(location)
    if not check_regular(marker, "tidy-up marker") and all(snapshot.manifest.settled for snapshot in _all(location)):
        return []  # the common case: no lock taken
    done: list[tuple[Snapshot, str]] = []
    # Under the commit's own locks: a commit still in flight finishes first, and only then is judged.
    with locks(location):
        _sweep_unfinished(location)
        for snapshot in _all(location):
            if not snapshot.manifest.settled:
                require_parts(snapshot)
            if snapshot.manifest.undoing:
                _finish_undo(location, snapshot)
                done.append((snapshot, UNDONE))
            elif not snapshot.manifest.complete:
                done.append((snapshot, _roll(location, snapshot)))
        if tell:
            for snapshot, how in done:
                said(location, snapshot, how)
        if all(snapshot.manifest.settled for snapshot in _all(location)):
            marker.unlink(missing_ok=True)
        # A writer killed mid-commit left its temp files, one beside the agent file in the user's working tree.
        for path in (location.agent_path, location.store_path, location.archive_path):
            store.sweep_temps(path)
    return done


def said(location: store.AgentLocation, snapshot: Snapshot, how: str) -> None:
    """One line on what `recover` did to a pass a crash cut short: its command died without saying."""
    what = f"the {snapshot.manifest.kind} of {snapshot.manifest.created}"
    line = {UNDONE: f"finished the undo of {what}, which was cut short",
            STANDS: f"{what} was cut short after it had written both files: it stands (agentuse learnings undo "
                    f"{location.agent_path} takes it back)",
            ROLLED_BACK: f"{what} was cut short before it was written in full: rolled back, none of it is in force",
            }.get(how)  # LEFT: undo explains what blocks it
    if line is not None:
        recovered.say(line)


def _sweep_unfinished(location: store.AgentLocation) -> None:
    """Folders without a manifest: a snapshot killed before its manifest, or an undo killed while removing
    its snapshot. Never offered to undo; under the locks no snapshot is being written, so they can go."""
    root = _root(location)
    for folder in (root.iterdir() if root.is_dir() else []):
        if folder.is_dir() and not (folder / MANIFEST).exists():
            shutil.rmtree(folder, ignore_errors=True)


# What `recover` did to a pass a crash cut short (`_roll` the last three).
UNDONE, STANDS, ROLLED_BACK, LEFT = "undone", "stands", "rolled back", "left"


def _roll(location: store.AgentLocation, snapshot: Snapshot) -> str:
    """Forward when both files were written, back when only the agent file was."""
    manifest, folder = snapshot.manifest, snapshot.folder
    agent_now, store_now = digest(_read(location.agent_path)), digest(_read(location.store_path))
    if agent_now == manifest.agent_after and store_now == manifest.store_after:
        mark_complete(snapshot)
        return STANDS
    store_before = _read(folder / "store.before") if manifest.store_existed else None
    if store_now == manifest.store_after and store_now != digest(store_before):
        # Both files were written, and the agent file edited since: the pass is done, and undo (which
        # refuses over an edit, naming the file) is the one to judge it.
        mark_complete(snapshot)
        return STANDS
    agent_before = (folder / "agent.before").read_bytes()
    if agent_now == manifest.agent_after:
        _restore(location.agent_path, agent_before, follow_symlinks=True)
    elif agent_now != digest(agent_before):
        rolled = _block_rolled_back(location, manifest, agent_before)
        if rolled is None:
            return LEFT  # the block itself was edited since the crash: left for undo to explain (`undo`)
        _restore(location.agent_path, rolled, follow_symlinks=True)
    # The archive was appended to first, so its rules are in both files now; the store keeps them. When it
    # was not written yet (or was changed since), `_archive_target` says so and it is left as it is.
    restorable, archive_before = _archive_target(snapshot, _read(location.archive_path))
    if restorable:
        _put(location.archive_path, archive_before)
    shutil.rmtree(folder)
    return ROLLED_BACK


def require_parts(snapshot: Snapshot) -> None:
    """Every file the manifest says its folder holds, checked before anything is written from them: a
    folder emptied by hand must not read as "there was no store" (undo would delete it) nor stop an undo
    halfway, after the agent file and before the store."""
    manifest = snapshot.manifest
    needed = ["agent.before", *(["store.before"] if manifest.store_existed else []),
              *(["archive.before"] if manifest.archive_after is not None and manifest.archive_existed else []),
              *([STORE_UNDO] if manifest.undo_from is not None else [])]
    missing = [name for name in needed if not check_regular(snapshot.folder / name, "snapshot file")]
    if missing:
        raise UndoError(f"{snapshot.folder}: the snapshot has no {' and no '.join(missing)} (removed by hand?), so the "
                        f"{manifest.kind} of {manifest.created} cannot be undone or finished from it; nothing was "
                        "restored. Move that folder out of the way and run the command again.")


def _block_rolled_back(location: store.AgentLocation, manifest: Manifest, agent_before: bytes) -> bytes | None:
    """The agent file as it is now, edited by a person since a commit was cut short after writing it, with
    the learned block as it was before the commit, byte for byte: the edit (outside the block) is kept and
    the rules the commit made permanent come back out. None when the block is neither the commit's nor the
    one before it: rolling back would then throw away what the person wrote there."""
    now, name = _read(location.agent_path), str(location.agent_path)
    try:
        text, before = (now or b"").decode("utf-8"), agent_before.decode("utf-8")
        block = read_block(text, filename=name)
        if block is not None and block == read_block(before, filename=name):
            return now  # put back by hand already: only the store side is left to roll back
        span, old = find_block(text, filename=name), find_block(before, filename=name)
    except (BlockMarkerError, UnicodeDecodeError):
        return None
    if span is None or block_digest(block or []) != manifest.block_after:
        return None
    if old is None:  # the commit added the block: it goes, with the blank line it added
        return write_block(text, [], filename=name).encode("utf-8")
    return (text[:span.start_line] + before[old.start_line:old.after] + text[span.after:]).encode("utf-8")


def latest(location: store.AgentLocation) -> Snapshot | None:
    snapshots = listing(location)
    return snapshots[0] if snapshots else None


def last_block(location: store.AgentLocation) -> str | None:
    """The digest of the learned block the newest tidy-up left (a capture pass never writes the block)."""
    return next((s.manifest.block_after for s in listing(location) if s.manifest.kind == TIDY_UP), None)


def _prune(location: store.AgentLocation) -> None:
    for old in listing(location)[KEEP:]:
        shutil.rmtree(old.folder, ignore_errors=True)


def undo(location: store.AgentLocation, *, expected: str | None = None) -> Snapshot:
    """Restore both files from the newest snapshot and remove it, as one step: the pending marker and the
    manifest's `undoing` are written before the first file, so a crash anywhere in between is finished by
    the next command (`recover`), and a reader that settles first never sees one file undone and not the
    other. The snapshot is chosen under the locks: chosen before them, an undo that another undo (or a pass)
    got ahead of would judge a snapshot that is gone, or no longer the newest, and refuse as if the files had
    been edited.

    `expected`: the name of the snapshot folder the person is looking at (the Undo button of a page): undo
    only that one. A pass that ran after the page was drawn (a run's capture, a tidy-up from the terminal),
    or that same Undo pressed twice, must not undo a pass the person never saw."""
    with locks(location):
        # An undo killed part way is finished here, and it is the undo this one was asked for: the person
        # saw no outcome and ran it again. So is a pass cut short and rolled back: it is undone already. Going
        # on to the next snapshot would take back a pass they never asked to undo (a graduating tidy-up's
        # block, with no redo). A pass that stands is this undo's to take back, as any other.
        settled = recover(location, tell=False)
        for snapshot, how in settled:
            if how in (UNDONE, ROLLED_BACK) and expected in (None, snapshot.folder.name):
                return snapshot.model_copy(update={"resumed": how})
            said(location, snapshot, how)
        for stuck in (s for s in _all(location) if not s.manifest.settled):
            raise UndoError(
                f"The {stuck.manifest.kind} of {stuck.manifest.created} was cut short after writing "
                f"{location.agent_path}, and the learned block there was edited since, so it was neither finished "
                f"nor rolled back. Put the block back as it is in {stuck.folder / 'agent.before'} (edits elsewhere "
                "in the file can stay), then run any command: it rolls the rest back.")
        snapshot = latest(location)
        if snapshot is None and expected is not None:
            raise UndoError(_not_newest(location, expected, None))
        if snapshot is None:
            raise UndoError(f"Nothing to undo: no tidy-up of {location.agent_path}, nor a capture that rewrote its "
                            f"rules, has been recorded (or the last one was already undone).")
        if expected is not None and snapshot.folder.name != expected:
            raise UndoError(_not_newest(location, expected, snapshot))
        require_parts(snapshot)
        changed = blockers(location, snapshot)
        if changed:
            raise UndoError(
                f"Cannot undo the {snapshot.manifest.kind} of {snapshot.manifest.created}: {' and '.join(changed)} "
                f"changed since "
                f"it ran, and undoing would throw those changes away. Nothing was restored.")
        # The marker first: `store.settle` only looks for it, and it must see the undo from its first write.
        store.atomic_write(store.pending_tidy_marker(location), snapshot.manifest.created)
        update: dict[str, object] = {"undoing": True}
        store_now = _read(location.store_path)
        if digest(store_now) != snapshot.manifest.store_after:  # runs counted since: carry their counts back
            _, leaves = _store_target(location, snapshot, store_now)
            assert leaves is not None  # blockers() above found it undoable, so it leaves a store
            store.atomic_write(snapshot.folder / STORE_UNDO, leaves)
            update["undo_from"] = digest(store_now)
        manifest = snapshot.manifest.model_copy(update=update)
        store.atomic_write(snapshot.folder / MANIFEST, manifest.model_dump_json(indent=2))
        _finish_undo(location, Snapshot(folder=snapshot.folder, manifest=manifest))
    return Snapshot(folder=snapshot.folder, manifest=manifest)  # `undo_from` set: it carried runs' counts


def _not_newest(location: store.AgentLocation, expected: str, newest: Snapshot | None) -> str:
    shown = next((s for s in _all(location) if s.folder.name == expected), None)
    if shown is None:
        return ("That pass was undone already (or is no longer recorded), so nothing was undone. "
                "Look at the agent's learnings again before undoing anything else.")
    later = f"the {newest.manifest.kind} of {newest.manifest.created}" if newest is not None else "another pass"
    return (f"The {shown.manifest.kind} of {shown.manifest.created} is no longer the newest pass: {later} ran "
            "after it, and undo takes the newest first. Nothing was undone; look at what that pass did before "
            f"undoing it (agentuse learnings undo {shell_word(location.agent_path)}).")


def _finish_undo(location: store.AgentLocation, snapshot: Snapshot) -> None:
    """Put back each file that still holds what the pass wrote; one already put back is left as it is. So
    it can run again after being killed at any point, and ends where one uninterrupted undo ends. The
    caller holds the locks."""
    manifest, folder = snapshot.manifest, snapshot.folder
    if digest(_read(location.agent_path)) == manifest.agent_after:
        _restore(location.agent_path, (folder / "agent.before").read_bytes(), follow_symlinks=True)
    store_now = digest(_read(location.store_path))
    if manifest.undo_from is not None and store_now == manifest.undo_from:
        _restore(location.store_path, (folder / STORE_UNDO).read_bytes())
    elif store_now == manifest.store_after:
        _put(location.store_path, (folder / "store.before").read_bytes() if manifest.store_existed else None)
    # After the store: killed in between, the rules are in both files, never in neither.
    restorable, archive_before = _archive_target(snapshot, _read(location.archive_path))
    if restorable:
        _put(location.archive_path, archive_before)
    (folder / MANIFEST).unlink()  # first: a folder without its manifest is inert, however much rmtree got done
    shutil.rmtree(folder)
    store.fsync_dir(folder.parent)
    store.pending_tidy_marker(location).unlink(missing_ok=True)


def blockers(location: store.AgentLocation, snapshot: Snapshot) -> list[str]:
    """The files changed since the tidy-up in a way undo would throw away: it refuses while any are."""
    manifest = snapshot.manifest
    changed = []
    if wrote_agent(snapshot) and digest(_read(location.agent_path)) != manifest.agent_after:
        changed.append(str(location.agent_path))
    if not _store_target(location, snapshot, _read(location.store_path))[0]:
        changed.append(str(location.store_path))
    if not _archive_target(snapshot, _read(location.archive_path))[0]:
        changed.append(str(location.archive_path))
    return changed


def wrote_agent(snapshot: Snapshot) -> bool:
    """Whether the pass changed the agent file (told from its copy for manifests older than `agent_written`).
    Undo puts back only a file the pass changed (`_finish_undo`)."""
    return snapshot.manifest.agent_written and digest(_read(snapshot.folder / "agent.before")) != \
        snapshot.manifest.agent_after


def _store_target(location: store.AgentLocation, snapshot: Snapshot, now: bytes | None) -> tuple[bool, bytes | None]:
    """(undoable, the store undo leaves) given the store as it is `now`.

    Unchanged since the pass: the bytes before it, exactly (None: there was no store). Changed since only
    by runs' counts: the rules before it, with those counts carried onto them (module docstring). Anything
    else is not undoable."""
    manifest, folder = snapshot.manifest, snapshot.folder
    before = _read(folder / "store.before") if manifest.store_existed else None
    if digest(now) == manifest.store_after:
        return True, before
    written = _read(folder / STORE_AFTER)
    if written is None or now is None:
        return False, now
    try:
        old, then, current = (_parsed(location, data, name) for data, name in
                              ((before, folder / "store.before"), (written, folder / STORE_AFTER),
                               (now, location.store_path)))
    except (StoreFormatError, UnicodeDecodeError):
        return False, now
    carried = store_merge.carry_back(old.learnings, then.learnings, current.learnings, carriers=manifest.carriers)
    # And byte for byte what a run counting on the pass's store writes: a change the rules do not show (a
    # blank line, text the reader skips) is a person's, and undo would throw it away.
    counted = then.model_copy(update={"learnings": current.learnings})
    if carried is None or now != render(counted).encode("utf-8"):
        return False, now
    return True, render(old.model_copy(update={"learnings": carried})).encode("utf-8")


def _parsed(location: store.AgentLocation, data: bytes | None, path: Path) -> StoreDoc:
    if data is None:
        return StoreDoc(name=location.name, agent=location.breadcrumb)
    return parse(data.decode("utf-8-sig"), filename=str(path))


def _archive_target(snapshot: Snapshot, now: bytes | None) -> tuple[bool, bytes | None]:
    """(undoable, the archive undo leaves) given the archive as it is `now`.

    Unchanged since the tidy-up: the bytes before it, exactly (None: there was no archive). Appended to
    since: the tidy-up's entries cut out, the later ones kept (`store.archive_base` keeps each append's
    bytes in place). Anything else is not undoable. A tidy-up that appended nothing leaves it alone."""
    manifest = snapshot.manifest
    if manifest.archive_after is None:
        return True, now
    if digest(now) == manifest.archive_after:
        before = snapshot.folder / "archive.before"
        return True, before.read_bytes() if manifest.archive_existed else None
    end = manifest.archive_end
    if now is not None and len(now) > end and digest(now[:end]) == manifest.archive_upto:
        return True, now[:manifest.archive_kept] + now[end:]
    return False, now


@dataclass
class StorePass:
    """A pass that rewrites the store alone (capture's re-vet, its drain), as the caller fills it in."""

    doc: StoreDoc  # the store as read under the locks; the caller changes it in place
    retired: list[tuple[Learning, str]] = field(default_factory=list)  # rules that left the store, each with its archive reason
    before: bytes | None = None  # the store undo returns to: as read, unless `undo_point` moved it
    # Set when the pass rewrote, quarantined or retired existing rules (not when it only added or counted):
    # the pass is then one undo, and undo says this is what it undid.
    summary: str = ""
    kind: str = ""  # what undo calls the pass, when the caller knows better than at the start (a capture fold)
    carriers: dict[str, str] = field(default_factory=dict)  # a rule folded away -> the rule that now carries it

    def undo_point(self) -> None:
        """What the caller did to `doc` so far is not part of the pass: undo returns to it. Capture places
        its new records and then drains, in one write (old or new on a crash, never half); undoing the
        drain must not take the new records with it. Unchanged so far: the bytes as read, exactly."""
        text = render(self.doc)
        if self.before is None or text != self.before.decode("utf-8-sig"):
            self.before = text.encode("utf-8")


@contextmanager
def store_pass(location: store.AgentLocation, *, kind: str) -> Iterator[StorePass]:
    """Lock, read the store, let the caller change it; then write once as a tidy-up commit does: snapshot
    (when the caller set a summary), archive, store, mark complete, all under the commit's locks, so undo
    and `recover` treat the pass exactly like a tidy-up. Nothing is written when the block raises."""
    with locks(location):
        snapshot = None
        with store.transaction(location) as doc:
            work = StorePass(doc=doc, before=_read(location.store_path))
            yield work
            archive = archive_append(location, work.retired)
            store_after = render(doc).encode("utf-8")  # what the transaction writes on the way out
            if work.summary and (archive is not None or store_after != work.before):
                agent = _read(location.agent_path) or b""
                block = read_block(agent.decode("utf-8-sig"), filename=str(location.agent_path)) or []
                snapshot = take(location, agent_before=agent, store_before=work.before, agent_after=agent,
                                store_after=store_after, block_after=block, summary=work.summary,
                                archive=archive, complete=False, kind=work.kind or kind,
                                carriers=work.carriers)
            # Archived before the store drops them: a crash in between leaves a rule in both, never in neither.
            if archive is not None:
                store.atomic_write(location.archive_path, archive.after)
        if snapshot is not None:
            mark_complete(snapshot)


@contextmanager
def locks(location: store.AgentLocation) -> Iterator[None]:
    """The locks of everything a tidy-up commit writes, taken in the commit's order (none waits on another)."""
    with ExitStack() as stack:
        for path in (tidy_lock_path(location), location.store_path, location.archive_path):
            stack.enter_context(store.lock_for(path))
        yield


def _put(path: Path, data: bytes | None) -> None:
    if data is None:
        store.refuse_link(path)
        path.unlink(missing_ok=True)
    else:
        _restore(path, data)


def _restore(path: Path, data: bytes, *, follow_symlinks: bool = False) -> None:
    # The files were read as UTF-8 before the tidy-up (a BOM survives the round trip as U+FEFF), so
    # decoding and re-encoding gives back the same bytes. A file the tidy-up left alone is not rewritten,
    # so undo works even when graduation was skipped because the agent file is read-only.
    if _read(path) != data:
        store.atomic_write(path, data.decode("utf-8"), follow_symlinks=follow_symlinks)


def tidy_lock_path(location: store.AgentLocation) -> Path:
    """One lock per agent for everything that writes its agent file (tidy-up commit, undo). It lives in
    the state directory: a lock file beside the agent file would dirty the user's working tree."""
    return location.store_path.with_name(location.store_path.name.removesuffix(store.STORE_SUFFIX) + ".agentfile")
