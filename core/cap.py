"""`max` enforced when capture writes (spec: An agent keeps 15 rules, not 15 of many; When a correction
does not fit).

When the set is full a new learning has to be paid for, in order:
- Fold: the reconcile answer names the rules the new one restates, sharpens or contradicts, with one
  merged rule carrying every case; the replaced rules are retired to the archive, never deleted.
- Trade: the weakest auto-extracted rule is retired, but only if the new rule is worth more (core/ranking.py
  `worth`: evidence, not recency; a person's correction always is). Rules a person wrote or approved,
  repeated rules, and rules inside their 14-day grace are never evicted.
- A correction that can do neither is kept anyway, outside the cap (never injected; doctor says so).
  An observation that can do neither is not stored: the set keeps the best rules, not the last ones.

A store over the cap from before it was enforced is drained on the first capture: auto rules are retired
from the bottom of the ranking (the ones that were not reaching the model anyway), as one undo.

The 14-day grace protects a new rule from a trade and from the drain as it does from the tidy-up: a new
learning gets that long to prove itself. When the only auto rules left are inside it, the outside-the-cap
message says so ("no auto-extracted rule past its 14-day grace was left to trade away").
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import date
from enum import Enum

from pydantic import BaseModel, Field

from agentuse.core import snapshots, store, store_merge
from agentuse.core.helper.protocol import ReconcileAction, ReconcileAnswer
from agentuse.core.learning import NEW_RULE_GRACE_DAYS, Channel, Learning, State
from agentuse.core.ranking import evictable, rank, tradeable, worth
from agentuse.core.screen import quarantined_twin, text_key, twin_in_force
from agentuse.core.store_format import new_id
from agentuse.core.model_defaults import empty_list


class Placement(str, Enum):
    added = "added"  # a free slot
    folded = "folded"  # merged with the rules it replaces
    repeated = "repeated"  # says what a rule already says: a person's repeat counts on that rule
    traded = "traded"  # took the weakest auto rule's place
    outside_cap = "outside_cap"  # a correction kept past the cap
    not_worth = "not_worth"  # an observation that could neither fold nor win a trade: not stored
    refreshed = "refreshed"  # tool-errors: the same recovery again
    superseded = "superseded"  # tool-errors: a new recovery replaced the old one (same id)
    permanent = "permanent"  # tool-errors: the failure mode already graduated into the agent file


STORED = {Placement.added, Placement.folded, Placement.traded, Placement.outside_cap, Placement.superseded}


class Placed(BaseModel):
    record: Learning  # what is in the store now (the merged rule for a fold; the existing rule for a repeat)
    how: Placement
    replaced: list[Learning] = Field(default_factory=empty_list)  # retired to the archive
    # Ids the fold named whose rule changed or left the store after the fold was planned (a tidy-up, an
    # edit, another note): not folded into, so the record went in beside the rules in force now.
    unfolded: list[str] = Field(default_factory=empty_list)
    note: str = ""


def count_in_force(learnings: list[Learning]) -> int:
    """Rules the agent keeps: every active rule, whether or not it reaches the model (stale included)."""
    return sum(1 for r in learnings if r.state is State.active)


def weakest_evictable(learnings: list[Learning], today: date) -> Learning | None:
    """The auto rule a trade would retire: the least worth among those that may go (never a person's rule,
    never a repeated one, never one inside its 14-day grace); the lower-ranked one on a tie."""
    victims = [r for r in rank(learnings) if tradeable(r, today)]
    return min(reversed(victims), key=worth) if victims else None


def worth_more(new: Learning, victim: Learning) -> bool:
    """A trade happens only when the new rule has earned more than the rule it displaces (core/ranking.py
    `worth`): the set keeps the best rules rather than the last ones."""
    return worth(new) > worth(victim)


def valid_fold(answer: ReconcileAnswer | None, learnings: list[Learning],
               seen: dict[str, str] | None = None) -> list[Learning]:
    """The active rules a fold/repeat answer may replace. Unknown, retired or quarantined ids are
    ignored; a fold without merged wording cannot be applied (nothing would carry the cases). `seen`: the
    words of each rule as the fold was planned on them; a rule worded otherwise now is not the one the merged
    wording carries, and is not replaced (its new words would go to the archive, unread). A repeat writes no
    wording: it counts on the rule as it is now."""
    if seen is not None and answer is not None and answer.action is ReconcileAction.fold:
        learnings = [r for r in learnings if r.id in seen and text_key(r.text) == text_key(seen[r.id])]
    if answer is None or answer.action is ReconcileAction.new:
        return []
    merged = answer.merged
    if answer.action is ReconcileAction.fold and (merged is None or not (merged.title.strip() or merged.body.strip())):
        return []
    active = {r.id: r for r in learnings if r.state is State.active}
    wanted = list(dict.fromkeys(answer.replaces))
    chosen = [active[i] for i in wanted if i in active]
    if answer.action is ReconcileAction.repeat:
        return chosen[:1]
    return [r for r in chosen if r.ch is not Channel.tool_errors]  # structural records never free-text merge


def _replace(learnings: list[Learning], sources: list[Learning], product: Learning) -> None:
    """`product` takes the place of the first source; the other sources leave the list."""
    ids = {s.id for s in sources}
    placed = False
    out = []
    for rule in learnings:
        if rule.id not in ids:
            out.append(rule)
        elif not placed:
            out.append(product)
            placed = True
    learnings[:] = out


def admit(learnings: list[Learning], record: Learning, *, cap: int, fold: ReconcileAnswer | None = None,
          room_first: bool = True, today: date | None = None, seen: dict[str, str] | None = None) -> Placed:
    """`_place`, saying which rules the fold named that it could not fold into any more (`Placed.unfolded`)."""
    named = [] if fold is None or fold.action is not ReconcileAction.fold or seen is None else \
        [i for i in dict.fromkeys(fold.replaces) if i in seen]
    now = {r.id for r in valid_fold(fold, learnings, seen)} if named else set()
    placed = _place(learnings, record, cap=cap, fold=fold, room_first=room_first, today=today, seen=seen)
    if named and placed.how is not Placement.folded and placed.how is not Placement.repeated:
        placed.unfolded = [i for i in named if i not in now]
    return placed


def _place(learnings: list[Learning], record: Learning, *, cap: int, fold: ReconcileAnswer | None,
           room_first: bool, today: date | None, seen: dict[str, str] | None) -> Placed:
    """Place one stamped record into `learnings` (mutated). A quarantined record is set aside outside
    the count, once: the same text as a rule already quarantined is that rule again (core/screen.py),
    and a person's refreshes it. `room_first`: capture folds only once the set is full; the remember
    path reconciles always (a correction replaces the rule it corrects whether or not the set is full).
    `today` decides the 14-day grace (default: the record's own date, the day it was captured)."""
    today = today or _day(record.date)
    if record.state is not State.active:
        twin = quarantined_twin(record.text, learnings)
        if twin is not None:
            return _repeat_quarantined(twin, record)
        learnings.append(record)
        return Placed(record=record, how=Placement.added)
    if record.ch is Channel.tool_errors:
        placed = _structural(learnings, record)
        if placed is not None:
            return placed
        fold = None
    elif seen is not None:
        # Said in the same words as a rule stored after the plan read the store (two notes given at once both
        # planned "new"): the rule again, and a person's repeat counts. A rule the plan saw is the model's to
        # judge, as it did.
        twin = twin_in_force(record.text, [r for r in learnings if r.id not in seen])
        if twin is not None:
            return _repeat(twin, record)
    has_room = count_in_force(learnings) < cap
    if room_first and has_room:
        learnings.append(record)
        return Placed(record=record, how=Placement.added)
    targets = valid_fold(fold, learnings, seen)
    if targets and fold is not None and fold.action is ReconcileAction.repeat:
        return _repeat(targets[0], record)
    if targets and fold is not None and fold.merged is not None:
        from agentuse.core.tidy_state import merged_record  # a fold that merges: tidy's merge, and its models

        product = merged_record([*targets, record], fold.merged, new_id=record.id, current_ih=record.ih,
                                vet=record.vet)  # the merged wording passed the gate of the record's vet
        product = product.model_copy(update={"sess": record.sess, "evidence": record.evidence,
                                             "date": record.date})
        _replace(learnings, targets, product)
        return Placed(record=product, how=Placement.folded, replaced=targets)
    if has_room:
        learnings.append(record)
        return Placed(record=record, how=Placement.added)
    victim = weakest_evictable(learnings, today)
    if victim is not None and worth_more(record, victim):
        learnings[:] = [r for r in learnings if r.id != victim.id]
        learnings.append(record)
        return Placed(record=record, how=Placement.traded, replaced=[victim])
    waiting = victim is None and any(evictable(r) for r in learnings)  # there are some, all inside their grace
    left = f"past its {NEW_RULE_GRACE_DAYS}-day grace " if waiting else ""
    if record.is_human:
        learnings.append(record)
        return Placed(record=record, how=Placement.outside_cap,
                      note=f"it could not be folded into an existing rule, and no auto-extracted rule {left}was "
                           "left to trade away")
    why = f"no auto-extracted rule {left}is left to trade away" if victim is None else \
        f"it has earned less than the weakest auto-extracted rule (id:{victim.id})"
    return Placed(record=record, how=Placement.not_worth, note=f"the set is full and {why}")


def _repeat(existing: Learning, record: Learning) -> Placed:
    if record.is_human:
        # A person saying it again: the wording is not landing. Count it; tidy sharpens repeated rules.
        existing.re += 1
        existing.date = record.date
        existing.ih = record.ih or existing.ih
    return Placed(record=existing, how=Placement.repeated,
                  note=f'restates "{existing.title}" (id:{existing.id})')


def _repeat_quarantined(existing: Learning, record: Learning) -> Placed:
    """Still set aside with its own reason: the instruction hash stays the one it was vetted against."""
    if record.is_human:
        existing.re += 1 + record.re
        existing.date = record.date
    return Placed(record=existing, how=Placement.repeated,
                  note=f'restates the quarantined rule "{existing.title}" (id:{existing.id})')


def _structural(learnings: list[Learning], record: Learning) -> Placed | None:
    """tool-errors dedupe by (tool, sig): one record per failure mode. None: a new failure mode."""
    from agentuse.core import tool_errors  # only a run's tool-errors records need the channel's code

    structural = tool_errors.StructuralRecord(title=record.title, body=record.body, tool=record.tool or "",
                                              sig=record.sig or "", evidence=record.evidence or "")
    fold = tool_errors.fold_into(learnings, structural)
    existing = fold.existing
    if fold.action == "add" or existing is None:
        return None
    if fold.action == "permanent":
        return Placed(record=existing, how=Placement.permanent, note="already permanent in the agent file")
    stamps = {"sess": record.sess, "date": record.date, "ih": record.ih, "evidence": record.evidence}
    if fold.action == "refresh":
        for key, value in stamps.items():
            setattr(existing, key, value)
        return Placed(record=existing, how=Placement.refreshed)
    # A different corrected call: same id (one record per failure mode), new wording; the old copy and
    # its counters go to the archive, because they were earned by a recipe that is no longer the rule.
    old = existing.model_copy(deep=True)
    product = existing.model_copy(update={**stamps, "title": record.title, "body": record.body,
                                          "injected": 0, "ok": 0, "confidence": record.confidence})
    _replace(learnings, [existing], product)
    return Placed(record=product, how=Placement.superseded, replaced=[old])


def drain(learnings: list[Learning], cap: int, today: date) -> list[Learning]:
    """Retire auto rules from the bottom of the ranking until the set fits (or none is left to retire).
    Corrections, repeated rules and rules inside their 14-day grace are never touched, so a starved
    correction moves into force."""
    excess = count_in_force(learnings) - cap
    if excess <= 0:
        return []
    # Retiring a rule never reorders the others (precedence is source, date, position), so the bottom of
    # one ranking is what retiring one rule at a time would take: rank once, not once per retirement.
    retired = [r for r in reversed(rank(learnings)) if tradeable(r, today)][:excess]
    gone = {r.id for r in retired}
    learnings[:] = [r for r in learnings if r.id not in gone]
    return retired


def overflow(learnings: list[Learning], incoming: int, cap: int) -> bool:
    """Will `incoming` new active rules overflow the set? Only then is a fold worth a model call."""
    return count_in_force(learnings) + incoming > cap


# ---------------------------------------------------------------- the write, under the store lock


class Incoming(BaseModel):
    record: Learning
    fold: ReconcileAnswer | None = None
    seen: dict[str, str] | None = None  # id -> words of the rules the fold was planned on (valid_fold)


class WriteReport(BaseModel):
    placed: list[Placed] = Field(default_factory=empty_list)
    drained: list[Learning] = Field(default_factory=empty_list)

    @property
    def stored(self) -> list[Placed]:
        return [p for p in self.placed if p.how in STORED]


def write(location: store.AgentLocation, incoming: list[Incoming], *, cap: int, room_first: bool = True,
          drain_excess: bool = True, rng=None, today: date | None = None, undoable: bool = False,
          journal: Callable[[WriteReport], None] | None = None, retire: Collection[str] = (),
          retire_reason: str = "") -> WriteReport:
    """Re-read the store under its lock, place every record, drain an over-cap set (capture only: the
    spec drains on capture, and a note saved by hand should not retire a batch of rules), archive
    whatever left it, and write once; the drain is one undo. Folds planned against an earlier read are
    re-validated here: a rule that vanished meanwhile (a concurrent tidy) simply cannot be folded into,
    and the record trades instead.

    `undoable` (capture): a placement that rewrote or retired rules in force (a fold, a trade, a superseded
    recovery) makes the write one undo, the drain with it. A person's note (remember) is not: undo is for
    what the pipeline did on its own, and would otherwise take the note back out.

    `journal` is handed the placements under the lock, before anything is written: what a caller must
    record elsewhere first, to tell after a crash whether this write happened (tasks/remember.py).

    `retire`: ids of rules the incoming records reword, archived with `retire_reason` in this same write
    (before the records are placed, so they count no slot): the old wording is in force until the new one
    is stored, whatever kills the process meanwhile."""
    report = WriteReport()
    today = today or date.today()
    with snapshots.store_pass(location, kind=DRAIN_PASS) as work:
        learnings = list(work.doc.learnings)
        reworded = [r for r in learnings if r.id in retire]
        learnings = [r for r in learnings if r.id not in retire]
        for item in incoming:
            record = item.record
            taken = {r.id for r in learnings}
            if record.id in taken:
                record = record.model_copy(update={"id": new_id(taken, rng)})
            report.placed.append(admit(learnings, record, cap=cap, fold=item.fold, room_first=room_first,
                                       today=today, seen=item.seen))
        if journal is not None:
            journal(report)
        # Archived before the store is written: a crash in between leaves a rule in both, never in neither.
        replaced = [(rule, retire_reason) for rule in reworded]
        for placed in report.placed:
            if not undoable and placed.how in _NAMING and placed.replaced:
                _keep_drawn_id(location, placed, learnings)
            reason = _reason(placed)
            replaced += [(rule, reason) for rule in placed.replaced]
        work.doc.learnings = learnings
        if undoable and replaced:
            # The pass's snapshot appends them to the archive itself, so undo can take them back out.
            work.retired = list(replaced)
            # Runs that count a fold's rule after it are counted on the rules it replaced, should it be undone.
            work.carriers = {rule.id: placed.record.id for placed in report.placed if placed.how is Placement.folded
                             for rule in placed.replaced}
            counts = ", ".join(f"{n} {how.value}" for how in (Placement.folded, Placement.traded, Placement.superseded)
                               if (n := sum(1 for p in report.placed if p.how is how and p.replaced)))
            work.summary, work.kind = f"{PLACE_PASS}: {counts}", PLACE_PASS
        else:
            for rule, reason in replaced:
                store.archive(location, [rule], reason=reason)
        if drain_excess and count_in_force(learnings) > cap:
            _drain(work, cap, report, today, with_placements=bool(undoable and replaced))
    return report


_NAMING = (Placement.folded, Placement.traded)  # placements whose archive reason names the new rule


def _reason(placed: Placed) -> str:
    """Why the rules a placement replaced left the store, as the archive files it."""
    if placed.how is Placement.traded:
        return traded_for(placed.record.id)
    if placed.how is Placement.folded:
        return store_merge.folded_into(placed.record.id)
    return "superseded by a later recovery" if placed.how is Placement.superseded else ""


def _keep_drawn_id(location: store.AgentLocation, placed: Placed, learnings: list[Learning]) -> None:
    """This same placement, archived by a write killed before the store (store.drawn_before): the new rule
    takes the id that archive entry names, so what the archive says carries the rule is the rule in force."""
    earlier = store.drawn_before(location, placed.replaced[0], reason=_reason(placed))
    if earlier is not None and earlier != placed.record.id and earlier not in {r.id for r in learnings}:
        placed.record.id = earlier  # the very object in `learnings` (a fold's product, a traded-in record)


def traded_for(rule_id: str) -> str:
    """The archive's reason for a rule traded away to make room for `rule_id`."""
    return f"traded for {rule_id}"


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return date.today()


DRAIN_PASS = "capture drain"  # what undo calls these passes
PLACE_PASS = "capture fold"


def _drain(work: snapshots.StorePass, cap: int, report: WriteReport, today: date, *,
           with_placements: bool = False) -> None:
    """The drain is one undo of its own: undoing it brings the drained rules back (and out of the archive)
    and keeps the records this write placed before it — unless those placements rewrote rules themselves
    (`with_placements`): then the fold and the drain are one pass, and one undo."""
    if not with_placements:
        work.undo_point()
    learnings = list(work.doc.learnings)
    report.drained = drain(learnings, cap, today)
    if report.drained:
        work.doc.learnings = learnings
        work.retired = [*(work.retired if with_placements else []),
                        *((rule, f"over the {cap}-rule cap (drained)") for rule in report.drained)]
        drained = f"{len(report.drained)} retired over the {cap}-rule cap"
        work.summary = f"{work.summary}, {drained}" if with_placements else f"{DRAIN_PASS}: {drained}"
