"""The status every surface shows (spec: Seeing what capture is doing). The CLI's `learnings` and
`doctor`, `--json`, and the serve UI all render this one report, so they never disagree."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path

from pydantic import BaseModel, Field

from agentuse.core import effectiveness, store
from agentuse.core.agent_file import AgentFile, load_agent, read_block
from agentuse.core.learned_block import BlockRule
from agentuse.core.contract import agent_hash
from agentuse.core.inject import render_section, selection_for
from agentuse.core.learning import Learning, State
from agentuse.core.ranking import graduation_eligible, tradeable
from agentuse.core.store_format import StoreDoc
from agentuse.core.model_defaults import empty_list


class EntryView(BaseModel):
    record: dict
    state: str  # applied | dormant | quarantined | graduated
    group: str  # applied | stale | outside_cap | held | quarantined | graduated
    injected: bool  # reaches the next run
    stale: bool
    ready_to_graduate: bool
    # An auto rule nobody repeated, past its 14-day grace: what a capture's drain or a tidy-up may retire.
    retirable: bool = False
    # What happened on the runs it was in force for (core/effectiveness.py); the same fields everywhere.
    figures: effectiveness.RuleFigures = Field(default_factory=effectiveness.RuleFigures)


class Report(BaseModel):
    agent: str  # the agent's key: its path relative to the project root
    agent_file: str
    file: str  # the learnings file
    cap: int
    apply: bool
    active: int
    injected: int
    dormant: int
    stale: int
    quarantined: int
    # Active or quarantined rules only the offline evaluator vetted (`vet:offline`): the next capture or
    # tidy-up with a real model re-vets them.
    provisional: int = 0
    outside_cap: int
    held: int
    graduated: int
    permanent_rules: int  # rules in the agent file's learned block
    permanent: list[BlockRule] = Field(default_factory=empty_list)  # those rules, as the block holds them
    tokens_per_request: int  # estimate of what the injected section costs each model request
    by_channel: dict[str, int]
    stranded: str | None = None  # a learnings file at the pre-v0.17 location, by existence only
    notices: list[str] = Field(default_factory=empty_list)
    entries: list[EntryView] = Field(default_factory=empty_list)
    runs_counted: int = 0  # sessions of this agent in the effectiveness index
    totals: effectiveness.Totals = Field(default_factory=effectiveness.Totals)  # its reviewed runs
    # The index could not be used (did not parse, older version): figures are zero until it is rebuilt (the
    # CLI does that at once, cli/common.py `described`; the web UI and the artifact say so).
    index_unreadable: bool = False

    @property
    def never_injected(self) -> list[EntryView]:
        """Rules that could reach a run (quarantined and graduated copies cannot) yet were in force for none of
        the counted runs since they were added."""
        return [e for e in self.entries if e.group in LIVE_GROUPS and e.figures.runs == 0 and e.figures.since_added]

    @property
    def not_landing(self) -> list[EntryView]:
        return [e for e in self.entries if e.figures.not_landing]


LIVE_GROUPS = ("applied", "stale", "outside_cap", "held")


def estimate_tokens(text: str) -> int:
    """About four characters a token: an estimate, labelled as one wherever it is shown."""
    return (len(text) + 3) // 4


def build_report(agent: AgentFile, location: store.AgentLocation, doc: StoreDoc,
                 index: effectiveness.Index | None = None, *, today: date | None = None) -> Report:
    index = index if index is not None else effectiveness.Index(agent=location.key)
    today = today or date.today()
    found = effectiveness.figures(doc.learnings, index)
    selection = selection_for(agent, doc, agent_hash(agent))
    groups: list[tuple[str, list[Learning]]] = [
        ("applied", selection.applied),
        ("stale", selection.stale),
        ("outside_cap", selection.outside_cap),
        ("held", selection.held),
        ("quarantined", selection.quarantined),
        ("graduated", selection.graduated),
    ]
    entries = [_entry(rule, group, found[rule.id], today) for group, rules in groups for rule in rules]
    channels = Counter(rule.ch.value if rule.ch else "legacy" for rule in doc.learnings)
    block = read_block(agent.text, filename=str(agent.path)) or []
    return Report(
        agent=location.key,
        agent_file=str(agent.path),
        file=str(location.store_path),
        cap=agent.cap,
        apply=agent.applies,
        active=selection.active,
        injected=len(selection.applied),
        dormant=len(selection.dormant),
        stale=len(selection.stale),
        quarantined=len(selection.quarantined),
        provisional=sum(1 for r in doc.learnings
                        if r.provisional and r.state in (State.active, State.quarantined)),
        outside_cap=len(selection.outside_cap),
        held=len(selection.held),
        graduated=len(selection.graduated),
        permanent_rules=len(block),
        permanent=block,
        tokens_per_request=estimate_tokens(render_section(selection.applied)),
        by_channel=dict(channels.most_common()),
        stranded=_relative(location.legacy_path, location.root) if location.legacy_path.exists() else None,
        notices=list(agent.notices),
        entries=entries,
        runs_counted=effectiveness.runs_counted(index),
        totals=effectiveness.totals(index),
        index_unreadable=index.unreadable,
    )


def _entry(rule: Learning, group: str, figures: effectiveness.RuleFigures, today: date) -> EntryView:
    state = {"applied": "applied", "quarantined": "quarantined", "graduated": "graduated"}.get(group, "dormant")
    return EntryView(
        record=rule.model_dump(mode="json"),
        state=state,
        group=group,
        injected=group == "applied",
        stale=group == "stale",
        # A stale rule awaits re-vet: it is proven against instructions that no longer exist, not ready.
        ready_to_graduate=group in {"applied", "held", "outside_cap"} and graduation_eligible(rule),
        retirable=tradeable(rule, today),
        figures=figures,
    )


def describe(agent_path: Path) -> tuple[AgentFile, store.AgentLocation, Report]:
    """Load agent and store and build the report. Raises the parsers' errors, never writes."""
    location = store.locate(agent_path)

    def read() -> tuple[AgentFile, StoreDoc]:
        return load_agent(agent_path), store.load(location)

    agent, doc = store.settled_read(location, read)  # the pair as of one moment between tidy-up commits
    return agent, location, build_report(agent, location, doc, load_index(location))


def load_index(location: store.AgentLocation) -> effectiveness.Index:
    return effectiveness.load(effectiveness.index_path(location.project_dir, location.key), location.key)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


