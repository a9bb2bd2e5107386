"""The deliberate human path (spec: Deliberate Learning from Review Comments): `--remember`, the Learn
checkbox, and `agentuse learnings add`.

A reviewer's note is saved immediately as `src:manual`, `ch:corrections`: grounded in the work it was
written about (a scoped rule, not a universal one), reconciled against the rules in force (a restatement
or contradiction replaces the earlier rule, which is archived; a repeat counts on the rule it repeats),
then vetted against the contract. Every model step fails open: a note is never lost because a helper
call failed — ungrounded it is stored as written, unreconciled it is stored beside the others, unvetted
it is stored active. It works with no learning configuration at all; it reaches future runs only when
`learning.apply` is on.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel

from agentuse.core.cap import Placed, Placement, valid_fold
from agentuse.core.capture import Candidate, Disposition, Judged, stamp
from agentuse.core.helper.protocol import Draft, ReconcileAction, ReconcileAnswer
from agentuse.core.learning import Category, Channel, Learning, State
from agentuse.core.trace import clip

TITLE_CHARS = 80
NOTE_KEY = "note"  # the vet's id for the one candidate of this path


class Note(BaseModel):
    """What a reviewer asked to keep, and the context it was written in."""

    text: str
    comment: str | None = None  # the revise comment given with it, if any
    reviewed_output: str = ""
    session: str | None = None


def verbatim(text: str) -> Draft:
    """The note as written: what is stored when grounding is unavailable."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "Reviewer note")
    title = first if len(first) <= TITLE_CHARS else first[: TITLE_CHARS - 1].rstrip() + "…"
    return Draft(category=Category.tip, title=title, body=text.strip())


def has_text(draft: Draft | None) -> bool:
    """A draft a model returned empty carries nothing: never store it in place of what a person wrote."""
    return draft is not None and bool(draft.title.strip() or draft.body.strip())


def to_vet(note: Note, draft: Draft, fold: ReconcileAnswer | None, rules: list[Learning]) -> Draft:
    """The wording that will be stored, so it is what gets vetted: the merged rule when the note folds
    into rules in force, the grounded note otherwise."""
    if fold is not None and fold.action is ReconcileAction.fold and fold.merged and valid_fold(fold, rules):
        return fold.merged
    return draft


def vetted_against(fold: ReconcileAnswer | None, rules: list[Learning]) -> list[Learning]:
    """The rules in force the stored wording is vetted against: all but those the fold replaces. A
    correction contradicts the rule it corrects by definition; vetting it against that rule would
    quarantine every correction instead of letting it replace the rule (which leaves force as it is saved)."""
    if fold is None or fold.action is not ReconcileAction.fold or not fold.merged:
        return rules
    replaced = {r.id for r in valid_fold(fold, rules)}
    return [r for r in rules if r.id not in replaced]


def candidate(note: Note, draft: Draft) -> Candidate:
    return Candidate(key=NOTE_KEY, channel=Channel.corrections, draft=draft, human=True, confidence=1.0,
                     evidence=f'reviewer: "{clip(" ".join(note.text.split()), 300)}"')


def record(judged: Judged, *, rule_id: str, note: Note, ih: str | None, today: date) -> Learning:
    return stamp(judged, rule_id=rule_id, session=note.session, ih=ih, today=today)


def is_repeat(fold: ReconcileAnswer | None, rules: list[Learning]) -> bool:
    return fold is not None and fold.action is ReconcileAction.repeat and bool(valid_fold(fold, rules))


class Result(BaseModel):
    """What the remember path did, as lines for the run output and the session log."""

    lines: list[str]
    placed: Placed | None = None
    judged: Judged | None = None


def result_lines(placed: Placed, judged: Judged, *, agent_arg: str, applies: bool, cap: int,
                 notes: list[str], outside: list[Learning] | None = None) -> list[str]:
    """The spec's wording for replacements and quarantines; plain statements for the rest."""
    rule = placed.record
    lines = [f"[Learning] {note}" for note in notes]
    if placed.how is Placement.repeated and rule.state is State.quarantined:
        lines.append(f'[Learning] Repeated a quarantined rule: "{rule.title}" (re:{rule.re}, id:{rule.id}): '
                     f"{rule.why}. It will not be injected; resolve the conflict in {agent_arg} or discard the rule.")
        return lines
    if judged.disposition is Disposition.quarantined:
        lines.append(f'[Learning] Saved but quarantined "{rule.title}": {judged.why}. It will not be injected; '
                     f"resolve the conflict in {agent_arg} or discard the rule.")
        return lines
    if placed.how is Placement.repeated:
        lines.append(f'[Learning] Repeated an earlier rule: "{rule.title}" (re:{rule.re}, id:{rule.id})')
    elif placed.how is Placement.folded:
        lines += [f'[Learning] Replaced an earlier rule: "{old.title}" (archived, id:{old.id})'
                  for old in placed.replaced]
        lines.append(f'[Learning] Saved "{rule.title}" (id:{rule.id})')
    else:
        lines.append(f'[Learning] Saved "{rule.title}" (id:{rule.id})')
        if placed.how is Placement.traded:
            lines += [f'[Learning] Retired "{old.title}" to make room (archived, id:{old.id})'
                      for old in placed.replaced]
        elif placed.how is Placement.outside_cap:
            # Precedence decides which correction falls outside (the newest ranks first), so name them.
            named = "; ".join(f'"{r.title}" (id:{r.id})' for r in outside or [rule])
            lines.append(f"[Learning] {len(outside or [rule])} correction(s) sit outside this agent's {cap}-rule "
                         f"limit and do NOT reach it ({named}) - {placed.note}. "
                         f"Fold the set down: agentuse learnings tidy {agent_arg}")
    if not applies:
        lines.append("[Learning] It is stored, but reaches future runs only when learning.apply is enabled.")
    return lines


def failure_note(step: str, message: str) -> str:
    consequence = {
        "ground": "stored as written",
        "reconcile": "stored beside the rules in force, not folded",
        "vet": "stored active: a correction is never dropped",
    }[step]
    return f"The {step} call failed ({clip(message, 200)}); {consequence}."
