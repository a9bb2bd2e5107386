"""What one capture did, as the run output and the session log show it (spec: How capture works).

The first line is the spec's: `Extracted N learning(s), M quarantined → <path>`. N counts the records this
capture wrote (a quarantined one is written too, set aside), M the quarantined among them. Every other
outcome that a person may want to know about — a channel or the vet failing, candidates rejected, a rule
retired to make room, the re-vet — gets a `[Learning]` line of its own, so "capture is producing junk"
can be read off the output rather than guessed.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from agentuse.core.cap import Placement, WriteReport
from agentuse.core.capture import Disposition, Judged, report_line
from agentuse.core import revet as revet_kinds
from agentuse.core.learning import Learning
from agentuse.core.failure import Failure
from agentuse.core.tidy_state import Change
from agentuse.core.model_defaults import empty_list


class RevetCounts(BaseModel):
    """One kind of rule the re-vet took up: how many, and what became of those the vet judged. The rest
    (a failed or silent vet) are left exactly as they were, and a note says what that means for them."""

    asked: int = 0
    stamped: int = 0  # re-stamped, backfilled, or released from quarantine
    quarantined: int = 0  # quarantined, or kept quarantined with the new reason

    @property
    def judged(self) -> int:
        return self.stamped + self.quarantined


class RevetSummary(BaseModel):
    stale: RevetCounts = Field(default_factory=RevetCounts)  # vetted against instructions now gone
    unhashed: RevetCounts = Field(default_factory=RevetCounts)  # never stamped (pre-v0.19.0): the backfill
    revisited: RevetCounts = Field(default_factory=RevetCounts)  # quarantined rules whose reason may be gone
    provisional: RevetCounts = Field(default_factory=RevetCounts)  # vetted offline, now by a real model
    notes: list[str] = Field(default_factory=empty_list)

    @property
    def asked(self) -> int:
        return self.stale.asked + self.unhashed.asked + self.revisited.asked + self.provisional.asked


def revet_summary(asked: list[Learning], changes: list[Change], notes: list[str],
                  current_ih: str | None) -> RevetSummary:
    """Tally a re-vet pass by kind: `asked` as the rules were before it, `changes` what it did to them."""
    done = {i: c.kind for c in changes for i in c.ids}
    summary = RevetSummary(notes=list(notes))
    for rule in asked:
        counts = getattr(summary, revet_kinds.kind(rule, current_ih))
        counts.asked += 1
        counts.stamped += done.get(rule.id) in ("restamped", "released")
        counts.quarantined += done.get(rule.id) in ("quarantined", "requarantined")
    return summary


class CaptureReport(BaseModel):
    line: str
    extracted: int = 0
    quarantined: int = 0
    store_path: str
    session: str | None = None
    channels: list[str] = Field(default_factory=empty_list)
    notes: list[str] = Field(default_factory=empty_list)
    # What could not be done for want of a model answer: the channels that failed, and "vet" when the
    # candidates it was to judge were dropped. `learnings capture` exits 1 on it; a run's capture never fails the run.
    failed: list[str] = Field(default_factory=empty_list)
    judged: list[Judged] = Field(default_factory=empty_list)
    write: WriteReport | None = None
    revet: RevetSummary = Field(default_factory=RevetSummary)
    model_calls: int = 0

    @property
    def lines(self) -> list[str]:
        return [self.line, *self.notes]


def build(*, store_path: str, session: str | None, channels: list[str], failures: dict[str, Failure],
          judged: list[Judged], vet_failure: Failure | None, write: WriteReport | None, revet: RevetSummary,
          cap: int, model_calls: int, gate_notes: list[str] = ()) -> CaptureReport:
    notes: list[str] = list(gate_notes)
    failed = list(failures)
    for channel, failure in failures.items():
        notes.append(f"[Learning] The {channel} channel failed ({failure.message}); nothing was captured from it.")
    dropped = [j for j in judged if j.disposition is Disposition.dropped]
    if dropped and vet_failure is not None:
        failed.append("vet")
        notes.append(f"[Learning] The vet call failed ({vet_failure.message}); {len(dropped)} observation(s) "
                     "dropped: free-form capture is never stored unvetted.")
    elif dropped:
        notes.append(f"[Learning] {len(dropped)} observation(s) dropped: the vet gave no verdict for them.")
    duplicates = [j for j in judged if j.disposition is Disposition.duplicate]
    if duplicates:
        notes.append(f"[Learning] {len(duplicates)} duplicate candidate(s) stored once: "
                     + "; ".join(f'"{j.candidate.draft.title}" is {j.why}' for j in duplicates))
    held = [j for j in judged if j.disposition is Disposition.rejected and j.screened]
    if held:
        notes.append(f"[Learning] {len(held)} candidate(s) already quarantined, not stored again: "
                     + "; ".join(f'"{j.candidate.draft.title}" ({j.why})' for j in held))
    rejected = [j for j in judged if j.disposition is Disposition.rejected and not j.screened]
    if rejected:
        notes.append(f"[Learning] {len(rejected)} candidate(s) rejected by the vet: "
                     + "; ".join(f'"{j.candidate.draft.title}" {j.why}' for j in rejected))
    stored = quarantined = 0
    if write is not None:
        for placed in write.placed:
            if placed.how in (Placement.added, Placement.folded, Placement.traded, Placement.superseded):
                stored += 1
                quarantined += placed.record.state.value == "quarantined"
            for old in placed.replaced:
                verb = {Placement.folded: "Folded into a new rule", Placement.traded: "Retired to make room",
                        Placement.superseded: "Superseded by a later recovery"}[placed.how]
                notes.append(f'[Learning] {verb}: "{old.title}" (archived, id:{old.id})')
            if placed.how is Placement.repeated and placed.record.state.value == "quarantined":
                rule = placed.record
                notes.append(f'[Learning] Repeated a quarantined rule: "{rule.title}" (re:{rule.re}, id:{rule.id}); '
                             f"it stays set aside: {rule.why}")
        not_worth = [p for p in write.placed if p.how is Placement.not_worth]
        if not_worth:
            notes.append(f"[Learning] {len(not_worth)} learning(s) not stored: {not_worth[0].note}.")
        if write.drained:
            notes.append(f"[Learning] Retired {len(write.drained)} auto-extracted rule(s) from the bottom of the "
                         f"ranking: the set was over its {cap}-rule cap (archived, not deleted).")
    # Only what the vet judged is counted here; the rest are left as they were, and revet.notes say so.
    stale, unhashed, revisited = revet.stale, revet.unhashed, revet.revisited
    if stale.judged:
        notes.append(f"[Learning] Re-vetted {stale.judged} stale learning(s) against the current instructions: "
                     f"{stale.stamped} re-stamped, {stale.quarantined} quarantined.")
    if unhashed.judged:  # spec: not stale, only never stamped: the upgrade's backfill
        notes.append(f"[Learning] Backfilled {unhashed.judged} learning(s) that had no instruction hash: "
                     f"{unhashed.stamped} stamped, {unhashed.quarantined} quarantined.")
    if revisited.judged:
        notes.append(f"[Learning] Revisited {revisited.judged} quarantined learning(s) against the current "
                     f"instructions: {revisited.stamped} released from quarantine, "
                     f"{revisited.quarantined} still quarantined.")
    if revet.provisional.judged:
        notes.append(f"[Learning] Re-vetted {revet.provisional.judged} learning(s) the offline evaluator had "
                     f"vetted: {revet.provisional.stamped} confirmed, {revet.provisional.quarantined} quarantined.")
    notes += [f"[Learning] {note}" for note in revet.notes]
    return CaptureReport(
        line=report_line(stored, quarantined, Path(store_path)), extracted=stored, quarantined=quarantined,
        store_path=store_path, session=session, channels=channels, notes=notes, failed=failed, judged=judged,
        write=write, revet=revet, model_calls=model_calls,
    )
