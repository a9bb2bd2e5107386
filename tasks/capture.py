"""The steps of post-run capture as Prefect tasks (spec: How capture works): load the run, gather
candidates per channel, vet them in one call, stamp them, reconcile what does not fit, write with the
cap, then re-vet what the contract moved out from under (the re-vet tasks are tidy's, shared).

Each task is a thin wrapper over core. Model-calling tasks share the retry policy (transient faults
only, exponential backoff) and the `agentuse-model` tag; a permanent fault is returned as a `Failure`
so one failed step does not sink the ones beside it, and core decides what a failure means (fail closed
for observations, open for corrections). Task runs are named for what they are: `vet/<session>`.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agentuse.core import cap as capping
from agentuse.core import capture, gate, snapshots, store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash, contract_text
from agentuse.core.helper.protocol import (
    Draft,
    ExtractRequest,
    Helper,
    ReconcileAnswer,
    ReconcileRequest,
    VetAnswer,
    VetRequest,
    ref,
)
from agentuse.core.learning import DEFAULT_MAX, Channel, Learning
from agentuse.core.store_format import new_id
from agentuse.core.failure import Failure
from agentuse.core.trace import ToolTrace
from agentuse.tasks import helpers
from agentuse.tasks.retry import ask
from agentuse.tasks.step import step
from agentuse.core.model_defaults import empty_list


class CaptureInput(BaseModel):
    """Everything the steps read, loaded once at the start of a capture."""

    agent_path: str
    agent_key: str
    store_path: str
    session: str
    session_file: str
    contract: str
    ih: str
    cap: int = DEFAULT_MAX
    apply: bool = True
    channels: list[str] = Field(default_factory=empty_list)
    guidance: str | None = None
    capture_agent: str | None = None
    helper_model: str | None = None
    learnings: list[Learning] = Field(default_factory=empty_list)
    trace: ToolTrace

    @property
    def rules(self) -> list[Learning]:
        return capture.rules_in_force(self.learnings, self.ih)


def _load_name() -> str:
    """`load/<session id>`, whether the session was given as an id or as a log path."""
    from prefect.runtime import task_run

    return "load/" + Path(str(task_run.parameters.get("session", ""))).name.removesuffix(".jsonl")


@step("load", _load_name)
def load_run(agent: str, session: str) -> CaptureInput:
    from agentuse.runtime.trace import agent_session, trace_from_session  # tasks -> runtime, only here

    agent_file = load_agent(Path(agent))
    location = store.locate(Path(agent))
    session_file = agent_session(session, location.agent_path, store.data_dir())  # never another agent's run
    trace = trace_from_session(session_file)
    config = agent_file.learning
    capture_config = config.capture if config else None
    return CaptureInput(
        agent_path=str(location.agent_path), agent_key=location.key, store_path=str(location.store_path),
        session=trace.session or session, session_file=str(session_file), contract=contract_text(agent_file),
        ih=agent_hash(agent_file),
        cap=agent_file.cap, apply=agent_file.applies,
        channels=agent_file.channels,
        guidance=capture_config.custom if capture_config else None,
        capture_agent=str(capture_config.agent) if capture_config and capture_config.agent else None,
        helper_model=agent_file.helper_model, learnings=store.load(location).learnings, trace=trace,
    )


@step("gather", "gather/{channel}/{ctx.session}")
def gather_structural(channel: str, ctx: CaptureInput) -> capture.ChannelResult:
    """The tool-errors channel: verified in code, no model, so no model slot and no helper."""
    return capture.structural_candidates(ctx.trace)


@step("gather", "gather/{channel}/{ctx.session}", model=True)
def gather(channel: str, ctx: CaptureInput, helper: Helper) -> capture.ChannelResult:
    """A channel a model judges: custom (the built-in evaluator) or agent (the replacement evaluator)."""
    if channel == Channel.custom.value:
        request = ExtractRequest(guidance=ctx.guidance or "", contract=ctx.contract,
                                 rules_in_force=[ref(r) for r in ctx.rules], trace=ctx.trace.evidence())
        answer = ask("extract", lambda: helper.extract(request))
        if isinstance(answer, Failure):
            return capture.ChannelResult(channel=channel, failure=answer)
        drafts = [(d, None) for d in answer.candidates]
    elif channel == Channel.agent.value:
        from agentuse.runtime.capture_agent import run_capture_agent

        submitted = ask("capture-agent", lambda: run_capture_agent(
            Path(ctx.capture_agent or ""), agent_key=ctx.agent_key, evidence=ctx.trace.evidence(),
            rules=[ref(r) for r in ctx.rules], cap=ctx.cap, fallback_model=ctx.helper_model,
            project=store.locate(Path(ctx.agent_path)).root))
        if isinstance(submitted, Failure):
            return capture.ChannelResult(channel=channel, failure=submitted)
        drafts = list(zip(submitted.drafts, submitted.confidences))
    else:
        unknown = Failure(operation="gather", message=f"unknown channel {channel}")
        return capture.ChannelResult(channel=channel, failure=unknown)
    return gate.admit(Channel(channel), drafts, evidence=capture.run_evidence(ctx.trace))


@step("vet", "vet/{session}", model=True)
def vet(request: VetRequest, session: str, helper: Helper) -> VetAnswer | Failure:
    return ask("vet", lambda: helper.vet(request))


class Stamped(BaseModel):
    judged: list[capture.Judged]
    records: list[Learning]  # one per stored judgement, same order


@step("stamp", "stamp/{ctx.session}")
def stamp(ctx: CaptureInput, candidates: list[capture.Candidate], answer: VetAnswer | Failure | None,
          today: date, settled: list[capture.Judged] = (), offline: bool = False) -> Stamped:
    """`settled`: candidates decided before the vet (core/screen.py), reported and stamped alongside;
    `offline`: the vet was the offline evaluator's, so what it passed or set aside is provisional."""
    if isinstance(answer, Failure):
        judged = capture.judge(candidates, None, contract=ctx.contract, rules=ctx.rules, failure=answer.message)
    else:  # None: nothing needed the vet (tool-errors records only)
        judged = capture.judge(candidates, answer or VetAnswer(), contract=ctx.contract, rules=ctx.rules)
    judged = [*judged, *settled]
    taken = {r.id for r in ctx.learnings}
    records = []
    for j in (j for j in judged if j.stored):
        rule_id = new_id(taken)
        taken.add(rule_id)
        records.append(capture.stamp(j, rule_id=rule_id, session=ctx.session, ih=ctx.ih, today=today,
                                     offline=offline))
    return Stamped(judged=judged, records=records)


class FoldItem(BaseModel):
    """One new rule to reconcile against the rules in force (capture: because the set is full)."""

    label: str
    key: str  # the record it is for
    draft: Draft
    rules: list[Learning]
    human: bool = False
    cap_full: bool = True

    def request(self) -> ReconcileRequest:
        return ReconcileRequest(draft=self.draft, draft_is_human=self.human,
                                rules_in_force=[ref(r) for r in self.rules], cap_full=self.cap_full)


@step("reconcile", "reconcile/{item.label}", model=True)
def reconcile(item: FoldItem, helper: Helper) -> ReconcileAnswer | Failure:
    return ask("reconcile", lambda: helper.reconcile(item.request()))


@step("report", "report/{session}")
def record(session_file: str, session: str, lines: list[str], source: Literal["capture", "note"] = "capture") -> None:
    """The result lines, appended to the run's session log as `learning_result` events: the run output
    and `sessions show` then say the same thing, whoever ran the capture (the CLI or a deployment).
    `source`: "capture", or "note" for a remembered note's lines."""
    from agentuse.runtime.review import record_learning_result  # tasks -> runtime, only here
    from agentuse.runtime.session import SessionLog

    log = SessionLog(Path(session_file))
    for line in lines:
        record_learning_result(log, line, source)


@step("write", "write/{agent_key}")
def write(agent_path: str, agent_key: str, incoming: list[capping.Incoming], cap: int, today: date,
          room_first: bool = True) -> capping.WriteReport:
    return capping.write(store.locate(Path(agent_path)), incoming, cap=cap, room_first=room_first, today=today,
                         undoable=True)


# ---------------------------------------------------------------- re-vet (the vet calls are tidy's task)


REVET_PASS = "capture re-vet"  # what undo calls this pass


class RevetPlan(BaseModel):
    items: list[Any] = Field(default_factory=empty_list)  # tasks.tidy.Revet
    asked: int = 0  # every rule to re-vet, tool-errors records (re-stamped without a model) included
    offline: bool = False  # the re-vet is the offline evaluator's: provisional rules are not asked again


def _state(learnings: list[Learning], *, agent: str, ih: str, cap: int, today: date, offline: bool):
    from agentuse.core.tidy_state import TidyState

    return TidyState(agent=agent, learnings=learnings, cap=cap, current_ih=ih, today=today, offline=offline)


@step("revet-plan", "revet-plan/{ctx.agent_key}")
def plan_revet(ctx: CaptureInput, today: date) -> RevetPlan:
    """Read the store as written by this capture: anything stale, and anything with no hash at all."""
    from agentuse.core import revet
    from agentuse.tasks.revet import Revet

    offline = helpers.vets_offline()  # from the configuration: builds no helper when none is built yet
    state = _state(store.load(store.locate(Path(ctx.agent_path))).learnings, agent=ctx.agent_key, ih=ctx.ih,
                   cap=ctx.cap, today=today, offline=offline)
    asked = len(revet.candidates(state))
    revet.restamp_structural(state)  # in memory: what the vet sees as settled; written by `restamp`
    requests = revet.requests(state, ctx.contract)
    return RevetPlan(items=[Revet(agent=ctx.agent_key, index=i, request=r) for i, r in enumerate(requests, 1)],
                     asked=asked, offline=offline)


@step("restamp", "restamp/{ctx.agent_key}")
def restamp(ctx: CaptureInput, plan: RevetPlan, answers: list[Any], today: date):
    """Apply the re-vet under the store lock: passes re-stamped (a quarantined rule released), failures
    quarantined with the reason, and a rule the vet could not judge left exactly as it was. Verdicts for
    rules that left the store or were re-stamped meanwhile (a concurrent tidy) are ignored."""
    from agentuse.core import revet
    from agentuse.core.capture_report import revet_summary

    # One undo, like a tidy-up's re-vet (spec: "undo covers that pass like any other").
    with snapshots.store_pass(store.locate(Path(ctx.agent_path)), kind=REVET_PASS) as work:
        state = _state(list(work.doc.learnings), agent=ctx.agent_key, ih=ctx.ih, cap=ctx.cap, today=today,
                       offline=plan.offline)
        asked = revet.candidates(state)  # as they are before this pass: what the report counts by kind
        revet.apply_pass(state, [item.request for item in plan.items], answers)
        work.doc.learnings = state.learnings
        work.summary = revet.pass_summary(state, REVET_PASS) or ""
    return revet_summary(asked, state.changes, state.notes, ctx.ih)
