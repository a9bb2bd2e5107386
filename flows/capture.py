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

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from agentuse.core import cap as capping
from agentuse.core import capture, gate
from agentuse.core.capture_report import CaptureReport, RevetSummary, build
from agentuse.core.helper.protocol import Draft, ReconcileAction, ReconcileAnswer, RuleRef, ref
from agentuse.core.learning import Channel, State
from agentuse.core.screen import screen
from agentuse.core.failure import Failure
from agentuse.flows.artifacts import capture_completed
from agentuse.flows.gate import through_gate
from agentuse.flows.names import capture_run_name
from agentuse.flows.runner import call, fan_out, pipeline, run
from agentuse.tasks import helpers
from agentuse.tasks import capture as steps
from agentuse.tasks import revet as revet_steps


@pipeline("capture", capture_run_name, agent="agent", on_completion=[capture_completed])
def capture_flow(agent: str, session: str, today: date | None = None) -> CaptureReport:
    """Capture learnings from one finished run of an agent. Model steps use the agent's helper
    (`learning.model`, else its own model).

    Args:
        agent: The agent file (.agentuse), as an absolute path; a relative one is read from the folder the
            flow runs in.
        session: The run to capture: its session id, an id prefix only one session has, or its log's path.
        today: The date new rules are stamped with (YYYY-MM-DD); empty for today.
    """
    today = today or date.today()
    ctx = call(steps.load_run, agent, session)
    if not ctx.channels:
        # `learning: true` alone: no automatic channel, so no model call of any kind after a run.
        return build(store_path=ctx.store_path, session=ctx.session, channels=[], failures={}, judged=[],
                     vet_failure=None, write=None, revet=RevetSummary(), cap=ctx.cap, model_calls=0)
    calls_before = helpers.calls()

    results = _gather(ctx)
    failures = {r.channel: r.failure for r in results if r.failure is not None}
    screened = screen([c for r in results for c in r.candidates], ctx.learnings)

    answer: Any = None
    request = capture.vet_request(screened.candidates, contract=ctx.contract, rules=ctx.rules,
                                  trace=ctx.trace.evidence())
    if request is not None:
        answer = call(steps.vet, request, ctx.session, on_error="collect")
    # Asked only once the vet has run: the helper is built by then, so this costs nothing.
    offline = request is not None and helpers.vets_offline()
    stamped = call(steps.stamp, ctx, screened.candidates, answer, today, settled=screened.settled, offline=offline)

    incoming, gate_notes = _fold(ctx, stamped.records)
    gate_notes = [f"[Learning] Not stored, an invalid answer from the {r.channel} channel: {why}."
                  for r in results for why in r.invalid] + gate_notes
    written = call(steps.write, ctx.agent_path, ctx.agent_key, incoming, ctx.cap, today)
    revet = _revet(ctx, today)
    report = build(store_path=ctx.store_path, session=ctx.session, channels=ctx.channels, failures=failures,
                   judged=stamped.judged, vet_failure=answer if isinstance(answer, Failure) else None,
                   write=written, revet=revet, cap=ctx.cap, model_calls=helpers.calls() - calls_before,
                   gate_notes=gate_notes)
    call(steps.record, ctx.session_file, ctx.session, report.lines)
    return report


def _gather(ctx: steps.CaptureInput) -> list[capture.ChannelResult]:
    """A channel whose model call outlived its retries yields nothing; the others keep what they found. The
    structural channel runs first, in code (milliseconds, never a model slot); the model channels in parallel."""
    structural = Channel.tool_errors.value
    found = {structural: call(steps.gather_structural, structural, ctx)} if structural in ctx.channels else {}
    judged = [ch for ch in ctx.channels if ch != structural]
    for channel, result in zip(judged, fan_out(steps.gather, judged, ctx=ctx, on_error="collect"), strict=True):
        found[channel] = capture.ChannelResult(channel=channel, failure=result) if isinstance(result, Failure) else result
    return [found[ch] for ch in ctx.channels]


def _fold(ctx: steps.CaptureInput, records: list) -> tuple[list[capping.Incoming], list[str]]:
    """Fold first, once the set is full: ask the evaluator, with every rule in force and its id, whether
    each new free-form rule restates, sharpens or contradicts one (tool-errors records never free-text
    merge: they dedupe by their key in the write step). Every merged wording then goes through the gate
    (vetted, and audited against every rule it replaces and the new rule): one that fails is not a fold,
    and its record takes the path it would have taken with no fold offered (a trade, or outside the cap)."""
    active = [r for r in records if r.state is State.active]
    # What the vet and the folds were planned on: a rule stored since in the same words (the same run captured
    # twice at once) is that rule again, and a rule reworded since is not folded into (core/cap.py).
    seen = {r.id: r.text for r in ctx.rules}
    if not capping.overflow(ctx.learnings, len(active), ctx.cap):
        return [capping.Incoming(record=r, seen=seen) for r in records], []
    items = [steps.FoldItem(label=f"{ctx.session}/{r.id}", key=r.id, rules=ctx.rules, human=r.is_human,
                            draft=Draft(category=r.category, title=r.title, body=r.body))
             for r in active if r.ch is not Channel.tool_errors]
    answers = fan_out(steps.reconcile, items, on_error="collect")  # a Failure: no fold, a trade
    folds = {item.key: a for item, a in zip(items, answers, strict=True) if isinstance(a, ReconcileAnswer)}
    by_id = {r.id: r for r in records}
    proposals = [p for p in (_proposal(ctx, by_id[key], answer) for key, answer in folds.items()) if p]
    decisions = through_gate(proposals, contract=ctx.contract, rules=[ref(r) for r in ctx.rules],
                             label=f"fold/{ctx.session}")
    notes = []
    for decision in decisions:
        if not decision.passed:
            folds.pop(decision.key, None)
            notes.append(f'[Learning] Not folded: "{by_id[decision.key].title}" stays a rule of its own, because '
                         f"{decision.why}.")
    return [capping.Incoming(record=r, fold=folds.get(r.id), seen=seen) for r in records], notes


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


def _revet(ctx: steps.CaptureInput, today: date) -> RevetSummary:
    plan = call(steps.plan_revet, ctx, today)
    if not plan.asked:
        return RevetSummary()
    answers = fan_out(revet_steps.revet, plan.items, on_error="collect")
    return call(steps.restamp, ctx, plan, answers, today)


def run_capture(agent: str | Path, session: str | Path, *, today: date | None = None, force_prefect: bool = False,
                inline: bool = False, helper: Any = None,
                announce: Callable[[str], None] | None = None) -> CaptureReport:
    """The entry point every surface uses (the CLI, serve, deployments' post-run hook, tests)."""
    return run(capture_flow, force_prefect=force_prefect, inline=inline, helper=helper, announce=announce,
               agent=str(agent), session=str(session), today=today)
