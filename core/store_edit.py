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
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel

from agentuse.core import store, store_merge
from agentuse.core.errors import AgentuseError
from agentuse.core.file_access import read_optional
from agentuse.core.store_format import StoreDoc, StoreFormatError, parse, render


class EditRefused(AgentuseError):
    """The edited copy was not written into the store; it is kept, and the message says where."""


class Outcome(BaseModel):
    changed: bool = False  # the store was written
    merged: bool = False  # ...onto changes made while the editor was open
    kept_added: int = 0  # rules added meanwhile, kept beside the edit


def _read(path: Path) -> bytes | None:
    return read_optional(path, "learnings file")


def begin(location: store.AgentLocation) -> tuple[Path, bytes]:
    """The copy to open in the editor and the store's bytes it starts from (an empty store is created)."""
    store.settle(location)
    with store.lock_for(location.store_path):
        baseline = _read(location.store_path)
        if baseline is None:
            baseline = render(store.load(location)).encode("utf-8")
            store.atomic_write(location.store_path, baseline)
    stem = location.key.removesuffix(store.AGENT_SUFFIX)
    stamp = f"{datetime.now(timezone.utc):%Y%m%dT%H%M%S}-{secrets.token_hex(2)}"
    copy = location.project_dir / "edits" / f"{stem}.{stamp}{store.STORE_SUFFIX}"
    copy.parent.mkdir(parents=True, exist_ok=True)
    store.atomic_write(copy, baseline)
    return copy, baseline


def _kept(copy: Path) -> str:
    return f"Your edit is kept at {copy}"


def finish(location: store.AgentLocation, copy: Path, baseline: bytes) -> Outcome:
    """Write the edited copy into the store (module docstring); the copy is removed once it is in."""
    edited = copy.read_bytes()
    if edited == baseline:
        copy.unlink()
        return Outcome()
    try:
        mine = parse(edited.decode("utf-8-sig"), filename=str(copy))
    except (StoreFormatError, UnicodeDecodeError) as broken:
        raise EditRefused(f"{broken}. Nothing was written to {location.store_path}. {_kept(copy)}: fix it "
                          "there and run --edit again to redo the change.") from None
    store.settle(location)
    with store.lock_for(location.store_path):
        now = _read(location.store_path)
        if now == baseline:
            store.atomic_write(location.store_path, edited)
            copy.unlink()
            return Outcome(changed=True)
        start = _parse(location, baseline)
        theirs = _parse(location, now)
        try:
            merged = store_merge.merge(start.learnings, mine.learnings, theirs.learnings)
        except store_merge.MergeConflict as conflict:
            raise EditRefused(f"The learnings changed while the editor was open ({conflict.names()}), so "
                              f"nothing was written. {_kept(copy)}: run --edit again and redo the change.") from None
        doc = mine.model_copy(update={"learnings": merged, "name": mine.name or location.name,
                                      "agent": mine.agent or location.breadcrumb})
        store.atomic_write(location.store_path, render(doc))
    copy.unlink()
    before = {r.id for r in start.learnings}
    return Outcome(changed=True, merged=True, kept_added=sum(1 for r in theirs.learnings if r.id not in before))


def _parse(location: store.AgentLocation, data: bytes | None) -> StoreDoc:
    if data is None:  # deleted meanwhile: every rule the edit changed is then a conflict
        return StoreDoc(name=location.name)
    return parse(data.decode("utf-8-sig"), filename=str(location.store_path))
