"""Rule effectiveness (issue 18): per rule, what happened on the runs it was in force for.

The session logs are the record; this is an index over them, one JSON file per agent at
`project/<hash>/effectiveness/<agent path minus .agentuse>.json`. It holds one small digest per counted
session (the rules each round injected, the tool failures that round hit, and how the run ended), so the
end of a run replaces exactly its own digest (a resumed session is recounted, never counted twice) and
`agentuse learnings stats --rebuild` recomputes every digest from the logs. It is never the only copy of
anything: a lost or unreadable index is rebuilt from the logs. Written like the store (core/store.py):
under the side-file lock, atomically.

Outcomes are per run, as the spec's `approvedRuns` is: `approved` is an approval with no comment in the
whole session (the runs `ok:` credits), `commented` a session a reviewer wrote in, `rejected` one whose
gate was rejected, `no_gate` one that completed without an approval gate; `pending` awaits review and
`failed` ended in an error. A tool-errors rule *recurred* on a run when, in a round it was injected into,
the same tool failed with the same signature (core/tool_errors.py) again: that rule is not landing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from agentuse.core import store
from agentuse.core.discovery import AGENT_SUFFIX
from agentuse.core.file_access import read_optional
from agentuse.core.learning import Channel, Learning

Outcome = Literal["approved", "commented", "rejected", "no_gate", "pending", "failed"]
INDEX_VERSION = 1
REVIEWED: tuple[Outcome, ...] = ("approved", "commented", "rejected")  # a reviewer answered the gate
# Runs needed on each side (with the rule in force, without it) before an approval rate says anything.
MIN_RUNS_TO_COMPARE = 3


class RoundDigest(BaseModel):
    injected: list[str] = Field(default_factory=list)
    failures: list[tuple[str, str]] = Field(default_factory=list, description="(tool, signature) of failed calls")


class SessionDigest(BaseModel):
    outcome: Outcome
    rounds: list[RoundDigest] = Field(default_factory=list)

    def in_force(self) -> set[str]:
        return {rule_id for r in self.rounds for rule_id in r.injected}

    def recurred(self, rule_id: str, tool: str, sig: str) -> bool:
        return any(rule_id in r.injected and (tool, sig) in {tuple(f) for f in r.failures} for r in self.rounds)


class Index(BaseModel):
    version: int = INDEX_VERSION
    agent: str
    sessions: dict[str, SessionDigest] = Field(default_factory=dict)
    unreadable: bool = Field(False, exclude=True)  # the file did not parse: figures wait for --rebuild


class RuleFigures(BaseModel):
    runs: int = 0  # runs in force
    approved: int = 0
    commented: int = 0
    rejected: int = 0
    no_gate: int = 0
    pending: int = 0
    failed: int = 0
    recurred: int | None = None  # tool-errors rules only: runs in force that hit the same failure again

    @property
    def not_landing(self) -> bool:
        return bool(self.recurred)

    @property
    def reviewed(self) -> int:
        return self.approved + self.commented + self.rejected


class Totals(BaseModel):
    """The agent's reviewed runs: what an approval rate without a rule is counted against."""

    reviewed: int = 0
    approved: int = 0

    @property
    def rate(self) -> float | None:
        return self.approved / self.reviewed if self.reviewed else None


def totals(index: "Index") -> Totals:
    reviewed = [d for d in index.sessions.values() if d.outcome in REVIEWED]
    return Totals(reviewed=len(reviewed), approved=sum(1 for d in reviewed if d.outcome == "approved"))


def approval_rates(figure: RuleFigures, agent: Totals) -> tuple[float | None, float | None]:
    """The share of reviewed runs approved without a comment, with the rule in force and without it; None
    on a side with fewer than MIN_RUNS_TO_COMPARE reviewed runs (too few to say anything)."""
    without_reviewed = agent.reviewed - figure.reviewed
    with_rate = figure.approved / figure.reviewed if figure.reviewed >= MIN_RUNS_TO_COMPARE else None
    without_rate = ((agent.approved - figure.approved) / without_reviewed
                    if without_reviewed >= MIN_RUNS_TO_COMPARE else None)
    return with_rate, without_rate


def index_path(project_dir: Path, agent_key: str) -> Path:
    return project_dir / "effectiveness" / f"{agent_key.removesuffix(AGENT_SUFFIX)}.json"


def load(path: Path, agent_key: str) -> Index:
    raw = read_optional(path, "effectiveness index")
    if raw is None:
        return Index(agent=agent_key)
    try:
        return Index.model_validate(json.loads(raw.decode("utf-8")))
    except (ValueError, ValidationError):
        return Index(agent=agent_key, unreadable=True)


def _save(path: Path, index: Index) -> None:
    store.atomic_write(path, index.model_dump_json() + "\n")


def record(path: Path, agent_key: str, session_id: str, digest: SessionDigest) -> None:
    """Put one session's digest in (replacing an earlier count of the same session)."""
    with store.lock_for(path):
        index = load(path, agent_key)
        if index.unreadable:
            return  # never overwrite what does not parse: `--rebuild` replaces it from the logs
        index.sessions[session_id] = digest
        _save(path, index)


def replace_all(path: Path, agent_key: str, digests: dict[str, SessionDigest]) -> Index:
    index = Index(agent=agent_key, sessions=dict(sorted(digests.items())))
    with store.lock_for(path):
        _save(path, index)
    return index


def figures(rules: list[Learning], index: Index) -> dict[str, RuleFigures]:
    """Each rule's figures from the index: one pass over the counted sessions."""
    wanted = {rule.id: rule for rule in rules}
    found = {rule.id: RuleFigures(recurred=0 if _tool_error(rule) else None) for rule in rules}
    for digest in index.sessions.values():
        for rule_id in digest.in_force() & wanted.keys():
            rule, figure = wanted[rule_id], found[rule_id]
            figure.runs += 1
            setattr(figure, digest.outcome, getattr(figure, digest.outcome) + 1)
            if figure.recurred is not None and digest.recurred(rule_id, rule.tool or "", rule.sig or ""):
                figure.recurred += 1
    return found


def recurring_now(rules: list[Learning], index: Index) -> set[str]:
    """tool-errors rules whose failure came back in the latest run they were in force for (session ids are
    ULIDs: they sort by time). Such a recovery is not confirmed yet, so it does not graduate until a later
    run in force goes without the failure."""
    latest: dict[str, str] = {}
    for session_id, digest in index.sessions.items():
        for rule_id in digest.in_force():
            if session_id > latest.get(rule_id, ""):
                latest[rule_id] = session_id
    return {rule.id for rule in rules if _tool_error(rule) and rule.id in latest
            and index.sessions[latest[rule.id]].recurred(rule.id, rule.tool or "", rule.sig or "")}


def _tool_error(rule: Learning) -> bool:
    return rule.ch is Channel.tool_errors and bool(rule.tool and rule.sig)
