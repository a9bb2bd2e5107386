"""Rule effectiveness (issue 18): per rule, what happened on the runs it was in force for.

The session logs are the record; this is an index over them, one JSON file per agent at
`project/<hash>/effectiveness/<agent path minus .agentuse>.json`, so that the end of a run costs O(1), never
a pass over every session: running totals per rule (and the agent's), plus the digest of each session that
is still open (awaiting review, or still running: a resume can change how it ends). A run registers its
session when it starts; when the session closes its digest is folded into the totals and dropped, once (a
session no longer open is never folded again). `agentuse learnings stats --rebuild` recomputes it all from
the logs, to the same result. It is never the only copy of anything: an index that is lost, unreadable or
from an older version is rebuilt from the logs. Written like the store (core/store.py): under the side-file
lock, atomically.

Outcomes are per run, as the spec's `approvedRuns` is: `approved` is an approval with no comment in the
whole session (the runs `ok:` credits), `commented` a session a reviewer wrote in, `rejected` one whose
gate was rejected, `no_gate` one that completed without an approval gate; `pending` awaits review and
`failed` ended in an error. A tool-errors rule *recurred* on a run when, in a round it was injected into,
the same tool failed with the same signature (core/tool_errors.py) again; a rule was *commented on about
it* on a run when a reviewer's comment answering a round it was in force for says what the rule says
(core/helper/overlap.py `about_the_same`). Either way the rule is not landing.
"""

from __future__ import annotations

import json
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from agentuse.core import store
from agentuse.core.discovery import AGENT_SUFFIX
from agentuse.core.file_access import read_optional
from agentuse.core.learning import Channel, Learning
from agentuse.core.model_defaults import empty_list
from agentuse.core.session_ids import first_id_at, is_session_id

Outcome = Literal["approved", "commented", "rejected", "no_gate", "pending", "failed"]
INDEX_VERSION = 2  # 1 kept every session's digest: read as "from an older version", rebuilt from the logs
REVIEWED: tuple[Outcome, ...] = ("approved", "commented", "rejected")  # a reviewer answered the gate
# Runs needed on each side (with the rule in force, without it) before an approval rate says anything.
MIN_RUNS_TO_COMPARE = 3
# The latest runs whose count of rules in force the index keeps, for the chart of rules in force against
# the cap over time: a bounded series, so folding a run stays O(1) and the index never grows with the runs.
RECENT_RUNS = 100


def failure_key(tool: str, sig: str) -> str:
    return json.dumps([tool, sig])


class RoundDigest(BaseModel):
    injected: list[str] = Field(default_factory=empty_list)
    failures: list[tuple[str, str]] = Field(default_factory=empty_list, description="(tool, signature) of failed calls")


class SessionDigest(BaseModel):
    outcome: Outcome
    rounds: list[RoundDigest] = Field(default_factory=empty_list)
    about: list[str] = Field(default_factory=empty_list, description="rules in force a reviewer's comment was about")
    open: bool = False  # awaiting review or still running: a resume can still change it

    def in_force(self) -> set[str]:
        return {rule_id for r in self.rounds for rule_id in r.injected}

    def failures_under(self, rule_id: str) -> set[str]:
        """The failures (failure_key) hit in the rounds this rule was injected into."""
        return {failure_key(*f) for r in self.rounds if rule_id in r.injected for f in r.failures}


class RunOutcomes(BaseModel):
    """Runs a rule was in force for, and how each ended (one count per Outcome)."""

    runs: int = 0
    approved: int = 0
    commented: int = 0
    rejected: int = 0
    no_gate: int = 0
    pending: int = 0
    failed: int = 0


class RuleTally(RunOutcomes):
    """One rule's running totals over the counted sessions it was in force for."""

    about: int = 0  # runs whose reviewer commented on what the rule says
    failures: dict[str, int] = Field(default_factory=dict)  # failure_key -> runs it hit under the rule
    latest: str = ""  # the newest session it was in force for (session ids are ULIDs: they sort by time)
    latest_failures: list[str] = Field(default_factory=empty_list)  # what that session hit under the rule


class Index(BaseModel):
    version: int = INDEX_VERSION
    agent: str
    runs: int = 0  # closed sessions folded into the totals
    reviewed: int = 0
    approved: int = 0
    rules: dict[str, RuleTally] = Field(default_factory=dict)
    open: dict[str, SessionDigest] = Field(default_factory=dict)
    # (session id, rules in force) of the latest RECENT_RUNS counted runs, oldest first. Kept by session id
    # (ids sort by time), so sessions closing out of order give what a rebuild from the logs gives.
    recent: list[tuple[str, int]] = Field(default_factory=empty_list)
    # Why the file could not be used ("did not parse", "is from an older version"): rebuilt from the logs.
    problem: str | None = Field(None, exclude=True)

    @property
    def unreadable(self) -> bool:
        return self.problem is not None


def fold(index: Index, session_id: str, digest: SessionDigest) -> None:
    """Add one session to the running totals: O(the rules it had in force)."""
    index.runs += 1
    if digest.outcome in REVIEWED:
        index.reviewed += 1
        index.approved += digest.outcome == "approved"
    for rule_id in sorted(digest.in_force()):
        tally = index.rules.setdefault(rule_id, RuleTally())
        tally.runs += 1
        setattr(tally, digest.outcome, getattr(tally, digest.outcome) + 1)
        tally.about += rule_id in digest.about
        hit = digest.failures_under(rule_id)
        for key in sorted(hit):
            tally.failures[key] = tally.failures.get(key, 0) + 1
        if session_id > tally.latest:
            tally.latest, tally.latest_failures = session_id, sorted(hit)
    in_force = max((len(r.injected) for r in digest.rounds), default=0)  # the most any round carried
    index.recent = sorted([*index.recent, (session_id, in_force)])[-RECENT_RUNS:]


def settled(index: Index) -> Index:
    """The totals as if every open session ended as it stands now (what every surface shows)."""
    if not index.open:
        return index
    view = index.model_copy(deep=True, update={"open": {}})
    for session_id, digest in sorted(index.open.items()):
        fold(view, session_id, digest)
    return view


class RuleFigures(RunOutcomes):
    recurred: int | None = None  # tool-errors rules only: runs in force that hit the same failure again
    commented_about: int = 0  # runs in force whose reviewer commented on what the rule says
    # Counted runs that started after the rule existed: a rule no run received is only "never injected"
    # if some run could have received it. Counted among the latest RECENT_RUNS runs the index keeps; when
    # the rule is older than all of them, `since_added_all` is False and the figure is a lower bound.
    since_added: int = 0
    since_added_all: bool = True

    @property
    def not_landing(self) -> bool:
        return bool(self.recurred) or self.commented_about > 0

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


def runs_counted(index: Index) -> int:
    return index.runs + len(index.open)


def totals(index: Index) -> Totals:
    view = settled(index)
    return Totals(reviewed=view.reviewed, approved=view.approved)


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
    """The index; an empty one when there is none yet; one with its `problem` when it cannot be used."""
    raw = read_optional(path, "effectiveness index")
    if raw is None:
        return Index(agent=agent_key)
    try:
        found = json.loads(raw.decode("utf-8"))
        if isinstance(found, dict) and found.get("version") != INDEX_VERSION:
            return Index(agent=agent_key, problem="is from an older version")
        return Index.model_validate(found)
    except (ValueError, ValidationError):
        return Index(agent=agent_key, problem="could not be read")


def _save(path: Path, index: Index) -> None:
    # Keys sorted: the same counts give the same bytes whatever order the sessions closed in.
    store.atomic_write(path, json.dumps(index.model_dump(mode="json"), sort_keys=True, separators=(",", ":")) + "\n")


def record(path: Path, agent_key: str, session_id: str, digest: SessionDigest) -> str | None:
    """One session at the start or the end of a stretch of work: an open one is (re)placed among the open
    sessions, a closed one is folded into the totals if it was open (a session counted already is not
    counted again). None when done; the index's problem when it cannot be used (the caller rebuilds it)."""
    with store.lock_for(path):
        index = load(path, agent_key)
        if index.unreadable:
            return index.problem
        if digest.open:
            index.open[session_id] = digest
        elif index.open.pop(session_id, None) is not None:
            fold(index, session_id, digest)
        else:
            return None  # closed and folded already (a resume finishing what a killed one left)
        _save(path, index)
    return None


def replace_all(path: Path, agent_key: str, digests: dict[str, SessionDigest]) -> Index:
    """The index from every session's digest: what `--rebuild` writes."""
    index = Index(agent=agent_key)
    for session_id, digest in sorted(digests.items()):
        if digest.open:
            index.open[session_id] = digest
        else:
            fold(index, session_id, digest)
    with store.lock_for(path):
        _save(path, index)
    return index


def figures(rules: list[Learning], index: Index) -> dict[str, RuleFigures]:
    """Each rule's figures from the running totals: O(rules + open sessions), never a pass over sessions."""
    view = settled(index)
    found: dict[str, RuleFigures] = {}
    for rule in rules:
        tally = view.rules.get(rule.id, RuleTally())
        recurred = tally.failures.get(failure_key(rule.tool or "", rule.sig or ""), 0) if _tool_error(rule) else None
        outcomes = {name: getattr(tally, name) for name in RunOutcomes.model_fields}
        since, complete = _runs_since_added(rule, view)
        found[rule.id] = RuleFigures(**outcomes, recurred=recurred, commented_about=tally.about,
                                     since_added=since, since_added_all=complete)
    return found


def _runs_since_added(rule: Learning, view: Index) -> tuple[int, bool]:
    """Counted runs after the rule's origin, and whether the index's window of recent runs holds all of them.
    A captured rule's origin is the session it came from (`sess:`); any other's is the end of its day, the
    day being all a rule's date says (a run later that day may not be counted, one before it never is)."""
    if rule.sess and is_session_id(rule.sess):
        origin = rule.sess.upper()
    else:
        try:
            day = date.fromisoformat(rule.date)
        except ValueError:
            return 0, False
        origin = first_id_at(datetime.combine(day + timedelta(days=1), time(), tzinfo=timezone.utc).timestamp())
    ids = [session_id for session_id, _ in view.recent]
    complete = len(ids) >= view.runs or (bool(ids) and ids[0] <= origin)
    return sum(session_id > origin for session_id in ids), complete


def recurring_now(rules: list[Learning], index: Index) -> set[str]:
    """tool-errors rules whose failure came back in the latest run they were in force for. Such a recovery
    is not confirmed yet, so it does not graduate until a later run in force goes without the failure."""
    view = settled(index)
    return {rule.id for rule in rules if _tool_error(rule) and rule.id in view.rules
            and failure_key(rule.tool or "", rule.sig or "") in view.rules[rule.id].latest_failures}


def commented_about(rules: list[Learning], index: Index) -> dict[str, int]:
    """Rules whose runs a reviewer commented on about what they say: not landing, rewritten like a repeat."""
    view = settled(index)
    return {rule.id: view.rules[rule.id].about for rule in rules
            if rule.id in view.rules and view.rules[rule.id].about}


def _tool_error(rule: Learning) -> bool:
    return rule.ch is Channel.tool_errors and bool(rule.tool and rule.sig)
