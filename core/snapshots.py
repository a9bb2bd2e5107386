"""Undo snapshots of a tidy-up (spec: Storage `consolidations/`; Tidying up, "one tidy-up is one Undo").

Before a tidy-up writes, the exact bytes of both files go into a snapshot folder, with the digests of
what the tidy-up is about to write. Undo restores the newest snapshot byte for byte and removes it, but
only while both files still hold what the tidy-up wrote: anything written since (a run, a hand edit)
would be silently lost otherwise, so undo refuses and says which file changed.

    consolidations/<agent key minus .agentuse>/<YYYYmmddTHHMMSS>-<4 hex>/
        manifest.json   agent.before   store.before (absent when the store did not exist)
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel

from agentuse.core import store
from agentuse.core.errors import AgentuseError
from agentuse.core.learned_block import BlockRule

KEEP = 20  # newest snapshots kept per agent
MANIFEST = "manifest.json"


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
    summary: str = ""
    # False from the moment the commit snapshots until both files are written. A tidy-up killed in between
    # leaves it False, and `recover` then puts back what it had written (manifests from before this field
    # existed read as complete).
    complete: bool = True


class Snapshot(BaseModel):
    folder: Path
    manifest: Manifest


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
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def take(location: store.AgentLocation, *, agent_before: bytes, store_before: bytes | None,
         agent_after: bytes, store_after: bytes, block_after: list[BlockRule], summary: str = "",
         now: datetime | None = None, complete: bool = True) -> Snapshot:
    """Write a snapshot before the commit; the caller holds the locks of both files."""
    now = now or datetime.now(timezone.utc)
    folder = _root(location) / f"{now:%Y%m%dT%H%M%S}-{secrets.token_hex(2)}"
    folder.mkdir(parents=True)
    (folder / "agent.before").write_bytes(agent_before)
    if store_before is not None:
        (folder / "store.before").write_bytes(store_before)
    manifest = Manifest(created=now.isoformat(timespec="seconds"), agent_path=str(location.agent_path),
                        store_path=str(location.store_path), store_existed=store_before is not None,
                        agent_after=digest(agent_after), store_after=digest(store_after),
                        block_after=block_digest(block_after), summary=summary, complete=complete)
    # The manifest last: a folder without one is an interrupted snapshot and is never offered to undo.
    (folder / MANIFEST).write_text(manifest.model_dump_json(indent=2), encoding="utf-8")
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
    root = _root(location)
    if not root.is_dir():
        return []
    found = []
    for folder in sorted((p for p in root.iterdir() if p.is_dir()), reverse=True):
        try:
            manifest = Manifest.model_validate(json.loads((folder / MANIFEST).read_text(encoding="utf-8")))
        except (FileNotFoundError, ValueError):
            continue
        found.append(Snapshot(folder=folder, manifest=manifest))
    return found


def listing(location: store.AgentLocation) -> list[Snapshot]:
    """Complete snapshots of this agent, newest first (an interrupted tidy-up's is not an undo)."""
    return [snapshot for snapshot in _all(location) if snapshot.manifest.complete]


def recover(location: store.AgentLocation) -> None:
    """Finish the story of a tidy-up that was killed while writing: both files as before, or both as after.

    The commit writes the agent file, then the store, then marks its snapshot complete. A snapshot still
    incomplete means the process died on the way: when both files hold what it wrote, only the mark was
    missing; otherwise the agent file is put back (the store was not written yet) and the snapshot is
    dropped, so the interrupted tidy-up did not happen and undo reaches the one before it. A file edited
    since (neither version) is left alone, and undo says which one changed."""
    marker = store.pending_tidy_marker(location)
    if not marker.exists() and all(snapshot.manifest.complete for snapshot in _all(location)):
        return  # the common case: no lock taken
    # Under the commit's own locks: a commit still in flight finishes first, and only then is judged.
    with store.lock_for(tidy_lock_path(location)), store.lock_for(location.store_path):
        for snapshot in _all(location):
            if not snapshot.manifest.complete:
                _roll(location, snapshot)
        if all(snapshot.manifest.complete for snapshot in _all(location)):
            marker.unlink(missing_ok=True)


def _roll(location: store.AgentLocation, snapshot: Snapshot) -> None:
    """Forward when both files were written, back when only the agent file was."""
    manifest, folder = snapshot.manifest, snapshot.folder
    agent_now, store_now = digest(_read(location.agent_path)), digest(_read(location.store_path))
    if agent_now == manifest.agent_after and store_now == manifest.store_after:
        mark_complete(snapshot)
        return
    store_before = _read(folder / "store.before") if manifest.store_existed else None
    if store_now == manifest.store_after and store_now != digest(store_before):
        return  # the store was written and the agent file edited since: not ours to guess
    agent_before = (folder / "agent.before").read_bytes()
    if agent_now == manifest.agent_after:
        _restore(location.agent_path, agent_before)
    elif agent_now != digest(agent_before):
        return  # edited by hand since the crash: leave it for undo to explain
    shutil.rmtree(folder)


def latest(location: store.AgentLocation) -> Snapshot | None:
    snapshots = listing(location)
    return snapshots[0] if snapshots else None


def _prune(location: store.AgentLocation) -> None:
    for old in listing(location)[KEEP:]:
        shutil.rmtree(old.folder, ignore_errors=True)


def undo(location: store.AgentLocation) -> Snapshot:
    """Restore both files from the newest snapshot and remove it."""
    recover(location)
    snapshot = latest(location)
    if snapshot is None:
        raise UndoError(f"Nothing to undo: no tidy-up of {location.agent_path} has been recorded "
                        f"(or its last one was already undone).")
    tidy_lock = store.lock_for(tidy_lock_path(location))
    with tidy_lock, store.lock_for(location.store_path):
        changed = []
        if digest(_read(location.agent_path)) != snapshot.manifest.agent_after:
            changed.append(str(location.agent_path))
        if digest(_read(location.store_path)) != snapshot.manifest.store_after:
            changed.append(str(location.store_path))
        if changed:
            raise UndoError(
                f"Cannot undo the tidy-up of {snapshot.manifest.created}: {' and '.join(changed)} changed since "
                f"it ran, and undoing would throw those changes away. Nothing was restored.")
        _restore(location.agent_path, (snapshot.folder / "agent.before").read_bytes())
        if snapshot.manifest.store_existed:
            _restore(location.store_path, (snapshot.folder / "store.before").read_bytes())
        else:
            location.store_path.unlink(missing_ok=True)
        shutil.rmtree(snapshot.folder)
    return snapshot


def _restore(path: Path, data: bytes) -> None:
    # Both files were read as UTF-8 before the tidy-up (a BOM survives the round trip as U+FEFF), so
    # decoding and re-encoding gives back the same bytes. A file the tidy-up left alone is not rewritten,
    # so undo works even when graduation was skipped because the agent file is read-only.
    if _read(path) != data:
        store.atomic_write(path, data.decode("utf-8"))


def tidy_lock_path(location: store.AgentLocation) -> Path:
    """One lock per agent for everything that writes its agent file (tidy-up commit, undo). It lives in
    the state directory: a lock file beside the agent file would dirty the user's working tree."""
    return location.store_path.with_name(location.store_path.name.removesuffix(store.STORE_SUFFIX) + ".agentfile")
