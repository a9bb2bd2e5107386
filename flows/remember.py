"""The deliberate human path as one flow (spec: Deliberate Learning from Review Comments):

    load -> ground the note in the reviewed work -> reconcile with the rules in force -> vet -> save

Every model step fails open (core/remember.py): a person's note is saved whatever the helper does.
A repeat (the note says what a rule already says) is not vetted again: nothing new is stored, the rule it
repeats counts one more repeat. The same goes for a note with the text of a quarantined rule
(core/screen.py): that rule counts the repeat and stays set aside with its reason.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from prefect import flow

from agentuse.core import remember
from agentuse.core.capture import Disposition, Judged, judge, rules_in_force, vet_request
from agentuse.core.cap import in_force
from agentuse.core.errors import AgentuseError
from agentuse.core.helper.protocol import GroundAnswer, GroundRequest, ReconcileAnswer, VetAnswer
from agentuse.core.screen import screen
from agentuse.core.tidy_state import Failure
from agentuse.flows.artifacts import remember_completed
from agentuse.flows.capture import resolve_helper
from agentuse.flows.runner import call
from agentuse.tasks import capture as capture_steps
from agentuse.tasks import remember as steps


@flow(name="remember", flow_run_name="remember/{label}", log_prints=False, on_completion=[remember_completed])
def remember_flow(agent: str, text: str, label: str = "manual", session: str | None = None,
                  comment: str | None = None, reviewed_output: str = "", agent_arg: str | None = None,
                  helper: Any = None, today: date | None = None) -> remember.Result:
    """`agent_arg`: the agent file as the user typed it, for the quarantine message."""
    if not text.strip():
        raise AgentuseError("nothing to remember: the note is empty")
    today = today or date.today()
    note = remember.Note(text=text.strip(), comment=comment, reviewed_output=reviewed_output, session=session)
    ctx = call(steps.load_note, agent, note, label)
    helper = helper if helper is not None else resolve_helper(ctx.agent_path)
    notes: list[str] = []

    grounded = call(steps.ground, GroundRequest(comment=note.text, reviewed_output=reviewed_output,
                                                contract=ctx.contract), label, helper=helper, on_error="collect")
    if isinstance(grounded, GroundAnswer) and (grounded.rule.title.strip() or grounded.rule.body.strip()):
        draft = grounded.rule
    else:
        # A grounded rule with no words would store the note as an empty rule: the note would be lost.
        draft = remember.verbatim(note.text)
        why = grounded.message if isinstance(grounded, Failure) else "the model returned an empty rule"
        notes.append(remember.failure_note("ground", why))

    rules = rules_in_force(ctx.learnings, ctx.ih)
    item = capture_steps.FoldItem(label=f"{label}/note", key=remember.NOTE_KEY, draft=draft, rules=rules,
                                  human=True, cap_full=in_force(ctx.learnings) >= ctx.cap)
    fold = call(capture_steps.reconcile, item, helper=helper, on_error="collect")
    if not isinstance(fold, ReconcileAnswer):
        notes.append(remember.failure_note("reconcile", fold.message))
        fold = None

    candidate = remember.candidate(note, remember.to_vet(note, draft, fold, rules))
    settled = screen([candidate], ctx.learnings).settled
    if remember.is_repeat(fold, rules):
        judged = Judged(candidate=candidate, disposition=Disposition.active)
    elif settled:  # the text of a quarantined rule: it is set aside with its reason already, not vetted again
        [judged] = settled
    else:
        others = remember.vetted_against(fold, rules)  # not the rules it replaces: they leave force with it
        request = vet_request([candidate], contract=ctx.contract, rules=others, trace=ctx.trace)
        answer = call(capture_steps.vet, request, label, helper=helper, on_error="collect")
        if isinstance(answer, VetAnswer):
            [judged] = judge([candidate], answer, contract=ctx.contract, rules=others)
        else:
            [judged] = judge([candidate], None, contract=ctx.contract, rules=others, failure=answer.message)
            notes.append(remember.failure_note("vet", answer.message))
    result = call(steps.save, ctx, judged, fold, agent_arg or agent, notes, today)
    if ctx.session_file:
        call(capture_steps.record, ctx.session_file, ctx.label, result.lines)
    return result
