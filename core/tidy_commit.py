"""Reading what a tidy-up works on, and writing its result once at the end (spec: Tidying up).

The tidy-up works in memory for as long as its passes take. At the end it takes the locks, re-reads both
files and merges its result onto what is there now: runs that finished meanwhile bumped counters, and a
capture may have added rules; neither conflicts. A concurrent edit to a rule the tidy-up changed, or any
edit to the agent file, does conflict: the tidy-up then writes nothing and says to run it again. Then it
snapshots the files (for undo) and writes the archive, the agent file, then the store, each once.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from agentuse.core import snapshots, store
from agentuse.core.agent_file import AgentFile, load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.errors import AgentuseError
from agentuse.core.graduate import writable
from agentuse.core.learned_block import BlockRule, read_block, write_block
from agentuse.core.learning import Learning
from agentuse.core.store_format import StoreDoc, parse, render
from agentuse.core.tidy_state import TidyState


class ConcurrentEditError(AgentuseError):
    """Something the tidy-up changed was edited while it ran."""


class Prepared(BaseModel):
    """Both files as the tidy-up read them: the baseline its result is merged against."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    location: store.AgentLocation
    agent: AgentFile
    agent_bytes: bytes
    store_bytes: bytes | None
    doc: StoreDoc
    block: list[BlockRule]
    current_ih: str
    cap: int
    writable: bool


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def prepare(agent_path: Path) -> Prepared:
    snapshots.recover(store.locate(agent_path))  # a tidy-up killed mid-write is rolled back first
    agent = load_agent(agent_path)
    location = store.locate(agent_path)
    store_bytes = _read(location.store_path)
    doc = store.load(location)
    block = read_block(agent.text, filename=str(agent_path)) or []  # unbalanced markers raise here
    cap = agent.cap
    return Prepared(location=location, agent=agent, agent_bytes=agent.text.encode("utf-8"), store_bytes=store_bytes,
                    doc=doc, block=block, current_ih=agent_hash(agent), cap=cap,
                    writable=writable(Path(agent_path)))


def agent_text(prepared: Prepared, block: list[BlockRule]) -> str:
    """The agent file with the new block: only the bytes inside the markers change."""
    if block == prepared.block:
        return prepared.agent.text
    return write_block(prepared.agent.text, block, filename=str(prepared.location.agent_path))


def store_doc(prepared: Prepared, state: TidyState) -> StoreDoc:
    return prepared.doc.model_copy(update={"learnings": [r.model_copy() for r in state.learnings]})


def store_text(prepared: Prepared, state: TidyState) -> str:
    return render(store_doc(prepared, state))


def diff(before: str, after: str, name: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{name}", tofile=f"b/{name}"))


# --- merging onto what is there now -------------------------------------------------------------------------

_CONTENT = ("category", "title", "body", "state", "ih", "why")
_COUNTERS = ("injected", "ok", "re")


def _content(rule: Learning) -> tuple:
    return tuple(getattr(rule, key) for key in _CONTENT)


def merge_onto(start: list[Learning], result: list[Learning], now: list[Learning]) -> list[Learning]:
    """The tidy-up's result applied to the store as it is now.

    Rules the tidy-up left alone are taken as they are now; rules it changed keep its version plus any
    counts runs added meanwhile; rules added meanwhile are kept at the end. Counts added meanwhile to a
    rule that was merged away are not carried into the merged rule: a few runs' worth, against a rule
    that no longer exists."""
    before = {r.id: r for r in start}
    current = {r.id: r for r in now}
    final = {r.id: r for r in result}
    conflicts = []
    for rule_id, old in before.items():
        mine = final.get(rule_id)
        if mine is not None and mine == old:
            continue  # untouched by the tidy-up: whatever it is now wins, even deleted
        theirs = current.get(rule_id)
        if theirs is None or _content(theirs) != _content(old):
            conflicts.append(old.title)
    if conflicts:
        names = ", ".join(f'"{t}"' for t in conflicts[:5]) + (" and more" if len(conflicts) > 5 else "")
        raise ConcurrentEditError(f"The learnings changed while tidying up ({names} edited meanwhile), so nothing "
                                  "was written. Run the tidy-up again.")
    merged = []
    for rule in result:
        old = before.get(rule.id)
        if old is not None and rule == old:
            if rule.id in current:
                merged.append(current[rule.id])
            continue
        if old is not None:
            bumps = {k: getattr(rule, k) + getattr(current[rule.id], k) - getattr(old, k) for k in _COUNTERS}
            rule = rule.model_copy(update=bumps)
        merged.append(rule)
    merged += [r for r in now if r.id not in before and r.id not in final]
    return merged


def commit(prepared: Prepared, state: TidyState, block: list[BlockRule], *, summary: str) -> snapshots.Snapshot:
    location = prepared.location
    with snapshots.locks(location):
        agent_now = _read(location.agent_path)
        if agent_now != prepared.agent_bytes:
            raise ConcurrentEditError(f"{location.agent_path} changed while tidying up, so nothing was written. "
                                      "Run the tidy-up again.")
        store_now = _read(location.store_path)
        now_doc = prepared.doc if store_now == prepared.store_bytes else _parse(store_now, location)
        doc = store_doc(prepared, state)
        doc.learnings = merge_onto(prepared.doc.learnings, state.learnings, now_doc.learnings)
        new_agent = agent_text(prepared, block)
        new_store = render(doc)
        archive = _archive_append(location, state)
        snapshot = snapshots.take(location, agent_before=agent_now, store_before=store_now,
                                  agent_after=new_agent.encode("utf-8"), store_after=new_store.encode("utf-8"),
                                  block_after=block, summary=summary, archive=archive, complete=False)
        # Archived before the store drops them: a crash in between leaves a rule in both, never in neither.
        if archive is not None:
            store.atomic_write(location.archive_path, archive.after.decode("utf-8"))
        # Agent file first: if the store write never happens, `snapshots.recover` puts it back.
        if new_agent != prepared.agent.text:
            store.atomic_write(location.agent_path, new_agent, follow_symlinks=True)
        store.atomic_write(location.store_path, new_store)
        return snapshots.mark_complete(snapshot)


def _archive_append(location: store.AgentLocation, state: TidyState) -> snapshots.ArchiveAppend | None:
    """Everything the tidy-up retires, appended to the archive in one write (the caller holds its lock), and
    where the old archive ends in the new one: the snapshot needs both for undo to take them back out."""
    if not state.archived:
        return None
    before = _read(location.archive_path)
    base = store.archive_base(location, before)
    groups: dict[str, list[Learning]] = {}
    for item in state.archived:
        groups.setdefault(item.reason, []).append(item.learning)
    entries = "".join(store.archive_entries(rules, reason=reason).removesuffix("\n")
                      for reason, rules in groups.items())
    return snapshots.ArchiveAppend(before=before, after=f"{base}{entries}\n".encode("utf-8"),
                                   kept=len(base.encode("utf-8")))


def written_diffs(prepared: Prepared, snapshot: snapshots.Snapshot) -> dict[str, str]:
    """Both diffs of a tidy-up that wrote, from its snapshot (the bytes before) to the files as written."""
    location = prepared.location
    pairs = {"learnings file": (snapshot.folder / "store.before", location.store_path),
             "agent file": (snapshot.folder / "agent.before", location.agent_path)}
    return {title: diff(_text(before), _text(after), after.name) for title, (before, after) in pairs.items()}


def _text(path: Path) -> str:
    data = _read(path)
    return "" if data is None else data.decode("utf-8-sig")


def _parse(data: bytes | None, location: store.AgentLocation) -> StoreDoc:
    if data is None:
        return StoreDoc(name=location.name, agent=location.breadcrumb)
    return parse(data.decode("utf-8-sig"), filename=str(location.store_path))
