"""Candidates -> vet outcome -> stamped records (spec: Every candidate is vetted, Quarantine, Rules are
stamped with the instructions they were checked against, How capture works).

The verdict table, exactly as the spec gives it:

    pass           becomes active
    duplicate      model-authored: rejected;  human correction: quarantined
    contradiction  quarantined, with the conflicting text named
    ungrounded     rejected; never raised against a human-authored entry

If the vet call itself fails, corrections are stored active and observation candidates are dropped:
free-form capture's whole safety case is the vet, so it fails closed, while human input fails open. A
candidate the vet answered nothing for is treated the same way as a failed call, one candidate at a time.
tool-errors records skip the vet (verified in code, mechanics rather than policy).
"""

from __future__ import annotations

from datetime import date
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from agentuse.core.clip import clip
from agentuse.core.failure import Failure
from agentuse.core.helper.protocol import Draft, VetAnswer, VetCandidate, VetRequest, VetVerdict, ref
from agentuse.core.learning import VET_OFFLINE, Channel, Learning, Source, State, Verdict
from agentuse.core.redact import redact_text
from agentuse.core.terminal_text import display_path
from agentuse.core.model_defaults import empty_list

if TYPE_CHECKING:
    from agentuse.core.trace import ToolTrace

EVIDENCE_CHARS = 160
DETAIL_CHARS = 300


class Candidate(BaseModel):
    """One proposed rule, before the vet. `key` is what the vet answers to (never a store id)."""

    key: str
    channel: Channel
    draft: Draft
    human: bool = False
    confidence: float | None = None
    evidence: str | None = None
    tool: str | None = None  # tool-errors only: the dedupe key
    sig: str | None = None
    repeats: int = 0  # a person's note said again in the same batch (core/screen.py): stored as `re`

    @property
    def needs_vet(self) -> bool:
        return self.channel is not Channel.tool_errors

    @property
    def text(self) -> str:
        return self.draft.text


class ChannelResult(BaseModel):
    """What one channel found: its candidates, the drafts the gate's checks in code turned down, or why it
    found nothing (a model call that outlived its retries)."""

    channel: str
    candidates: list[Candidate] = Field(default_factory=empty_list)
    invalid: list[str] = Field(default_factory=empty_list)
    failure: Failure | None = None


def structural_candidates(trace: ToolTrace) -> ChannelResult:
    """The tool-errors channel: every verified recovery in the trace, one candidate each (no model)."""
    from agentuse.core import tool_errors  # a note saved by hand never reads a trace

    out = []
    for i, recovery in enumerate(tool_errors.recoveries(trace), start=1):
        rec = tool_errors.record_for(recovery)
        out.append(Candidate(key=f"tool-errors-{i}", channel=Channel.tool_errors,
                             draft=Draft(category=rec.category, title=rec.title, body=rec.body),
                             confidence=rec.confidence, evidence=rec.evidence, tool=rec.tool, sig=rec.sig))
    return ChannelResult(channel=Channel.tool_errors.value, candidates=out)


class Disposition(str, Enum):
    active = "active"
    quarantined = "quarantined"
    rejected = "rejected"  # the vet said no: nothing lost (a duplicate already exists; a claim is false)
    dropped = "dropped"  # no vet happened: an observation is not stored on the strength of extraction
    duplicate = "duplicate"  # the same as another candidate of this batch: that one is vetted and stored


class Judged(BaseModel):
    candidate: Candidate
    disposition: Disposition
    verdict: Verdict | None = None
    why: str | None = None  # the quarantine reason, or why it was rejected/dropped
    detail: str | None = None  # the text the vet quoted for a duplicate or contradiction
    against: str | None = None  # the id of the rule in force it collides with, when not the contract
    screened: bool = False  # settled before the vet (core/screen.py), never sent to it

    @property
    def stored(self) -> bool:
        return self.disposition in (Disposition.active, Disposition.quarantined)


# ---------------------------------------------------------------- what the helper sees


def rules_in_force(learnings: list[Learning], current_ih: str | None) -> list[Learning]:
    """Active rules that are not stale: what a candidate may duplicate or contradict. Stale ones are not
    in force until re-vetted; graduated ones are in the contract's learned block already."""
    return [r for r in learnings
            if r.state is State.active and not r.stale_against(current_ih)]


def vet_request(candidates: list[Candidate], *, contract: str, rules: list[Learning], trace: str) -> VetRequest | None:
    """One request for every candidate of a run that needs vetting: one model call, not one each."""
    todo = [c for c in candidates if c.needs_vet]
    if not todo:
        return None
    return VetRequest(
        contract=contract,
        rules_in_force=[ref(r) for r in rules],
        trace=trace,
        candidates=[VetCandidate(id=c.key, category=c.draft.category, text=c.text, human=c.human) for c in todo],
    )


def run_evidence(trace: ToolTrace) -> str:
    """A one-line pointer to the run a free-form rule was drawn from (the session id is stamped beside it)."""
    prompt = " ".join(trace.prompt.split())
    return f'run prompt: "{clip(prompt, EVIDENCE_CHARS)}"' if prompt else "run evidence: the session's trace"


# ---------------------------------------------------------------- the verdict table


def first_verdicts(answer: VetAnswer, keys: set[str]) -> dict[str, VetVerdict]:
    """Unknown ids are ignored and the first verdict per id wins (a model that answers twice does not
    get to overturn itself)."""
    chosen: dict[str, VetVerdict] = {}
    for verdict in answer.verdicts:
        if verdict.id in keys and verdict.id not in chosen:
            chosen[verdict.id] = verdict
    return chosen


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _quoted(detail: str) -> str:
    return clip(" ".join(detail.split()).strip().strip('"“”').strip(), DETAIL_CHARS)


def colliding_rule(detail: str, *, contract: str, rules: list[Learning], against: str | None) -> Learning | None:
    """The rule in force a vet's duplicate or contradiction is with: the one it names, or the one holding
    the text it quoted when the contract does not."""
    quoted = _quoted(detail)
    rule = {r.id: r for r in rules}.get(against or "")
    if rule is None and quoted and _norm(quoted) not in _norm(contract):
        rule = next((r for r in rules if _norm(quoted) in _norm(r.text)), None)
    return rule


def quarantine_reason(verdict: Verdict, detail: str, *, contract: str, rules: list[Learning],
                      against: str | None = None) -> str:
    """`contradicts the contract: "..."` (the spec's wording). A conflict with a rule in force rather
    than with the agent file names that rule instead, so the reason says what to fix: the vet says so
    (`against`: a rule id), or the quoted text is found in a rule and not in the contract."""
    quoted = _quoted(detail)
    verb = "duplicates" if verdict is Verdict.duplicate else "contradicts"
    rule = colliding_rule(detail, contract=contract, rules=rules, against=against)
    if rule is not None:
        return f'{verb} the rule in force id:{rule.id}: "{quoted or rule.title}"'
    if not quoted:
        return f"{verb} the contract (the vet quoted no text)"
    return f'{verb} the contract: "{quoted}"'


def judge(candidates: list[Candidate], answer: VetAnswer | None, *, contract: str, rules: list[Learning],
          failure: str = "") -> list[Judged]:
    """Apply the verdict table. `answer=None` means the vet call itself failed (`failure` says why)."""
    verdicts = first_verdicts(answer, {c.key for c in candidates}) if answer is not None else {}
    judged: list[Judged] = []
    for c in candidates:
        if not c.needs_vet:
            judged.append(Judged(candidate=c, disposition=Disposition.active))
            continue
        v = verdicts.get(c.key)
        if v is None:
            why = f"the vet call failed: {failure}" if answer is None else "the vet gave no verdict for it"
            judged.append(Judged(candidate=c, disposition=Disposition.active if c.human else Disposition.dropped,
                                 why=why))
        elif v.verdict is Verdict.pass_ or (v.verdict in (Verdict.ungrounded, Verdict.unsure) and c.human):
            judged.append(Judged(candidate=c, disposition=Disposition.active, verdict=v.verdict))
        elif v.verdict is Verdict.unsure:  # model-authored, and the vet could not tell: fail closed
            why = clip(v.detail, DETAIL_CHARS) or "the vet could not tell"
            judged.append(Judged(candidate=c, disposition=Disposition.rejected, verdict=v.verdict, why=why))
        elif v.verdict is Verdict.ungrounded:  # model-authored: the trace does not support it
            why = f"unsupported by the trace: {clip(v.detail, DETAIL_CHARS)}".rstrip(": ")
            judged.append(Judged(candidate=c, disposition=Disposition.rejected, verdict=v.verdict, why=why))
        else:  # contradiction (anyone's), or a duplicate (a person's is kept and shown; a model's is not)
            against = getattr(v, "against", None)
            why = quarantine_reason(v.verdict, v.detail, contract=contract, rules=rules, against=against)
            keep = v.verdict is Verdict.contradiction or c.human
            rule = colliding_rule(v.detail, contract=contract, rules=rules, against=against)
            judged.append(Judged(candidate=c, disposition=Disposition.quarantined if keep else Disposition.rejected,
                                 verdict=v.verdict, why=why, detail=v.detail, against=rule.id if rule else None))
    return judged


# ---------------------------------------------------------------- stamping


def stamp(judged: Judged, *, rule_id: str, session: str | None, ih: str | None, today: date,
          offline: bool = False) -> Learning:
    """A stored record with its provenance: channel, source session, evidence, instruction hash. Every
    record of every channel is stamped here. `offline`: the vet was the offline evaluator's, so a verdict it
    gave is provisional (`vet:offline`); a record no vet judged (tool-errors, a failed call) is not. Its
    title and body come from a `Draft`, which redacts them (core/redact.py); the evidence (a reviewer's
    note, a run's prompt) and a vet's quote are redacted here."""
    c = judged.candidate
    quarantined = judged.disposition is Disposition.quarantined
    why = judged.why if quarantined else None
    # The hash says what the rule was checked against. A candidate that needed a vet and got no verdict (the
    # call failed, or its answer left this one out: a person's note is then stored all the same) was checked
    # against nothing, so it stays unstamped, and the next capture or tidy-up vets it.
    judged_by_vet = not c.needs_vet or judged.verdict is not None
    return Learning(
        id=rule_id,
        category=c.draft.category,
        title=c.draft.title,
        body=c.draft.body.strip(),
        date=today.isoformat(),
        confidence=c.confidence,
        src=Source.manual if c.human else Source.auto,
        ch=c.channel,
        ih=ih if judged_by_vet else None,
        tool=c.tool,
        sig=c.sig,  # redacted where it is computed (core/tool_errors.py): it is the dedupe key, made once
        sess=session,
        re=c.repeats,
        state=State.quarantined if quarantined else State.active,
        why=redact_text(why) if why else why,
        evidence=redact_text(c.evidence) if c.evidence else c.evidence,
        vet=VET_OFFLINE if offline and c.needs_vet and judged.verdict is not None else None,
    )


# ---------------------------------------------------------------- the report line



def report_line(extracted: int, quarantined: int, path: Path) -> str:
    """Spec: `Extracted 2 learning(s), 1 quarantined → ~/.local/share/agentuse/project/…/x.learnings.md`.
    N counts every record this capture wrote (quarantined ones included), M those set aside. With nothing
    stored the arrow would point at a file this capture never wrote (or that does not exist): say so. (A
    re-vet or a repeat may still have updated rules already there: their own lines say so.)"""
    where = f"→ {display_path(path)}" if extracted else "— nothing new stored"
    return f"Extracted {extracted} learning(s), {quarantined} quarantined {where}"
