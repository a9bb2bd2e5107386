"""`agentuse learnings <agent> --edit`: a person edits a copy of the store, never the store itself.

The editor may stay open for as long as the person likes, and meanwhile a run counts an injection or a
capture adds a rule. Writing the edited text over the store would throw those away, and an editor saving
in place would do it before anyone could look. So the person edits a copy (beside the agent's other state,
not in `learnings/`), and when the editor closes the copy is read back, under the store's lock:

- the store did not change meanwhile: the copy becomes the store, byte for byte as typed;
- it changed: the edit is merged onto it (core/store_merge.py): rules added meanwhile are kept, counts
  recorded meanwhile land on the edited rules by id; a rule the person edited or deleted that changed
  meanwhile is a conflict, and nothing is written;
- the copy does not parse, or conflicts: the store is left as it is, and the copy stays where it is, its
  path in the error, so nothing the person typed is lost.

A rule deleted in the editor is not deleted: it goes to the archive, as `learnings discard` files it
(core/discard.py), before the store is written, and `archived_lines` names each one and how to restore
it. An editor that saved an empty buffer archives every rule that way, and the lines say so first.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel

from agentuse.core import store, store_merge
from agentuse.core.errors import AgentuseError
from agentuse.core.file_access import FileAccessError, make_folder, read_optional, read_regular
from agentuse.core.learning import Learning
from agentuse.core.store_format import StoreDoc, StoreFormatError, parse, render

EDIT_REASON = "removed in learnings --edit"  # the archive's reason, beside discard's "discarded by hand"


class EditRefused(AgentuseError):
    """The edited copy was not written into the store; it is kept, and the message says where."""


class Outcome(BaseModel):
    changed: bool = False  # the store was written
    merged: bool = False  # ...onto changes made while the editor was open
    kept_added: int = 0  # rules added meanwhile, kept beside the edit
    archived: list[Learning] = []  # rules the edit removed, as they were in the store: now in the archive
    emptied: bool = False  # the editor saved nothing at all


def _read(path: Path) -> bytes | None:
    return read_optional(path, "learnings file")


def begin(location: store.AgentLocation) -> tuple[Path, bytes]:
    """The copy to open in the editor and the store's bytes it starts from (an empty store is created)."""
    store.settle(location)
    with store.lock_for(location.store_path):
        baseline = _read(location.store_path)
        if baseline is None:
            baseline = render(store.load(location, settled=True)).encode("utf-8")
            store.atomic_write(location.store_path, baseline)
    stem = location.key.removesuffix(store.AGENT_SUFFIX)
    stamp = f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{secrets.token_hex(2)}"
    copy = location.project_dir / "edits" / f"{stem}.{stamp}{store.STORE_SUFFIX}"
    make_folder(copy.parent)
    store.atomic_write(copy, baseline)
    return copy, baseline


def unsaved(copy: Path) -> list[Path]:
    """The other copies of this agent's store still in edits/: each one an edit that was never written in
    (refused, or its command killed while the editor was open), holding what the person typed."""
    stem = copy.name.removesuffix(store.STORE_SUFFIX).rsplit(".", 1)[0]  # `begin` names it <stem>.<stamp><suffix>
    pattern = re.compile(rf"^{re.escape(stem)}\.\d{{8}}T\d{{6}}-[0-9a-f]{{4}}{re.escape(store.STORE_SUFFIX)}$")
    return sorted(p for p in copy.parent.iterdir() if p != copy and pattern.match(p.name))


def _kept(copy: Path) -> str:
    return f"Your edit is kept at {copy}"


def finish(location: store.AgentLocation, copy: Path, baseline: bytes) -> Outcome:
    """Write the edited copy into the store (module docstring); the copy is removed once it is in."""
    edited = _read_copy(location, copy)
    if edited == baseline:
        copy.unlink()
        return Outcome()
    try:
        mine = parse(edited.decode("utf-8-sig"), filename=str(copy))
    except (StoreFormatError, UnicodeDecodeError) as broken:
        raise EditRefused(f"{broken}. Nothing was written to {location.store_path}. {_kept(copy)}: fix it "
                          "there and run --edit again to redo the change.") from None
    emptied = not edited.strip()
    store.settle(location)
    with store.lock_for(location.store_path):
        now = _read(location.store_path)
        if now == baseline:
            removed = _archive_removed(location, _readable(location, baseline), mine.learnings, copy=copy)
            store.atomic_write(location.store_path, edited)
            copy.unlink()
            return Outcome(changed=True, archived=removed, emptied=emptied)
        start = _parse(location, baseline)
        theirs = _parse(location, now)
        try:
            merged = store_merge.merge(start.learnings, mine.learnings, theirs.learnings)
        except store_merge.MergeConflict as conflict:
            raise EditRefused(f"The learnings changed while the editor was open ({conflict.names()}), so "
                              f"nothing was written. {_kept(copy)}: run --edit again and redo the change.") from None
        doc = mine.model_copy(update={"learnings": merged, "name": mine.name or location.name,
                                      "agent": mine.agent or location.breadcrumb})
        removed = _archive_removed(location, theirs.learnings, merged, copy=copy)
        store.atomic_write(location.store_path, render(doc))
    copy.unlink()
    before = {r.id for r in start.learnings}
    return Outcome(changed=True, merged=True, kept_added=sum(1 for r in theirs.learnings if r.id not in before),
                   archived=removed, emptied=emptied)


def _read_copy(location: store.AgentLocation, copy: Path) -> bytes:
    """The copy as the editor left it. An editor may delete it, or leave something else at its path: then
    there is no edit to merge, and the store is not touched."""
    try:
        return read_regular(copy, "learnings file")
    except FileNotFoundError:
        raise EditRefused(f"the editor left no file at {copy}: nothing was written to {location.store_path}") from None
    except FileAccessError as odd:
        raise EditRefused(f"{odd}; nothing was written to {location.store_path}") from None


def _readable(location: store.AgentLocation, baseline: bytes) -> list[Learning]:
    """The rules the store held when the editor opened. A store that did not parse is what --edit repairs:
    it offered no rule to remove, and the repaired text is written as typed, as before."""
    try:
        return _parse(location, baseline).learnings
    except (StoreFormatError, UnicodeDecodeError):
        return []


def _archive_removed(location: store.AgentLocation, now: list[Learning], written: list[Learning], *,
                     copy: Path) -> list[Learning]:
    """Archive the rules in the store `now` that the store about to be `written` no longer holds. Before
    the store is written, under its lock, as discard does: a crash in between leaves a rule in both."""
    kept = {r.id for r in written}
    removed = [r for r in now if r.id not in kept]
    try:
        store.archive(location, removed, reason=EDIT_REASON)
    except StoreFormatError as broken:  # never appended to an archive it cannot read
        raise EditRefused(f"{broken}. The rules you removed could not be archived there, so nothing was written "
                          f"to {location.store_path}. {_kept(copy)}: fix the archive and run --edit again.") from None
    return removed


def archived_lines(outcome: Outcome, location: store.AgentLocation, *, agent_arg: str) -> list[str]:
    """What the command says about the rules the edit archived: how many, where, each one, how to undo."""
    rules = outcome.archived
    if not rules:
        return []
    where = f"not deleted: {location.archive_path}"
    if outcome.emptied:
        head = f"The edited file was empty: all {len(rules)} rules were archived, {where}"
    else:
        head = f"Archived {len(rules)} rule{'s' if len(rules) != 1 else ''} removed in the editor, {where}"
    return [head, *(f'  "{r.title}" (id:{r.id})' for r in rules),
            f"Put one back with: agentuse learnings restore {agent_arg} <id>"]


def _parse(location: store.AgentLocation, data: bytes | None) -> StoreDoc:
    if data is None:  # deleted meanwhile: every rule the edit changed is then a conflict
        return StoreDoc(name=location.name)
    return parse(data.decode("utf-8-sig"), filename=str(location.store_path))
