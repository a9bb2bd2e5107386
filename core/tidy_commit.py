"""Reading what a tidy-up works on, and writing its result once at the end (spec: Tidying up).

The tidy-up works in memory for as long as its passes take. At the end it takes the locks, re-reads both
files and merges its result onto what is there now (core/store_merge.py): runs that finished meanwhile
bumped counters, a person repeated a rule, a capture added rules; none of it is lost, and counts on a rule
it merged away go to the merged rule. A concurrent edit to a rule the tidy-up changed, a repeat of a rule
it retires, or any edit to the agent file, does conflict: the tidy-up then writes nothing and says to run
it again. Then it
snapshots the files (for undo) and writes the archive, the agent file, then the store, each once.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentuse.core.file_access import read_optional
from agentuse.core import effectiveness, snapshots, store, store_merge
from agentuse.core.agent_file import AgentFile, load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.errors import AgentuseError
from agentuse.core.graduate import writable
from agentuse.core.learned_block import BlockRule, read_block, write_block
from agentuse.core.learning import Learning
from agentuse.core.store_format import StoreDoc, parse, render
from agentuse.core.tidy_report import TidyResult
from agentuse.core.tidy_state import TidyState


class ConcurrentEditError(AgentuseError):
    """Something the tidy-up changed was edited while it ran."""


@dataclass
class Prepared:
    """Both files as the tidy-up read them: the baseline its result is merged against. Built by `prepare`
    alone from what it read and validated, and never leaves the tidy-up: a plain value."""

    location: store.AgentLocation
    agent: AgentFile
    agent_bytes: bytes
    store_bytes: bytes | None
    doc: StoreDoc
    block: list[BlockRule]
    current_ih: str
    cap: int
    writable: bool
    # tool-errors rules whose failure recurred in their latest run (core/effectiveness)
    recurring: set[str] = field(default_factory=set)
    # rules reviewers commented on about while in force: rewritten like a repeat
    commented_about: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # said before the tidy-up's own notes (an index rebuilt from the logs)


def _read(path: Path) -> bytes | None:
    return read_optional(path, "file")


def prepare(agent_path: Path, *, recount: Callable[[store.AgentLocation, str], tuple[effectiveness.Index, str]]
            | None = None) -> Prepared:
    """Both files and the effectiveness figures. `recount` rebuilds an index that cannot be used (it reads
    session logs, which core never does) and gives the line saying so."""
    snapshots.recover(store.locate(agent_path))  # a tidy-up killed mid-write is rolled back first
    agent = load_agent(agent_path)
    location = store.locate(agent_path)
    store_bytes = _read(location.store_path)
    doc = store.load(location)
    block = read_block(agent.text, filename=str(agent_path)) or []  # unbalanced markers raise here
    cap = agent.cap
    index = effectiveness.load(effectiveness.index_path(location.project_dir, location.key), location.key)
    notes: list[str] = []
    if index.unreadable and recount is not None:
        index, line = recount(location, index.problem or "")
        notes.append(line)
    return Prepared(location=location, agent=agent, agent_bytes=agent.text.encode("utf-8"), store_bytes=store_bytes,
                    doc=doc, block=block, current_ih=agent_hash(agent), cap=cap,
                    writable=writable(Path(agent_path)), recurring=effectiveness.recurring_now(doc.learnings, index),
                    commented_about=effectiveness.commented_about(doc.learnings, index), notes=notes)


def agent_text(prepared: Prepared, block: list[BlockRule]) -> str:
    """The agent file with the new block: only the bytes inside the markers change."""
    if block == prepared.block:
        return prepared.agent.text
    return write_block(prepared.agent.text, block, filename=str(prepared.location.agent_path))


def store_doc(prepared: Prepared, state: TidyState) -> StoreDoc:
    return prepared.doc.model_copy(update={"learnings": [r.model_copy() for r in state.learnings]})


def store_text(prepared: Prepared, state: TidyState) -> str:
    return _rendered(store_doc(prepared, state), existed=prepared.store_bytes is not None)


def _rendered(doc: StoreDoc, *, existed: bool) -> str:
    """The store's new text; "" (not written) for a store there is none of and that would hold no rule: a
    tidy-up of an agent whose rules are all in its permanent block creates no header-only learnings file."""
    return render(doc) if existed or doc.learnings else ""


def diff(before: str, after: str, name: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{name}", tofile=f"b/{name}"))


# --- merging onto what is there now -------------------------------------------------------------------------


def merge_onto(start: list[Learning], result: list[Learning], now: list[Learning],
               moved: dict[str, str] | None = None) -> list[Learning]:
    """The tidy-up's result applied to the store as it is now (core/store_merge.py): counts runs and people
    added meanwhile are kept, on the rule that now carries them when the tidy-up merged theirs away."""
    try:
        return store_merge.merge(start, result, now, carriers=moved)
    except store_merge.MergeConflict as conflict:
        raise ConcurrentEditError(f"The learnings changed while tidying up ({conflict.names()}), so nothing "
                                  "was written. Run the tidy-up again.") from None


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
        doc.learnings = merge_onto(prepared.doc.learnings, state.learnings, now_doc.learnings, state.carriers())
        new_agent = agent_text(prepared, block)
        new_store = _rendered(doc, existed=store_now is not None)
        archive = _archive_append(location, state, now_doc.learnings, start=prepared.doc.learnings)
        snapshot = snapshots.take(location, agent_before=agent_now, store_before=store_now,
                                  agent_after=new_agent.encode("utf-8"), store_after=new_store.encode("utf-8"),
                                  block_after=block, summary=summary, archive=archive, complete=False,
                                  carriers=state.carriers())
        # Archived before the store drops them: a crash in between leaves a rule in both, never in neither.
        if archive is not None:
            store.atomic_write(location.archive_path, archive.after.decode("utf-8"))
        # Agent file first: if the store write never happens, `snapshots.recover` puts it back.
        if new_agent != prepared.agent.text:
            store.atomic_write(location.agent_path, new_agent, follow_symlinks=True)
        if new_store:
            store.atomic_write(location.store_path, new_store)
        return snapshots.mark_complete(snapshot)


def _archive_append(location: store.AgentLocation, state: TidyState, now: list[Learning], *,
                    start: list[Learning]) -> snapshots.ArchiveAppend | None:
    """Everything the tidy-up retires, in one append, each rule with the counts it has now: a run that
    counted it meanwhile is part of its history (the merged rule carries them too). A rule of the store that
    left it meanwhile (a capture's drain archived it) is not filed a second time."""
    current = {r.id: r for r in now}
    gone = {r.id for r in start} - set(current)

    def as_now(rule: Learning) -> Learning:
        theirs = current.get(rule.id)
        counts = {} if theirs is None else {k: getattr(theirs, k) for k in store_merge.COUNTERS}
        return rule.model_copy(update=counts)

    return snapshots.archive_append(location, [(as_now(item.learning), item.reason) for item in state.archived
                                               if item.learning.id not in gone])


def snapshot_diffs(folder: Path, agent_path: Path, store_path: Path) -> dict[str, str]:
    """Both diffs of a pass that wrote, from its snapshot (the bytes before) to the files as they are: exactly
    what undo would revert. The one place tidy diffs are made (the CLI, the artifact and the web page)."""
    pairs = {"learnings file": (folder / "store.before", store_path), "agent file": (folder / "agent.before", agent_path)}
    return {title: diff(_text(before), _text(after), after.name) for title, (before, after) in pairs.items()}


def result_diffs(result: TidyResult) -> dict[str, str]:
    """A dry run carries its diffs; a tidy-up that wrote is diffed from its snapshot."""
    if result.diffs or not (result.written and result.snapshot):
        return dict(result.diffs)
    return snapshot_diffs(Path(result.snapshot), Path(result.agent_file), Path(result.learnings_file))


def _text(path: Path) -> str:
    data = _read(path)
    return "" if data is None else data.decode("utf-8-sig")


def _parse(data: bytes | None, location: store.AgentLocation) -> StoreDoc:
    if data is None:
        return StoreDoc(name=location.name, agent=location.breadcrumb)
    return parse(data.decode("utf-8-sig"), filename=str(location.store_path))
