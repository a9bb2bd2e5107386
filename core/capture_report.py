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
from agentuse.core.tidy_state import Failure


class RevetSummary(BaseModel):
    asked: int = 0
    restamped: int = 0
    quarantined: int = 0
    released: int = 0  # quarantined rules revisited that pass now
    requarantined: int = 0  # quarantined rules revisited that still fail, with the new reason
    notes: list[str] = Field(default_factory=list)


class CaptureReport(BaseModel):
    line: str
    extracted: int = 0
    quarantined: int = 0
    store_path: str
    session: str | None = None
    channels: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    judged: list[Judged] = Field(default_factory=list)
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
    for channel, failure in failures.items():
        notes.append(f"[Learning] The {channel} channel failed ({failure.message}); nothing was captured from it.")
    dropped = [j for j in judged if j.disposition is Disposition.dropped]
    if dropped and vet_failure is not None:
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
    if revet.asked:
        revisited = ""
        if revet.released or revet.requarantined:
            revisited = (f"; {revet.released} released from quarantine, "
                         f"{revet.requarantined} still quarantined")
        notes.append(f"[Learning] Re-vetted {revet.asked} learning(s) against the current instructions: "
                     f"{revet.restamped} re-stamped, {revet.quarantined} quarantined{revisited}.")
    notes += [f"[Learning] {note}" for note in revet.notes]
    return CaptureReport(
        line=report_line(stored, quarantined, Path(store_path)), extracted=stored, quarantined=quarantined,
        store_path=store_path, session=session, channels=channels, notes=notes, judged=judged, write=write,
        revet=revet, model_calls=model_calls,
    )
