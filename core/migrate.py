"""Moving learnings from before v0.17.0 (beside the agent file) into the state directory.

Copies first and never merges: a destination that already holds learnings is refused. Deleting the
originals is the caller's question to ask (the CLI asks once, or takes --delete-source).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from agentuse.core import store
from agentuse.core.terminal_text import display_path
from agentuse.core.discovery import walk
from agentuse.core.errors import AgentuseError
from agentuse.core.file_access import FileAccessError, read_regular
from agentuse.core.store_format import StoreFormatError, parse
from agentuse.core.model_defaults import empty_list

LEGACY_SUFFIX = ".learnings.md"


class Step(BaseModel):
    source: Path
    agent: Path
    dest: Path | None = None
    outcome: str = ""  # would copy | copied | already copied | refused | failed
    detail: str = ""


class Plan(BaseModel):
    steps: list[Step] = Field(default_factory=empty_list)
    orphans: list[Path] = Field(default_factory=empty_list)
    root: Path


class MigrationReport(BaseModel):
    steps: list[Step]
    orphans: list[Path]
    root: Path

    @property
    def failed(self) -> bool:
        return any(step.outcome in ("refused", "failed") for step in self.steps)

    def copied_sources(self) -> list[Path]:
        return [s.source for s in self.steps if s.outcome in ("copied", "already copied")]

    def lines(self) -> list[str]:
        if not self.steps and not self.orphans:
            return ["No learnings found at the old location: nothing to migrate."]
        out = []
        for step in self.steps:
            dest = display_path(step.dest) if step.dest else "?"
            detail = f" ({step.detail})" if step.detail else ""
            out.append(f"{step.outcome}: {self._rel(step.source)} → {dest}{detail}")
        for orphan in self.orphans:
            out.append(f"orphaned, not migrated: {self._rel(orphan)} (no agent file of that name)")
        return out

    def _rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def plan_one(agent_file: Path) -> Plan:
    # Located as given, not resolved first: `store.locate` alone decides where an agent's learnings live
    # (a symlinked agent file belongs to the project it sits in), so migrate and doctor name one file.
    location = store.locate(agent_file)
    if not location.agent_path.is_file():
        raise AgentuseError(f"{location.agent_path}: no such agent file")
    agent_file = location.agent_path
    steps = [Step(source=location.legacy_path, agent=agent_file)] if location.legacy_path.exists() else []
    return Plan(steps=steps, root=location.root)


def plan_all(start: Path) -> Plan:
    root = store.project_root(start.resolve())
    steps, orphans = [], []
    for path in walk(root, folders=True):  # a folder of that name fails in `_migrate`, saying why
        if not path.name.endswith(LEGACY_SUFFIX):
            continue
        agent = path.with_name(path.name[: -len(LEGACY_SUFFIX)])
        if agent.suffix == ".agentuse" and agent.is_file():
            steps.append(Step(source=path, agent=agent))
        elif agent.suffix == ".agentuse":
            orphans.append(path)
    return Plan(steps=steps, orphans=orphans, root=root)


def run(plan: Plan, *, dry_run: bool) -> MigrationReport:
    return MigrationReport(steps=[_migrate(step, dry_run=dry_run) for step in plan.steps], orphans=plan.orphans, root=plan.root)


def _migrate(step: Step, *, dry_run: bool) -> Step:
    location = store.locate(step.agent)
    step = step.model_copy(update={"dest": location.store_path})
    try:
        data = read_regular(step.source, "learnings file")  # a folder, FIFO or device is refused, never opened
        parse(data.decode("utf-8-sig"), filename=str(step.source))  # a BOM, as every store reader takes it
    except (StoreFormatError, UnicodeDecodeError, FileAccessError) as error:  # this one fails; the rest go on
        return step.model_copy(update={"outcome": "failed", "detail": str(error)})
    store.settle(location)  # before the store's lock, as every writer does (store.load's `settled`)
    with store.lock_for(location.store_path):
        if location.store_path.exists():
            if read_regular(location.store_path, "learnings file") == data:
                return step.model_copy(update={"outcome": "already copied"})
            if store.load(location, settled=True).learnings:
                return step.model_copy(
                    update={"outcome": "refused", "detail": "the destination already holds learnings; not merging"}
                )
        if dry_run:
            return step.model_copy(update={"outcome": "would copy"})
        store.atomic_write(location.store_path, data)  # byte for byte: "already copied" compares bytes
    return step.model_copy(update={"outcome": "copied"})
