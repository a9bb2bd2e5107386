"""The one gate for rule text a model wrote (spec: Every candidate is vetted; Tidying up, "Nothing may vanish",
"Nothing may be quietly summarised away").

Whenever a model writes the wording of a rule that would take the place of other text — a grounded note, a
fold or merged rule at capture and remember, a tidy-up rewrite, a rule of the permanent-block rewrite —
that wording passes three checks before it replaces anything:

1. in code: it has words, it is within the spec's 800 characters (longer is an invalid answer, not a
   rule to truncate), and it holds no markdown heading (a rule that needs one is more than one rule);
2. the vet: against the complete contract and the rules in force that it does not itself replace, it must
   pass (a duplicate or a contradiction of what stays in force is not a safe replacement);
3. the audit: against every original it claims to carry, "what instruction does it no longer carry" (a
   case, a threshold, an exception, an example) must come back empty for the originals it must carry.

A proposal that fails any check changes nothing: the originals stay exactly as they were, and the caller
sends the new learning down the path it would have taken had no fold been offered. This module decides;
the flows make the calls (one vet call for every proposal of a step, one audit per proposal).
"""

from __future__ import annotations

import re
import unicodedata

from pydantic import BaseModel, Field

from agentuse.core.helper.protocol import (
    AuditAnswer,
    AuditRequest,
    Draft,
    Missing,
    RuleRef,
    VetAnswer,
    VetCandidate,
    VetRequest,
    VetVerdict,
)
from agentuse.core.learning import CAPTURE_AGENT_MAX_CANDIDATES, RULE_CHAR_LIMIT, Channel, Verdict
from agentuse.core.capture import Candidate, ChannelResult, first_verdicts
from agentuse.core.failure import Failure
from agentuse.core.clip import clip
from agentuse.core.model_defaults import empty_list


_AUDIT = "the audit failed"


class Proposal(BaseModel):
    """Model-written wording, and the originals it claims to carry."""

    key: str  # what the vet answers to, unique within one call of `vet_request`
    label: str = ""  # the task-run name suffix: audit/<label>
    draft: Draft
    originals: list[RuleRef]
    # Originals the wording must carry for the proposal to pass. By default all of them; a person's
    # correction replaces the rules it corrects, so it must carry the person's words, not theirs.
    must_carry: list[str] | None = None
    vet: bool = True  # False: the caller vets the stored wording itself (the remember path's own vet)
    # Every human original must share a term with the wording (a stored rule it replaces or retires). False
    # where the original is a person's note kept as written whenever the wording fails (a grounding, a rule
    # said to restate it): a paraphrase may share none, and nothing of the note is lost.
    shared_terms: bool = True

    @property
    def text(self) -> str:
        return self.draft.text

    @property
    def required(self) -> set[str]:
        ids = {o.id for o in self.originals}
        return ids if self.must_carry is None else ids & set(self.must_carry)


class Decision(BaseModel):
    key: str
    passed: bool
    carried: list[str] = Field(default_factory=empty_list)  # originals the audit says the wording carries
    missing: list[Missing] = Field(default_factory=empty_list)
    why: str = ""  # why it failed, for the result notes
    verdict: Verdict | None = None
    against: str | None = None  # a failed vet's collision: "contract", or the id of the rule in force


def note_ref(text: str, *, key: str = "note") -> RuleRef:
    """A person's note as an original a model's wording must carry."""
    return RuleRef(id=key, text=text, human=True)


# An ATX heading line (CommonMark: up to 3 spaces, 1-6 #, then a blank or the end of the line), and a setext
# underline (= or - alone on a line, under a line of text).
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")


def _lines_as_read(text: str) -> list[str]:
    """The lines a reader of the prompt sees: broken at every line break str.splitlines knows (the run's
    prompt is built so), compatibility forms folded ("＃" is "#") and format characters, which no screen
    shows, left out (a zero-width joiner in front of "##")."""
    if text.isascii():
        return text.splitlines()
    text = unicodedata.normalize("NFKC", text)
    return "".join(char for char in text if unicodedata.category(char) != "Cf").splitlines()


def _has_heading(text: str) -> bool:
    if not any(mark in text for mark in "#=-") and text.isascii():
        return False
    lines = _lines_as_read(text)
    return any(_HEADING.match(line) or (i and lines[i - 1].strip() and _UNDERLINE.match(line))
               for i, line in enumerate(lines))


def check_text(draft: Draft | None) -> str | None:
    """The checks in code. None when the wording may go on to the vet and the audit. A heading is refused
    as the spec's rule style says (a rule that needs one is more than one rule), and because it would open
    a section of its own in the next run's system prompt."""
    if draft is None or not draft.text:
        return "the model returned an empty rule"
    size = len(draft.text)
    if size > RULE_CHAR_LIMIT:
        return f"the model's rule is {size:,} characters, over the {RULE_CHAR_LIMIT}-character limit"
    if _has_heading(draft.text):
        return "the model's rule holds a markdown heading; a rule that needs headings is more than one rule"
    return None


def admit(channel: Channel, drafts: list[tuple[Draft, float | None]], *, evidence: str) -> ChannelResult:
    """A model channel's answer through the checks in code: an empty draft says nothing (dropped quietly),
    one over the character limit is an invalid answer (reported); at most 5 candidates go on to the vet."""
    invalid = [f'"{clip(d.title, 60)}": {why}' for d, _ in drafts if (why := check_text(d)) and d.title.strip()]
    kept = [(d, c) for d, c in drafts if check_text(d) is None]
    return ChannelResult(channel=channel.value, invalid=invalid, candidates=[
        Candidate(key=f"{channel.value}-{i}", channel=channel, draft=draft, confidence=confidence, evidence=evidence)
        for i, (draft, confidence) in enumerate(kept[:CAPTURE_AGENT_MAX_CANDIDATES], start=1)])


def vet_request(proposals: list[Proposal], *, contract: str, rules: list[RuleRef]) -> VetRequest | None:
    """One vet call for every proposal that needs one. The rules in force shown are those no proposal of
    the call replaces: a merged rule restates its originals by design, so they are not what it is vetted
    against. Proposals are model-written: never marked human (a person's words inside are audited)."""
    todo = [p for p in proposals if p.vet and check_text(p.draft) is None]
    if not todo:
        return None
    replaced = {o.id for p in todo for o in p.originals}
    return VetRequest(contract=contract, rules_in_force=[r for r in rules if r.id not in replaced], trace="",
                      candidates=[VetCandidate(id=p.key, category=p.draft.category, text=p.text) for p in todo])


def audit_request(proposal: Proposal) -> AuditRequest | None:
    if check_text(proposal.draft) is not None or not proposal.originals:
        return None
    return AuditRequest(originals=proposal.originals, rewritten=proposal.draft)


def vetted(proposals: list[Proposal], vet: VetAnswer | Failure | None) -> list[bool]:
    """Which proposals are still standing after the code checks and the vet: only those are audited, so a
    failed vet costs no audit calls."""
    standing = [d.why == "" or d.why.startswith(_AUDIT) for d in decide(proposals, vet, [None] * len(proposals))]
    return [ok and bool(p.originals) for ok, p in zip(standing, proposals, strict=True)]


def decide(proposals: list[Proposal], vet: VetAnswer | Failure | None,
           audits: list[AuditAnswer | Failure | None]) -> list[Decision]:
    """Each proposal's outcome. Unknown ids in an answer are ignored and the first verdict per id wins."""
    chosen = first_verdicts(vet, {p.key for p in proposals}) if isinstance(vet, VetAnswer) else {}
    return [_decide(p, vet, chosen, a) for p, a in zip(proposals, audits, strict=True)]


def lost_in_code(p: Proposal, *, reported: set[str]) -> list[Missing]:
    """A person's rule the new wording shares no term with (none of their words), a number they wrote (a
    threshold, a count, a time) or the exception they made that it no longer holds, found in code whatever
    the audit answered: the audit is a model's answer, and
    a person's rule must not leave force under a wording that drops its threshold because a model said
    nothing was missing. Originals the audit already reported are left to its words."""
    from agentuse.core.helper import offline_text  # the offline reading: loaded when asked

    out = []
    for original in p.originals:
        if original.human and original.id not in reported:
            if p.shared_terms and not offline_text.shares_a_term(original.text, p.text):
                out.append(Missing(id=original.id, what="anything it says (no term of it is in the new wording)"))
            elif lost := offline_text.lost_in_code(original.text, p.text):
                out.append(Missing(id=original.id, what="; ".join(lost)))
    return out


def _decide(p: Proposal, vet, chosen: dict[str, VetVerdict], audit: AuditAnswer | Failure | None) -> Decision:
    problem = check_text(p.draft)
    if problem:
        return Decision(key=p.key, passed=False, why=problem)
    verdict = None
    if p.vet:
        if isinstance(vet, Failure) or vet is None:
            why = vet.message if isinstance(vet, Failure) else "no vet was asked"
            return Decision(key=p.key, passed=False, why=f"the new wording could not be vetted ({clip(why, 200)})")
        answer = chosen.get(p.key)
        if answer is None:
            return Decision(key=p.key, passed=False, why="the vet gave no verdict on the new wording")
        verdict = answer.verdict
        # No trace is shown with a rewrite: "ungrounded" cannot be judged here, and is not a conflict.
        if verdict not in (Verdict.pass_, Verdict.ungrounded):
            detail = clip(" ".join(answer.detail.split()), 200)
            return Decision(key=p.key, passed=False, verdict=verdict, against=answer.against,
                            why=f"the new wording failed the vet ({verdict.value}{': ' + detail if detail else ''})")
    if not p.originals:
        return Decision(key=p.key, passed=True, verdict=verdict)
    if not isinstance(audit, AuditAnswer):
        why = audit.message if isinstance(audit, Failure) else "no audit was asked"
        return Decision(key=p.key, passed=False, verdict=verdict, why=f"{_AUDIT} ({clip(why, 200)})")
    ids = {o.id for o in p.originals}
    first: dict[str, Missing] = {}  # the first entry per original counts, as the first verdict per candidate
    for m in audit.missing:
        if m.id in ids:
            first.setdefault(m.id, m)
    missing = list(first.values())
    missing += lost_in_code(p, reported={m.id for m in missing})
    lost = {m.id for m in missing}
    carried = [o.id for o in p.originals if o.id not in lost]
    failed = lost & p.required
    why = ""
    if failed:
        what = "; ".join(clip(m.what, 160) for m in missing if m.id in failed)
        why = f"the new wording no longer carries {what}"
    return Decision(key=p.key, passed=not failed, carried=carried, missing=missing, why=why, verdict=verdict)
