"""Ending still over the cap: every rule in force is accounted for by exactly one reason."""

from __future__ import annotations

from datetime import date

from fakes.scripted_helper import ScriptedHelper, passing, keep_everything

from agentuse.core import overcap, store, tidy
from agentuse.core.contract import instruction_hash
from agentuse.core.helper import protocol as p
from agentuse.core.learning import Channel, Learning
from agentuse.core.store_format import StoreDoc, render
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)


def rule(i: int, **kw) -> Learning:
    kw.setdefault("date", "2026-06-01")
    kw.setdefault("ih", "h")
    return Learning(id=f"{i:08x}", title=f"Rule {i}", **kw)


def test_the_spec_layout_and_counts_that_add_up_to_the_number_in_force():
    rules = [rule(i, injected=i % 7) for i in range(33)] + [rule(100 + i, date="2026-11-25") for i in range(2)]
    state = tidy.new_state(agent="a", learnings=rules, cap=15, current_ih="h", today=TODAY)
    report = overcap.explain(state, passes=2, last_freed=3, graduation_skipped=False)
    assert report.accounted == report.in_force == 35
    assert overcap.render(report) == [
        "  Still 20 over the cap, and that is as far as tidying up can take it.",
        "  The rest are still there for a reason:",
        "    33 say different things, so there is nothing left to merge them into",
        "     2 are less than 14 days old, and a new learning gets that long to prove",
        "       itself before it can be retired",
        "",
        "  None of the corrections still in force can move into the agent file yet. That",
        "  takes 3 runs approved without a comment, or 10 runs in force; the closest of",
        "  them has been applied in 6. They become eligible on their own as the agent",
        "  keeps running.",
    ]


def test_every_reason_counts_once():
    rules = ([rule(i) for i in range(10)]
             + [rule(20 + i, date="2026-11-20") for i in range(3)]
             + [rule(30 + i, ch=Channel.tool_errors, tool="t", sig=f"s{i}") for i in range(2)]
             + [rule(40 + i, ok=3) for i in range(4)]  # ready, but the agent file is read-only
             + [rule(50 + i, ih="old") for i in range(2)]  # stale, and the re-vet failed
             + [rule(60 + i) for i in range(5)])
    state = tidy.new_state(agent="a", learnings=rules, cap=15, current_ih="h", today=TODAY)
    state.unplanned.update(f"{60 + i:08x}" for i in range(5))
    report = overcap.explain(state, passes=1, last_freed=0, graduation_skipped=True)
    counts = {r.text: r.count for r in report.reasons}
    assert counts == {overcap.DIFFERENT: 10, overcap.GRACE: 3, overcap.TOOL_ERRORS: 2, overcap.NOT_WRITABLE: 4,
                      overcap.UNVETTED: 2, overcap.UNPLANNED: 5}
    assert report.accounted == report.in_force == 26
    assert report.further.startswith("Still 11 over the cap, but a group of learnings could not be planned")


def test_five_passes_that_still_freed_slots_say_another_tidy_would_get_further():
    state = tidy.new_state(agent="a", learnings=[rule(i) for i in range(20)], cap=15, current_ih="h", today=TODAY)
    report = overcap.explain(state, passes=5, last_freed=2, graduation_skipped=False)
    assert "after 5 passes" in report.further and "tidying up again would get further" in report.further


def test_under_the_cap_there_is_nothing_to_explain():
    state = tidy.new_state(agent="a", learnings=[rule(i) for i in range(15)], cap=15, current_ih="h", today=TODAY)
    assert overcap.explain(state, passes=1, last_freed=0, graduation_skipped=False) is None


def test_a_tidy_whose_group_cannot_be_planned_ends_over_the_cap_and_accounts_for_it(tmp_path):
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nlearning: true\n---\n\n# A\n\nDo things.\n")
    ih = instruction_hash(agent.read_text())
    rules = [rule(i, ih=ih, body=f"Detail {i} about topic {i * 13}.") for i in range(40)]
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True)
    location.store_path.write_text(render(StoreDoc(name="a", learnings=rules)))
    seen = []

    def flaky(request: p.PlanRequest) -> p.PlanAnswer:
        seen.append(request)
        if len(seen) == 1:
            raise p.InvalidAnswerError("the answer did not validate", operation="plan_groups")
        return keep_everything(request)

    result = run_tidy(agent, helper=ScriptedHelper(plan_groups=flaky, vet=passing), today=TODAY)
    assert result.overcap.accounted == result.counts.after == 40
    assert result.overcap.further is not None
    assert any("could not be planned" in n for n in result.notes)
