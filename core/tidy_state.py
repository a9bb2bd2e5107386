"""What a tidy-up holds in memory between passes, and the ledger of what it changed.

Nothing here touches a file: rules that leave the set are collected for the archive (retired and
merged-away rules are archived at commit, never deleted), and every change is recorded so the result can
name it, count it and undo it as one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

from agentuse.core.helper.protocol import Draft
from agentuse.core.learning import VET_OFFLINE, Learning, State
from agentuse.core import store_merge
from agentuse.core.ranking import rank
from agentuse.core.store_format import new_id as draw_id
from agentuse.core.model_defaults import empty_list

ChangeKind = Literal["merged", "rewritten", "compressed", "retired", "quarantined", "restamped", "graduated",
                     "restored", "released", "requarantined"]


class Change(BaseModel):
    kind: ChangeKind
    pass_no: int = 0  # 0: outside the passes (re-vet before the first, graduation after each)
    ids: list[str] = Field(default_factory=empty_list, description="the rules this change consumed or touched")
    result: str | None = None  # id of the rule it produced
    title: str = ""
    reason: str = ""


class Archived(BaseModel):
    learning: Learning
    reason: str


BACKFILLED = "backfilled"  # a re-stamp of a rule that had no hash (pre-v0.19.0): it was never stale
CONFIRMED = "confirmed"  # a model re-vetted a rule only the offline evaluator had vetted: it was never stale


@dataclass(frozen=True)
class Restated:
    """A merge whose new wording the vet called a duplicate of a rule in force outside it: the rules and the
    one they restate say one thing, so the next pass writes their merge without planning it again."""

    ids: list[str]  # the merge's originals, then the rule its wording restated
    note: str  # the failed merge's note, kept for when the merge of them all cannot be made


class Counts(BaseModel):
    """The summary line: X merged, Y rewritten, Z retired, Q quarantined, N now permanent — A → B in force."""

    merged: int = 0
    rewritten: int = 0
    retired: int = 0
    quarantined: int = 0
    permanent: int = 0
    restamped: int = 0
    backfilled: int = 0  # of `restamped`: rules that had no hash at all (never stale, only never stamped)
    confirmed: int = 0  # of `restamped`: provisional rules a model re-vetted and passed (never stale either)
    released: int = 0  # quarantined rules re-vetted and passed: in force again
    requarantined: int = 0  # quarantined rules re-vetted and still failing: kept aside with the new reason
    before: int = 0
    after: int = 0


def merged_record(sources: list[Learning], draft: Draft, *, new_id: str, current_ih: str | None,
                  vet: str | None = None) -> Learning:
    """Strongest source; max confidence, injected and ok; the sum of re. Every repeat still counts, and the
    merged rule is as proven as the best-proven rule it absorbed. `vet`: who vetted the merged wording."""
    strongest = rank([s.model_copy(update={"state": State.active}) for s in sources])[0]
    confidences = [s.confidence for s in sources if s.confidence is not None]
    return Learning(
        id=new_id, category=draft.category, title=draft.title, body=draft.body.rstrip(),
        date=max(s.date for s in sources),  # as old as its newest evidence: no fresh 14-day grace
        confidence=max(confidences) if confidences else None,
        injected=max(s.injected for s in sources), ok=max(s.ok for s in sources), re=sum(s.re for s in sources),
        src=strongest.src, ch=strongest.ch, ih=current_ih, vet=vet,
    )


@dataclass
class TidyState:
    """What one tidy-up (or a capture's re-vet) holds in memory: built from records already validated, never
    written or shown as itself (its changes and counts are), so a plain dataclass. The containers passed in
    are copied, as a model's validation would: the caller's lists and sets are never changed."""

    agent: str  # the name used in task names: plan/<agent>/pass-N/group-M
    learnings: list[Learning]  # the whole store in file order, as it will be written
    cap: int
    current_ih: str | None
    today: date
    rng: random.Random = field(default_factory=random.Random)
    original_ids: set[str] = field(default_factory=set)
    before: int = 0
    changes: list[Change] = field(default_factory=empty_list)
    archived: list[Archived] = field(default_factory=empty_list)
    products: dict[str, str] = field(default_factory=dict)  # id -> how it was produced (merged/rewritten)
    unplanned: set[str] = field(default_factory=set)  # in a group whose plan call failed
    unvetted: set[str] = field(default_factory=set)  # stale rules the re-vet could not judge
    restated: list[Restated] = field(default_factory=empty_list)  # merges for the next pass to write whole
    notes: list[str] = field(default_factory=empty_list)
    # The vets of this tidy-up or re-vet are the offline evaluator's: what they decide is provisional
    # (`vet:offline`), and a provisional rule is not asked again until a real model is configured.
    offline: bool = False
    # tool-errors rules whose failure recurred in the latest run they were in force for: not graduated yet
    recurring: set[str] = field(default_factory=set)
    # Rules reviewers commented on about what they say while in force (runs, by id): rewritten like a repeat
    commented_about: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.learnings, self.changes, self.archived, self.notes = (
            list(self.learnings), list(self.changes), list(self.archived), list(self.notes))
        self.original_ids, self.unplanned, self.unvetted, self.recurring = (
            set(self.original_ids), set(self.unplanned), set(self.unvetted), set(self.recurring))
        self.products, self.commented_about = dict(self.products), dict(self.commented_about)
        if not self.before:
            self.before = len(self.in_force())

    # --- reading -----------------------------------------------------------------------------------------
    def in_force(self) -> list[Learning]:
        return [r for r in self.learnings if r.state is State.active]

    def is_stale(self, rule: Learning) -> bool:
        return rule.stale_against(self.current_ih)

    def has(self, rule_id: str) -> bool:
        return any(r.id == rule_id for r in self.learnings)

    def get(self, rule_id: str) -> Learning:
        for rule in self.learnings:
            if rule.id == rule_id:
                return rule
        raise KeyError(rule_id)

    def vetted(self) -> str | None:
        """The `vet:` token of a rule this state's vet just judged."""
        return VET_OFFLINE if self.offline else None

    def new_id(self) -> str:
        # Ids of rules merged away stay taken: the archive still names them.
        return draw_id({r.id for r in self.learnings} | self.original_ids, rng=self.rng)

    # --- changing ----------------------------------------------------------------------------------------
    def _put(self, rule: Learning) -> None:
        self.learnings = [rule if r.id == rule.id else r for r in self.learnings]

    def retire(self, rule: Learning, *, reason: str, pass_no: int) -> None:
        self.learnings = [r for r in self.learnings if r.id != rule.id]
        self._archive(rule, reason)
        self.products.pop(rule.id, None)
        self.changes.append(Change(kind="retired", pass_no=pass_no, ids=[rule.id], title=rule.title, reason=reason))

    def replace(self, sources: list[Learning], product: Learning, *, kind: ChangeKind, pass_no: int,
                reason: str = "") -> None:
        """Put `product` where the first source stood; the other sources leave the set for the archive."""
        source_ids = {s.id for s in sources}
        was_merged = any(self.products.get(s.id) == "merged" for s in sources)
        placed: list[Learning] = []
        for rule in self.learnings:
            if rule.id not in source_ids:
                placed.append(rule)
            elif product.id not in {p.id for p in placed}:
                placed.append(product)
        self.learnings = placed
        for source in sources:
            self.products.pop(source.id, None)
            if source.id != product.id:
                self._archive(source, store_merge.merged_into(product.id))
        self.products[product.id] = "merged" if kind == "merged" or was_merged else "rewritten"
        self.changes.append(Change(kind=kind, pass_no=pass_no, ids=[s.id for s in sources], result=product.id,
                                   title=product.title, reason=reason))

    def carriers(self) -> dict[str, str]:
        """Each rule this tidy-up merged or rewrote into another id -> the id it produced (a later pass may
        consume that product in turn: `store_merge.carrier` follows the chain)."""
        return {source: change.result for change in self.changes if change.result
                for source in change.ids if source != change.result}

    def successor(self, rule_id: str) -> str:
        """The rule in force that now carries `rule_id`'s words: itself, or what it was merged or rewritten
        into; `rule_id` when no rule in force carries it."""
        return store_merge.carrier(rule_id, self.carriers(), {r.id: r for r in self.in_force()}) or rule_id

    def quarantine(self, rule: Learning, *, why: str) -> None:
        """Set aside with the reason, stamped with the instructions it failed against (an already
        quarantined rule keeps its place aside with the new reason: it is not a new quarantine)."""
        kind = "requarantined" if rule.state is State.quarantined else "quarantined"
        self._put(rule.model_copy(update={"state": State.quarantined, "why": why, "ih": self.current_ih,
                                          "vet": self.vetted()}))
        self.unvetted.discard(rule.id)
        self.changes.append(Change(kind=kind, ids=[rule.id], title=rule.title, reason=why))

    def release(self, rule: Learning) -> None:
        """A quarantined rule that passes the vet now: in force again, stamped, its stale reason gone."""
        self._put(rule.model_copy(update={"state": State.active, "why": None, "ih": self.current_ih,
                                          "vet": self.vetted()}))
        self.changes.append(Change(kind="released", ids=[rule.id], title=rule.title))

    def restamp(self, rule: Learning, *, vetted: bool = True) -> None:
        """`vetted=False`: stamped without a vet (a tool-errors record), so never provisional."""
        self._put(rule.model_copy(update={"ih": self.current_ih, "vet": self.vetted() if vetted else None}))
        self.unvetted.discard(rule.id)
        self.changes.append(Change(kind="restamped", ids=[rule.id], title=rule.title,
                                   reason=self._why_restamped(rule)))

    def _why_restamped(self, rule: Learning) -> str:
        if rule.ih is None:
            return BACKFILLED
        return CONFIRMED if rule.provisional and rule.ih == self.current_ih and not self.offline else ""

    def graduate(self, rule: Learning, *, pass_no: int) -> None:
        self._put(rule.model_copy(update={"state": State.graduated}))
        self.changes.append(Change(kind="graduated", pass_no=pass_no, ids=[rule.id], title=rule.title))

    def _archive(self, rule: Learning, reason: str) -> None:
        # Only rules that were on disk: an intermediate merge product of an earlier pass never was.
        if rule.id in self.original_ids:
            self.archived.append(Archived(learning=rule, reason=reason))

    # --- the result ----------------------------------------------------------------------------------------
    def counts(self) -> Counts:
        alive = {r.id for r in self.learnings}
        produced = [kind for rule_id, kind in self.products.items() if rule_id in alive]
        tally = {kind: sum(1 for c in self.changes if c.kind == kind) for kind in
                 ("retired", "quarantined", "graduated", "restamped", "released", "requarantined")}
        return Counts(merged=produced.count("merged"), rewritten=produced.count("rewritten"),
                      retired=tally["retired"], quarantined=tally["quarantined"], permanent=tally["graduated"],
                      restamped=tally["restamped"], released=tally["released"],
                      requarantined=tally["requarantined"],
                      backfilled=sum(1 for c in self.changes if c.kind == "restamped" and c.reason == BACKFILLED),
                      confirmed=sum(1 for c in self.changes if c.kind == "restamped" and c.reason == CONFIRMED),
                      before=self.before, after=len(self.in_force()))
