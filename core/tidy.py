"""The multi-pass tidy-up over in-memory state (spec: Tidying up). Pure: no files, no model, no Prefect.

A pass is: cut the rules in force into groups of similar ones (stage 1 asks the model for moves per
group, in parallel), validate the moves in code, write one replacement per move (stage 2, in parallel),
audit each replacement, then apply. The flow (flows/tidy.py) makes the calls; this module decides what
to ask and what an answer is allowed to change. Everything happens on `TidyState`, and both files are
written once at the end, so however many passes it took, one tidy-up is one undo.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date

from pydantic import BaseModel, ConfigDict

from agentuse.core import grouping
from agentuse.core.clip import clip
from agentuse.core.gate import Decision, Proposal, check_text
from agentuse.core.helper.overlap import NEAR_DUPLICATE
from agentuse.core.helper.similarity import analyze, overlap
from agentuse.core.helper.protocol import (
    Draft,
    Move,
    MoveKind,
    PlanAnswer,
    RewriteAnswer,
    RuleRef,
    ref,
)
from agentuse.core.learning import TIDY_MAX_PASSES, Channel, Learning, State, Verdict
from agentuse.core.ranking import rank, within_grace
from agentuse.core.failure import Failure
from agentuse.core.tidy_state import Change, Restated, TidyState, merged_record

COMPRESS_WORDS = 200  # a rule this long cannot be held beside its peers (upstream's threshold)


class Group(BaseModel):
    """One stage-1 call: a few similar rules weighed together."""

    agent: str
    pass_no: int
    index: int  # 1-based, for the task name plan/<agent>/pass-N/group-M
    rules: list[RuleRef]

    @property
    def label(self) -> str:
        return f"{self.agent}/pass-{self.pass_no}/group-{self.index}"


class Job(BaseModel):
    """One stage-2 call: the replacement rule for one validated move."""

    agent: str
    pass_no: int
    index: int
    move: Move
    originals: list[RuleRef]

    @property
    def label(self) -> str:
        return f"{self.agent}/pass-{self.pass_no}/rewrite-{self.index}"


class Replacement(BaseModel):
    """A stage-2 answer that passed the checks in code, waiting for its audit."""

    model_config = ConfigDict(frozen=True)

    job: Job
    draft: Draft
    covers: list[str]

    @property
    def label(self) -> str:
        return self.job.label


# --- which rules a pass reads ---------------------------------------------------------------------------


def plannable(state: TidyState) -> list[Learning]:
    """Fresh active rules that may be planned, strongest first. Stale rules, and unstamped ones the re-vet
    could not judge, wait for a re-vet (a merge would stamp them unchecked); tool-errors records supersede
    structurally and never go through the free-text merge path."""
    fresh = [r for r in state.in_force()
             if not state.is_stale(r) and r.id not in state.unvetted and r.ch is not Channel.tool_errors]
    return rank(fresh)


def make_groups(state: TidyState, pass_no: int, *, taken: Sequence[Move] = ()) -> list[Group]:
    """The stage-1 calls of a pass. Over the cap every group is weighed (a slot has to be found). Under it,
    only groups with something a tidy-up is for: rules that may say the same thing, a rule a person
    repeated, a rule too long to compare; the rest would cost a call to be told "keep everything". Rules
    `taken` by a move made before planning (`restated_merges`) are not planned again."""
    busy = {i for m in taken for i in m.ids}
    rules = [r for r in plannable(state) if r.id not in busy]
    if len(rules) < 2 and not any(_words(r) > COMPRESS_WORDS or not_landing(state, r) for r in rules):
        return []
    index_groups = grouping.make_groups([r.text for r in rules])
    over = len(state.in_force()) > state.cap
    chosen = [g for g in index_groups if over or has_work([rules[j] for j in g], state)]
    return [
        Group(agent=state.agent, pass_no=pass_no, index=i + 1, rules=[rule_ref(state, rules[j]) for j in members])
        for i, members in enumerate(chosen)
    ]


def rule_ref(state: TidyState, rule: Learning) -> RuleRef:
    """A rule as the helper sees it here, with what the runs it was in force for said of its wording. Once
    this tidy-up has reworded it, those comments were about the old wording: a later pass leaves it be."""
    commented = 0 if rule.id in state.products else state.commented_about.get(rule.id, 0)
    return ref(rule).model_copy(update={"commented": commented})


def not_landing(state: TidyState, rule: Learning) -> bool:
    """A person repeated it, or reviewers commented on what it says while it was in force: the wording is not
    landing, so it is restated sharply (a rewrite) and never retired."""
    return rule_ref(state, rule).not_landing


def has_work(rules: list[Learning], state: TidyState) -> bool:
    """Something in these rules a tidy-up changes whatever the cap: a rule not landing (a person repeated it
    or reviewers commented on what it says), a rule over 200 words, or two rules that may say the same thing."""
    if any(not_landing(state, r) or _words(r) > COMPRESS_WORDS for r in rules):
        return True
    analyses = [analyze(r.text) for r in rules]
    return any(overlap(a, b).dice >= NEAR_DUPLICATE
               for i, a in enumerate(analyses) for b in analyses[i + 1:])


def _words(rule: Learning) -> int:
    return len(rule.text.split())


def restated_merges(state: TidyState) -> list[Move]:
    """The merges the last pass's vet asked for: a merge whose wording restated a rule outside it, now with
    that rule (or what it was merged into meanwhile). Planned by no call (the vet already said they say one
    thing). Merges that share a rule become one; rules no longer plannable drop out, and a merge left with
    fewer than two rules keeps its notes."""
    pending, state.restated = state.restated, []
    open_ids = {r.id for r in plannable(state)}
    unions: list[tuple[list[str], list[str]]] = []  # (ids, notes), joined while they share a rule
    for item in pending:
        ids = [i for i in dict.fromkeys(state.successor(i) for i in item.ids) if i in open_ids]
        notes = [item.note]
        for other in [u for u in unions if set(u[0]) & set(ids)]:
            unions.remove(other)
            ids = list(dict.fromkeys(other[0] + ids))
            notes = other[1] + notes
        unions.append((ids, notes))
    moves: list[Move] = []
    for ids, notes in unions:
        if len(ids) < 2:
            state.notes += notes
            continue
        moves.append(Move(kind=MoveKind.merge, ids=ids,
                          reason="their merged wording restated a rule outside them, which is merged with them"))
    return moves


def restated_left(state: TidyState) -> None:
    """No pass is left for the merges the vet asked for: their notes say what was not applied."""
    state.notes += [item.note for item in state.restated]
    state.restated = []


# --- stage 1: validate the proposed moves ----------------------------------------------------------------


def accept_moves(state: TidyState, groups: list[Group], answers: list[PlanAnswer | Failure]) -> list[Move]:
    """Moves the code allows: ids known to the group, each id in at most one move across the pass, and
    the spec's limits (never retire a repeated rule or one inside its 14-day grace)."""
    seen = _Seen()
    accepted: list[Move] = []
    for group, answer in zip(groups, answers, strict=True):
        if isinstance(answer, Failure):
            state.unplanned.update(r.id for r in group.rules)
            state.notes.append(f"group {group.index} of pass {group.pass_no} could not be planned: {answer.message}")
            continue
        known = {r.id for r in group.rules}
        for move in answer.moves:
            ids = [i for i in dict.fromkeys(move.ids) if i in known and i not in seen.claimed]
            checked = _check(state, move, ids, known, seen)
            if checked is None:
                continue
            accepted.append(checked)
            seen.claimed.update(checked.ids)
            if checked.kind is MoveKind.retire:
                seen.retiring.update(checked.ids)
                seen.superseders.add(checked.superseded_by or "")
    return accepted


class _Seen:
    def __init__(self) -> None:
        self.claimed: set[str] = set()  # ids some accepted move consumes
        self.retiring: set[str] = set()  # ids an accepted retire removes
        self.superseders: set[str] = set()  # ids an accepted retire relies on: they must stay


def _check(state: TidyState, move: Move, ids: list[str], known: set[str], seen: _Seen) -> Move | None:
    rules = [state.get(i) for i in ids]
    if move.kind is MoveKind.merge:
        return move.model_copy(update={"ids": ids}) if len(ids) >= 2 else None
    if move.kind is MoveKind.rewrite:
        # A rewrite is for a rule not landing: a person repeated it, or reviewers commented on what it says.
        return move.model_copy(update={"ids": ids}) if len(ids) == 1 and not_landing(state, rules[0]) else None
    if move.kind is MoveKind.compress:
        ok = len(ids) == 1 and _words(rules[0]) > COMPRESS_WORDS
        return move.model_copy(update={"ids": ids}) if ok else None
    # retire: the rule that now states it must be in the group and stay (merged or rewritten is fine,
    # its content lives on; retired is not). A rule others rely on is never retired itself.
    target = move.superseded_by
    if target not in known or target in ids or target in seen.retiring:
        return None
    keep = [r.id for r in rules
            if not not_landing(state, r) and not within_grace(r, state.today) and r.id not in seen.superseders]
    return move.model_copy(update={"ids": keep}) if keep else None


def jobs_for(state: TidyState, moves: list[Move], pass_no: int) -> list[Job]:
    writes = [m for m in moves if m.kind is not MoveKind.retire]
    return [
        Job(agent=state.agent, pass_no=pass_no, index=i + 1, move=m, originals=[rule_ref(state, state.get(x)) for x in m.ids])
        for i, m in enumerate(writes)
    ]


# --- stage 2: validate each replacement, then apply what the audit lets through ---------------------------


def accept_replacement(state: TidyState, job: Job, answer: RewriteAnswer | Failure) -> Replacement | None:
    """Checks in code before the audit: the rule claims known originals, is within the length limit, and
    a merge still merges. Originals the rule does not cover (or names dropped) stay as they are."""
    if isinstance(answer, Failure):
        state.notes.append(f"{job.move.kind.value} of {_names(state, job.move.ids)} not written: {answer.message}")
        return None
    ids = set(job.move.ids)
    covers = [i for i in dict.fromkeys(answer.covers) if i in ids]
    draft = answer.rule
    problem = None
    if not covers:
        problem = "the new wording claims none of the originals"
    elif job.move.kind is MoveKind.merge and len(covers) < 2:
        problem = "the merged rule carries only one of the originals"
    elif (too_long := check_text(draft)) is not None:
        problem = too_long  # the gate's own check in code, before any vet or audit is asked
    if problem:
        state.notes.append(f"{job.move.kind.value} of {_names(state, job.move.ids)} discarded: {problem}")
        return None
    return Replacement(job=job, draft=draft, covers=covers)


def proposals(replacements: list[Replacement]) -> list[Proposal]:
    """Each replacement as the gate sees it. A tidy-up may carry only some of a move's originals: the ones
    the audit reports missing go back untouched and the rest of the rewrite still applies (spec: Tidying
    up), so none is required; a wording that fails the vet, or an audit that could not run, applies nothing."""
    return [Proposal(key=r.label, label=r.label, draft=r.draft, must_carry=[],
                     originals=[o for o in r.job.originals if o.id in r.covers]) for r in replacements]


def retire_proposals(state: TidyState, moves: list[Move]) -> list[Proposal]:
    """Each rule a retire removes, as an original the rule said to supersede it must carry (spec: retire what
    has been superseded): audited like a merge, so a plan that names any rule as the superseder of a
    person's rule retires nothing on its say-so. That rule's wording stays as it is: nothing to vet."""
    out = []
    for move in moves:
        if move.kind is MoveKind.retire and move.superseded_by:
            by = state.get(move.superseded_by)
            out += [Proposal(key=f"retire/{rule_id}", label=f"{state.agent}/retire-{rule_id}", vet=False,
                             draft=Draft(category=by.category, title=by.title, body=by.body),
                             originals=[rule_ref(state, state.get(rule_id))]) for rule_id in move.ids]
    return out


def pass_proposals(state: TidyState, moves: list[Move], replacements: list[Replacement]) -> list[Proposal]:
    """What one pass sends through the gate, in the order `apply_pass` reads the decisions."""
    return proposals(replacements) + retire_proposals(state, moves)


def apply_pass(state: TidyState, pass_no: int, moves: list[Move], replacements: list[Replacement],
               decisions: list[Decision]) -> None:
    """Retire what the gate says is superseded, then put each replacement that passed the gate in place of
    what it still carries. `decisions` answer `pass_proposals`, in its order."""
    retires = dict(zip((p.key for p in retire_proposals(state, moves)), decisions[len(replacements):], strict=True))
    for move in moves:
        if move.kind is MoveKind.retire:
            by = state.get(move.superseded_by)
            for rule_id in move.ids:
                rule, decision = state.get(rule_id), retires[f"retire/{rule_id}"]
                if decision.passed:
                    state.retire(rule, reason=f'superseded by "{by.title}"', pass_no=pass_no)
                    continue
                lost = "; ".join(clip(m.what, 160) for m in decision.missing if m.id == rule_id)
                why = f'"{by.title}" does not carry {lost}' if lost else decision.why
                state.notes.append(f'retire of "{rule.title}" not applied: {why}')
    for replacement, decision in zip(replacements, decisions[:len(replacements)], strict=True):
        _apply_replacement(state, pass_no, replacement, decision)


def _apply_replacement(state: TidyState, pass_no: int, rep: Replacement, decision: Decision) -> None:
    kind = rep.job.move.kind
    if not decision.passed:
        # Unvetted or unaudited wording could contradict the contract or summarise something away.
        note = f"{kind.value} of {_names(state, rep.covers)} not applied: {decision.why}"
        if _restates_another(state, rep, decision):
            state.restated.append(Restated(ids=[*rep.covers, decision.against], note=note))
        else:
            state.notes.append(note)
        return
    missing = {m.id for m in decision.missing}
    for item in decision.missing:
        state.changes.append(Change(kind="restored", pass_no=pass_no, ids=[item.id],
                                    title=state.get(item.id).title, reason=item.what))
    carried = [i for i in rep.covers if i not in missing]
    if not carried:
        return
    sources = [state.get(i) for i in carried]
    if kind is MoveKind.merge and len(sources) >= 2:
        product = merged_record(sources, rep.draft, new_id=state.new_id(), current_ih=state.current_ih,
                                vet=state.vetted())
        state.replace(sources, product, kind="merged", pass_no=pass_no, reason=rep.job.move.reason)
    else:
        # A rewrite, a compression, or a merge the audit cut down to one rule: same rule, new wording.
        rule = sources[0]
        product = rule.model_copy(update={"category": rep.draft.category, "title": rep.draft.title,
                                          "body": rep.draft.body.rstrip()})
        label = "rewritten" if kind is not MoveKind.compress else "compressed"
        state.replace([rule], product, kind=label, pass_no=pass_no, reason=rep.job.move.reason)


def _restates_another(state: TidyState, rep: Replacement, decision: Decision) -> bool:
    """A merge's wording the vet called a duplicate of one free-text rule in force outside it: that rule says
    what the merge says, so it belongs in the merge (a rule of the contract does not: it is no learning)."""
    if rep.job.move.kind is not MoveKind.merge or decision.verdict is not Verdict.duplicate or not decision.against:
        return False
    other = state.successor(decision.against)
    return other not in rep.covers and other in {r.id for r in plannable(state)}


def _names(state: TidyState, ids: list[str]) -> str:
    titles = [f'"{state.get(i).title}"' for i in ids if state.has(i)]
    return ", ".join(titles) if titles else "no rules"


# --- when to stop ----------------------------------------------------------------------------------------


def needs_planning(state: TidyState) -> bool:
    """Over the cap, or under it with work a tidy-up is for (`has_work`): found in code, no model call."""
    if len(state.in_force()) > state.cap:
        return True
    rules = plannable(state)
    return any(has_work([rules[j] for j in g], state) for g in grouping.make_groups([r.text for r in rules]))


def another_pass(state: TidyState, pass_no: int, freed: int) -> bool:
    """Keep going while a pass freed a slot and there is still work (over the cap, or near-duplicates that
    never shared a group), or the vet asked for a merge with a rule outside it, up to five passes."""
    if pass_no >= TIDY_MAX_PASSES:
        return False
    return bool(state.restated) or (freed > 0 and needs_planning(state))


def new_state(*, agent: str, learnings: list[Learning], cap: int, current_ih: str | None, today: date,
              rng: random.Random | None = None, offline: bool = False,
              recurring: set[str] = frozenset(), commented_about: dict[str, int] | None = None) -> TidyState:
    return TidyState(agent=agent, learnings=[r.model_copy() for r in learnings], cap=cap,
                     current_ih=current_ih, today=today, rng=rng or random.Random(), offline=offline,
                     recurring=set(recurring), commented_about=dict(commented_about or {}),
                     original_ids={r.id for r in learnings if r.state is not State.retired})
