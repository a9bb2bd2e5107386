"""Precedence, the cap and graduation eligibility (spec: How Application Works, An agent keeps 15 rules)."""

from __future__ import annotations

from datetime import date

from agentuse.core.learning import Learning, Source, State
from agentuse.core.ranking import (
    evictable,
    graduation_eligible,
    rank,
    runs_to_graduation,
    select,
    within_grace,
)


def rule(id_, src="auto", day="2026-01-01", **kw) -> Learning:
    return Learning(id=id_, title=f"rule {id_}", date=day, src=Source(src), **kw)


def test_manual_then_approval_then_auto_newest_first_within_each():
    rules = [
        rule("a0000001", "auto", "2026-03-01"),
        rule("m0000001", "manual", "2026-01-01"),
        rule("p0000001", "approval", "2026-02-01"),
        rule("m0000002", "manual", "2026-02-01"),
        rule("a0000002", "auto", "2026-04-01"),
    ]
    assert [r.id for r in rank(rules)] == ["m0000002", "m0000001", "p0000001", "a0000002", "a0000001"]


def test_later_position_breaks_ties():
    rules = [rule("a0000001"), rule("a0000002")]
    assert [r.id for r in rank(rules)] == ["a0000002", "a0000001"]


def test_select_sorts_every_rule_into_exactly_one_group():
    rules = [rule(f"a000000{i}", day=f"2026-01-0{i + 1}", ih="aaaaaaaaaaaa") for i in range(5)]
    rules.append(rule("s0000001", "manual", ih="bbbbbbbbbbbb"))  # stale: vetted against other instructions
    rules.append(rule("n0000001", "manual"))  # no hash: not stale
    rules.append(rule("q0000001", state=State.quarantined))
    rules.append(rule("g0000001", state=State.graduated))
    selection = select(rules, cap=3, current_ih="aaaaaaaaaaaa")
    assert [r.id for r in selection.applied] == ["n0000001", "a0000004", "a0000003"]
    assert [r.id for r in selection.outside_cap] == ["a0000002", "a0000001", "a0000000"]
    assert [r.id for r in selection.stale] == ["s0000001"]
    assert [r.id for r in selection.quarantined] == ["q0000001"]
    assert [r.id for r in selection.graduated] == ["g0000001"]
    assert selection.active == 7
    total = sum(len(g) for g in (selection.applied, selection.outside_cap, selection.stale,
                                  selection.quarantined, selection.graduated, selection.held))
    assert total == len(rules)


def test_apply_false_holds_everything_back():
    selection = select([rule("a0000001")], cap=15, current_ih=None, apply=False)
    assert selection.applied == [] and [r.id for r in selection.held] == ["a0000001"]


def test_graduation_needs_evidence_not_authorship():
    assert not graduation_eligible(rule("m0000001", "manual"))
    assert graduation_eligible(rule("m0000001", "manual", re=1))
    assert graduation_eligible(rule("a0000001", ok=3))
    assert not graduation_eligible(rule("a0000001", ok=2, injected=9))
    assert graduation_eligible(rule("a0000001", injected=10))
    assert runs_to_graduation(rule("a0000001", ok=1, injected=6)) == 2
    assert runs_to_graduation(rule("a0000001", ok=0, injected=9)) == 1


def test_grace_and_eviction():
    today = date(2026, 1, 20)
    assert within_grace(rule("a0000001", day="2026-01-10"), today)
    assert not within_grace(rule("a0000001", day="2026-01-06"), today)
    assert evictable(rule("a0000001"))
    assert not evictable(rule("a0000001", re=1))
    assert not evictable(rule("m0000001", "manual"))
    assert not evictable(rule("p0000001", "approval"))
