"""The deliberate human path as one flow (spec: Deliberate Learning from Review Comments):

    load -> ground the note in the reviewed work -> reconcile with the rules in force -> vet -> save

Every model step fails open (core/remember.py): a person's note is saved whatever the helper does.
A repeat (the note says what a rule already says) is not vetted again: nothing new is stored, the rule it
repeats counts one more repeat. The same goes for a note with the text of a quarantined rule
(core/screen.py): that rule counts the repeat and stays set aside with its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from agentuse.core import gate, remember
from agentuse.core.cap import valid_fold
from agentuse.core.capture import Disposition, Judged, judge, rules_in_force, vet_request
from agentuse.core.learning import Learning, Verdict
from agentuse.core.cap import count_in_force
from agentuse.core.errors import AgentuseError
from agentuse.core.helper.protocol import (
    Draft,
    GroundAnswer,
    GroundRequest,
    ReconcileAction,
    ReconcileAnswer,
    VetAnswer,
    ref,
)
from agentuse.core.redact import redact_texts
from agentuse.core.screen import screen
from agentuse.core.failure import Failure
from agentuse.flows.artifacts import remember_completed
from agentuse.flows.gate import through_gate
from agentuse.flows.runner import call, pipeline, run
from agentuse.tasks import capture as capture_steps
from agentuse.tasks import helpers
from agentuse.tasks import remember as steps


@pipeline("remember", "remember/{label}", agent="agent", on_completion=[remember_completed])
def remember_flow(agent: str, text: str, label: str = "manual", session: str | None = None,
                  comment: str | None = None, reviewed_output: str = "", agent_arg: str | None = None,
                  today: date | None = None, replacing: str | None = None) -> remember.Result:
    """Save a reviewer's note as a rule: grounded, folded or placed through the cap, and vetted.

    Args:
        agent: The agent file (.agentuse), as an absolute path; a relative one is read from the folder the
            flow runs in.
        text: The note, as the reviewer wrote it.
        label: Where the note came from: the session id, or "manual" for `agentuse learnings add`.
        session: The session the note answers (an id, an id prefix or a log path), if any: its trace is
            evidence for the vet, and the result lines are recorded in its log.
        comment: The review comment given with the note, if any.
        reviewed_output: The output the reviewer was looking at, which grounds a note that points at it.
        agent_arg: The agent file as the user typed it, for the quarantine message; empty for `agent`.
        today: The date the rule is stamped with (YYYY-MM-DD); empty for today.
        replacing: The id of a rule the note rewords (the web UI's Edit): left out of what the note is
            reconciled and vetted against, and archived in the same write that saves the note, so it stays
            in force until then.
    """
    if not text.strip():
        raise AgentuseError("nothing to remember: the note is empty")
    today = today or date.today()
    note = remember.Note(text=text.strip(), comment=comment, reviewed_output=reviewed_output, session=session)
    ctx = call(steps.load_note, agent, note, label, replacing)
    notes: list[str] = []

    grounded = call(steps.ground, GroundRequest(comment=note.text, reviewed_output=reviewed_output,
                                                contract=ctx.contract), label, on_error="collect")
    draft = _grounded(grounded, note, ctx, label, notes)
    rules = rules_in_force(ctx.learnings, ctx.ih)
    item = capture_steps.FoldItem(label=f"{label}/note", key=remember.NOTE_KEY, draft=draft, rules=rules,
                                  human=True, cap_full=count_in_force(ctx.learnings) >= ctx.cap)
    fold = call(capture_steps.reconcile, item, on_error="collect")
    if not isinstance(fold, ReconcileAnswer):
        notes.append(remember.failure_note("reconcile", fold.message))
        fold = None
    fold, decision = _gate_fold(fold, draft, ctx, rules, label, notes)

    candidate = remember.candidate(note, remember.to_vet(note, draft, fold, rules))
    settled = screen([candidate], ctx.learnings).settled
    if remember.is_repeat(fold, rules):
        judged = Judged(candidate=candidate, disposition=Disposition.active)
    elif decision is not None:  # the merged wording passed the gate: its vet is this note's vet
        judged = Judged(candidate=candidate, disposition=Disposition.active, verdict=decision.verdict)
    elif settled:  # the text of a quarantined rule: it is set aside with its reason already, not vetted again
        [judged] = settled
    else:
        request = vet_request([candidate], contract=ctx.contract, rules=rules, trace=ctx.trace)
        answer = call(capture_steps.vet, request, label, on_error="collect")
        if isinstance(answer, VetAnswer):
            [judged] = judge([candidate], answer, contract=ctx.contract, rules=rules)
            judged, fold = _replacing(judged, fold, ctx, rules, label)
        else:
            [judged] = judge([candidate], None, contract=ctx.contract, rules=rules, failure=answer.message)
            notes.append(remember.failure_note("vet", answer.message))
    # The note's vet (its own, or the merged wording's at the gate) was this flow's helper's: built by now.
    offline = judged.verdict is not None and helpers.vets_offline()
    result = call(steps.save, ctx, judged, fold, agent_arg or agent, notes, today, offline=offline)
    if ctx.session_file:
        call(capture_steps.record, ctx.session_file, ctx.label, result.lines, source="note")
    return result


def _replacing(judged: Judged, fold: ReconcileAnswer | None, ctx, rules, label: str
               ) -> tuple[Judged, ReconcileAnswer | None]:
    """Spec: a note that restates or contradicts a rule the agent carries is not filed beside it. Reconcile
    may miss that and the vet find it. A restatement is then a repeat of that rule (a person saying it
    again: counted, not stored twice). A contradiction is vetted again without that rule (against the
    contract and the other rules in force) and, if it passes, replaces it; otherwise that second verdict
    stands, saying what it collides with now. A vet call that fails leaves the first verdict. A rule that
    says more than the part the note contradicts is replaced by the note with the rest of that rule
    (`left_standing`): nothing else of it leaves force; when that cannot be told or is too long, the first
    verdict stands, and the quarantine names the rule, to resolve by hand."""
    corrected = remember.colliding_rule(judged, rules)
    if corrected is None:
        return judged, fold
    if judged.verdict is Verdict.duplicate:
        # Counted as a repeat, the note is stored nowhere: as for reconcile's repeat, only if the rule carries
        # it (the gate's audit); otherwise it stays quarantined, shown beside the rule (never dropped).
        proposal = _repeat_proposal(corrected, judged.candidate.draft, label)
        [decision] = through_gate([proposal], contract=ctx.contract, rules=[ref(r) for r in rules],
                                  label=f"{label}/repeat")
        if not decision.passed:
            return judged, fold
        return (judged.model_copy(update={"disposition": Disposition.active, "why": None}),
                ReconcileAnswer(action=ReconcileAction.repeat, replaces=[corrected.id]))
    standing = remember.left_standing(corrected, judged.detail, judged.candidate.draft.text)
    merged = None if standing is None else remember.correction(judged.candidate.draft, standing)
    if merged is None:
        return judged, fold
    candidate = judged.candidate.model_copy(update={"draft": merged})
    rest = [r for r in rules if r.id != corrected.id]
    request = vet_request([candidate], contract=ctx.contract, rules=rest, trace=ctx.trace)
    answer = call(capture_steps.vet, request, label, on_error="collect")
    if not isinstance(answer, VetAnswer):
        return judged, fold
    [again] = judge([candidate], answer, contract=ctx.contract, rules=rest)
    if again.disposition is not Disposition.active:
        return (again if not standing else judged), fold
    return again, ReconcileAnswer(action=ReconcileAction.fold, replaces=[corrected.id], merged=merged)


def _grounded(grounded: GroundAnswer | Failure, note: remember.Note, ctx, label: str,
              notes: list[str]) -> Draft:
    """The grounded rule, only if the gate's audit says it still carries the person's note; the note as
    written otherwise (a model never gets to store other words under a person's name)."""
    if isinstance(grounded, Failure):
        notes.append(remember.failure_note("ground", grounded.message))
        return remember.verbatim(note.text)
    if remember.is_verbatim(grounded.rule, note.text):
        if remember.over_limit(note.text):  # stored as written all the same, and the person is told so
            notes.append(remember.long_note(note.text))
        as_written = remember.verbatim(note.text)
        if gate.check_text(grounded.rule) and not gate.check_text(as_written):
            return as_written  # the model's line breaks made a heading of the note's words
        return grounded.rule  # the note's own words, recased or punctuated: nothing to audit
    proposal = gate.Proposal(key="ground", label=f"{label}/ground", draft=grounded.rule, shared_terms=False,
                             originals=[gate.note_ref(note.text)], vet=False)  # the stored wording is vetted below
    [decision] = through_gate([proposal], contract=ctx.contract, rules=[], label=f"{label}/ground")
    if decision.passed:
        return grounded.rule
    notes.append(remember.failure_note("ground", decision.why, rejected=True, note=note.text))
    return remember.verbatim(note.text)


def _gate_fold(fold: ReconcileAnswer | None, draft: Draft, ctx, rules, label: str,
               notes: list[str]) -> tuple[ReconcileAnswer | None, gate.Decision | None]:
    """A fold replaces rules only if its merged wording passes the gate (vetted against the contract and the
    rules it does not replace, audited to carry the person's note); a repeat only if the rule it names
    carries the note. Otherwise the note is saved as a rule of its own, beside the others."""
    targets = valid_fold(fold, rules)
    if fold is None or not targets or fold.action is ReconcileAction.new:
        return fold, None
    mine = gate.note_ref(draft.text, key="note")
    unrelated = [t for t in targets if not remember.about(draft.text, t.text)]
    if fold.action is ReconcileAction.fold and unrelated:
        notes.append(f'Saved as a rule of its own, not through the merged rule: it replaces "{unrelated[0].title}", '
                     "which is not about what the note says.")
        return None, None
    if fold.action is ReconcileAction.repeat:
        proposal = _repeat_proposal(targets[0], draft, label)
    else:
        # A correction replaces the rules it corrects: it must carry the person's words, not theirs.
        proposal = gate.Proposal(key="fold", label=f"{label}/fold", draft=fold.merged or Draft(title=""),
                                 originals=[*(ref(t) for t in targets), mine], must_carry=["note"])
    [decision] = through_gate([proposal], contract=ctx.contract, rules=[ref(r) for r in rules],
                              label=f"{label}/{proposal.key}")
    if decision.passed:
        return fold, decision if fold.action is ReconcileAction.fold else None
    if decision.verdict is None:  # a vet failure needs no line: the note's own vet below reports its outcome
        what = "the rule it named as a repeat" if fold.action is ReconcileAction.repeat else "the merged rule"
        notes.append(f"Saved as a rule of its own, not through {what}: {decision.why}.")
    return None, None


def _repeat_proposal(target: Learning, draft: Draft, label: str) -> gate.Proposal:
    """A repeat of `target` stores nothing of the note, so the rule must carry the note (the audit)."""
    return gate.Proposal(key="repeat", label=f"{label}/repeat", originals=[gate.note_ref(draft.text, key="note")],
                         vet=False, shared_terms=False,
                         draft=Draft(category=target.category, title=target.title, body=target.body))


def run_remember(agent: str | Path, text: str, *, label: str = "manual", session: str | None = None,
                 comment: str | None = None, reviewed_output: str = "", agent_arg: str | None = None,
                 today: date | None = None, force_prefect: bool = False, helper: Any = None,
                 announce: Callable[[str], None] | None = None, replacing: str | None = None) -> remember.Result:
    """The entry point every surface uses (`learnings add`, `--remember`, the Learn checkbox, tests). The
    note, its comment and the reviewed work are redacted before they become the flow run's parameters: a
    Prefect server keeps those, and the remember artifact shows the note (every step downstream redacts
    what it reads anyway)."""
    text, comment, reviewed_output = redact_texts(text, comment, reviewed_output)
    return run(remember_flow, force_prefect=force_prefect, helper=helper, announce=announce, agent=str(agent),
               text=text, label=label, session=session, comment=comment, reviewed_output=reviewed_output,
               agent_arg=agent_arg, today=today, replacing=replacing)
