"""Post-run capture as one flow (spec: How capture works), composed only through `flows.runner`:

    load the run -> gather every channel in parallel -> set aside repeats, of each other or of a
    quarantined rule (core/screen.py) -> vet the free-form candidates in ONE call -> stamp ->
    reconcile what does not fit (in parallel) -> write with the cap -> re-vet stale/unhashed ->
    append the result lines to the run's session log

A real Prefect flow run when an API is configured (or a deployment triggered by the run), plain calls
otherwise (DESIGN.md: one composition, two ways to run it). Model faults are handled where the spec says:
a channel that fails yields nothing, a vet that fails drops the observations, a reconcile that fails
leaves its record to trade, a re-vet that fails leaves its rules as they were. Transient faults are
retried by the task policy first; one that outlives its retries fails only its own call (`on_error=
"collect"` turns it into that call's `Failure`; the other calls of the step keep their answers).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from prefect import flow

from agentuse.core import cap as capping
from agentuse.core import capture, gate
from agentuse.core.capture_report import CaptureReport, RevetSummary, build
from agentuse.core.helper.protocol import Draft, Helper, ReconcileAction, ReconcileAnswer, RuleRef, ref
from agentuse.core.learning import Channel, State
from agentuse.core.screen import screen
from agentuse.core.tidy_state import Failure
from agentuse.flows.artifacts import capture_completed
from agentuse.flows.gate import through_gate
from agentuse.flows.names import capture_run_name
from agentuse.flows.runner import call, fan_out
from agentuse.tasks import capture as steps
from agentuse.tasks import tidy as tidy_steps


def resolve_helper(agent_path: str, announce=None) -> Helper:
    """The agent's helper model (`learning.model`, else its own); the offline evaluator without a key."""
    from pathlib import Path

    from agentuse.core.agent_file import load_agent
    from agentuse.core.helper.factory import resolve_helper as factory  # the SDK only when needed

    return factory(load_agent(Path(agent_path)).helper_model, announce=announce)


@flow(name="capture", flow_run_name=capture_run_name, log_prints=False, on_completion=[capture_completed])
def capture_flow(agent: str, session: str, helper: Any = None, today: date | None = None) -> CaptureReport:
    """`agent`: the agent file; `session`: a session id, id prefix or log path. `helper` defaults to the
    agent's helper model (`learning.model`, else its own); `today` makes dates repeatable in tests."""
    today = today or date.today()
    ctx = call(steps.load_run, agent, session)
    if not ctx.channels:
        # `learning: true` alone: no automatic channel, so no model call of any kind after a run.
        return build(store_path=ctx.store_path, session=ctx.session, channels=[], failures={}, judged=[],
                     vet_failure=None, write=None, revet=RevetSummary(), cap=ctx.cap, model_calls=0)
    helper = helper if helper is not None else resolve_helper(ctx.agent_path)
    calls_before = helper.usage.calls

    results = _gather(ctx, helper)
    failures = {r.channel: r.failure for r in results if r.failure is not None}
    screened = screen([c for r in results for c in r.candidates], ctx.learnings)

    answer: Any = None
    request = capture.vet_request(screened.candidates, contract=ctx.contract, rules=ctx.rules,
                                  trace=ctx.trace.evidence())
    if request is not None:
        answer = call(steps.vet, request, ctx.session, helper=helper, on_error="collect")
    stamped = call(steps.stamp, ctx, screened.candidates, answer, today, settled=screened.settled)

    incoming, gate_notes = _fold(ctx, stamped.records, helper)
    gate_notes = [f"[Learning] Not stored, an invalid answer from the {r.channel} channel: {why}."
                  for r in results for why in r.invalid] + gate_notes
    written = call(steps.write, ctx.agent_path, ctx.agent_key, incoming, ctx.cap, today)
    revet = _revet(ctx, helper, today)
    report = build(store_path=ctx.store_path, session=ctx.session, channels=ctx.channels, failures=failures,
                   judged=stamped.judged, vet_failure=answer if isinstance(answer, Failure) else None,
                   write=written, revet=revet, cap=ctx.cap, model_calls=helper.usage.calls - calls_before,
                   gate_notes=gate_notes)
    call(steps.record, ctx.session_file, ctx.session, report.lines)
    return report


def _gather(ctx: steps.CaptureInput, helper: Helper) -> list[steps.ChannelResult]:
    """A channel whose model call outlived its retries yields nothing; the others keep what they found."""
    results = fan_out(steps.gather, ctx.channels, ctx=ctx, helper=helper, on_error="collect")
    return [steps.ChannelResult(channel=ch, failure=r) if isinstance(r, Failure) else r
            for ch, r in zip(ctx.channels, results, strict=True)]


def _fold(ctx: steps.CaptureInput, records: list, helper: Helper) -> tuple[list[capping.Incoming], list[str]]:
    """Fold first, once the set is full: ask the evaluator, with every rule in force and its id, whether
    each new free-form rule restates, sharpens or contradicts one (tool-errors records never free-text
    merge: they dedupe by their key in the write step). Every merged wording then goes through the gate
    (vetted, and audited against every rule it replaces and the new rule): one that fails is not a fold,
    and its record takes the path it would have taken with no fold offered (a trade, or outside the cap)."""
    active = [r for r in records if r.state is State.active]
    if not capping.overflow(ctx.learnings, len(active), ctx.cap):
        return [capping.Incoming(record=r) for r in records], []
    items = [steps.FoldItem(label=f"{ctx.session}/{r.id}", key=r.id, rules=ctx.rules, human=r.is_human,
                            draft=Draft(category=r.category, title=r.title, body=r.body))
             for r in active if r.ch is not Channel.tool_errors]
    answers = fan_out(steps.reconcile, items, helper=helper, on_error="collect")  # a Failure: no fold, a trade
    folds = {item.key: a for item, a in zip(items, answers, strict=True) if isinstance(a, ReconcileAnswer)}
    by_id = {r.id: r for r in records}
    proposals = [p for p in (_proposal(ctx, by_id[key], answer) for key, answer in folds.items()) if p]
    decisions = through_gate(proposals, contract=ctx.contract, rules=[ref(r) for r in ctx.rules], helper=helper,
                             label=f"fold/{ctx.session}")
    notes = []
    for decision in decisions:
        if not decision.passed:
            folds.pop(decision.key, None)
            notes.append(f'[Learning] Not folded: "{by_id[decision.key].title}" stays a rule of its own, because '
                         f"{decision.why}.")
    return [capping.Incoming(record=r, fold=folds.get(r.id)) for r in records], notes


def _proposal(ctx: steps.CaptureInput, record, answer: ReconcileAnswer) -> gate.Proposal | None:
    """A fold's merged wording, claiming every rule it replaces and the new rule itself."""
    if answer.action is not ReconcileAction.fold:
        return None  # new: nothing written; repeat: an observation said again stores nothing new
    targets = capping.valid_fold(answer, ctx.rules)
    if not targets:
        return None
    mine = RuleRef(id=record.id, category=record.category, text=record.text, human=record.is_human)
    return gate.Proposal(key=record.id, label=f"{ctx.session}/{record.id}",
                         draft=answer.merged or Draft(title=""), originals=[*(ref(t) for t in targets), mine])


def _revet(ctx: steps.CaptureInput, helper: Helper, today: date) -> RevetSummary:
    plan = call(steps.plan_revet, ctx, today)
    if not plan.asked:
        return RevetSummary()
    answers = fan_out(tidy_steps.revet, plan.items, helper=helper, on_error="collect")
    return call(steps.restamp, ctx, plan, answers, today)
