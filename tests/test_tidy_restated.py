"""A merge whose new wording restates a rule outside its group (issue 16's demo finding): the vet calls the
wording a duplicate of that rule, so the rules planned together and the rule they restate are one rule
said several times. The next pass merges them all, instead of leaving a note that the merge failed and
"say different things" on the over-cap report while they plainly say the same thing."""

from __future__ import annotations

from datetime import date

from fakes.scripted_helper import ScriptedHelper, block_unchanged, keep_everything, nothing_missing

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.helper import protocol as p
from agentuse.core.learning import Learning, State
from agentuse.core.store_format import StoreDoc
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)
AGENT = "---\nmodel: anthropic:claude-sonnet-5\nlearning: true\n---\n# Blog\n\nWrite short posts.\n"
PARAGRAPHS = {"a1": "Keep paragraphs short", "a2": "Use short paragraphs", "r": "Write short paragraphs"}
OTHERS = ["Use numbered lists for the tips", "Write in British English", "Link the previous post at the end"]


def _seed(tmp_path, cap: int = 15):
    agent = tmp_path / "blog.agentuse"
    agent.write_text(AGENT.replace("learning: true", f"learning:\n  max: {cap}"))
    ih = agent_hash(load_agent(agent))
    rules = [Learning(id=f"{i:08x}", title=t, date="2026-06-01", ih=ih) for i, t in enumerate(OTHERS)]
    rules += [Learning(id=f"{rid:0>8}", title=t, date="2026-06-01", ih=ih) for rid, t in PARAGRAPHS.items()]
    location = store.locate(agent)
    store.save(location, StoreDoc(name=location.name, agent=location.key, learnings=rules))
    return agent, location


def _merge_two_of_three(request: p.PlanRequest) -> p.PlanAnswer:
    """A planner that saw the paragraph rules apart: it merges the two it was shown together."""
    pair = [r.id for r in request.rules if r.id in ("000000a1", "000000a2")]
    return p.PlanAnswer(moves=[p.Move(kind="merge", ids=pair, reason="near-duplicates")] if len(pair) == 2 else [])


def _rewrite(request: p.RewriteRequest) -> p.RewriteAnswer:
    return p.RewriteAnswer(rule=p.Draft(category="tip", title="Keep every paragraph short"),
                           covers=[r.id for r in request.originals])


def _restates_r_while_it_is_in_force(request: p.VetRequest) -> p.VetAnswer:
    """The wording restates "Write short paragraphs" whenever that rule is among the rules it is vetted against."""
    r_in_force = any(r.id == "0000000r" for r in request.rules_in_force)
    return p.VetAnswer(verdicts=[
        p.VetVerdict(id=c.id, verdict="duplicate", detail="Write short paragraphs", against="0000000r")
        if r_in_force and "paragraph" in c.text else p.VetVerdict(id=c.id, verdict="pass")
        for c in request.candidates])


def _helper(rewrite_group=_rewrite) -> ScriptedHelper:
    """The first plan call merges two of the three; every later one keeps everything."""
    helper = ScriptedHelper(plan_groups=keep_everything, rewrite_group=rewrite_group,
                            vet=_restates_r_while_it_is_in_force, audit=nothing_missing, rewrite_block=block_unchanged)
    return helper.script("plan_groups", _merge_two_of_three)


def test_the_rules_a_merge_restates_are_merged_with_it_in_the_next_pass(tmp_path):
    agent, location = _seed(tmp_path, cap=4)  # 6 in force, over the cap: every pass plans
    helper = _helper()
    result = run_tidy(agent, helper=helper, today=TODAY, seed=1)
    in_force = [r for r in store.load(location).learnings if r.state is State.active]
    assert sorted(r.title for r in in_force) == sorted(OTHERS + ["Keep every paragraph short"])
    assert result.counts.merged == 1
    # The second pass wrote the merge of all three, planned by no model call: the vet had already said so.
    [first, second] = helper.ops("rewrite_group")
    assert {o.id for o in first.request.originals} == {"000000a1", "000000a2"}
    assert {o.id for o in second.request.originals} == {"000000a1", "000000a2", "0000000r"}
    assert not any("not applied" in n for n in result.notes), result.notes
    merged = next(c for c in result.changes if c.kind == "merged")
    assert merged.pass_no == 2 and len(merged.ids) == 3


def test_a_merge_with_the_rule_it_restates_that_cannot_be_written_changes_nothing_and_says_so(tmp_path):
    agent, location = _seed(tmp_path, cap=4)
    helper = _helper(rewrite_group=[_rewrite] + [p.InvalidAnswerError("no answer", operation="rewrite_group")] * 4)
    result = run_tidy(agent, helper=helper, today=TODAY, seed=1)
    in_force = {r.title for r in store.load(location).learnings if r.state is State.active}
    assert set(PARAGRAPHS.values()) <= in_force  # nothing applied: every original stays as it was
    # The merge of all three was asked for and could not be written: that is the note, and no pass is wasted
    # on asking again.
    assert {o.id for o in helper.ops("rewrite_group")[1].request.originals} == {"000000a1", "000000a2", "0000000r"}
    assert helper.count("rewrite_group") == 2
    assert any("not written" in n for n in result.notes), result.notes


def test_a_restated_rule_merged_elsewhere_in_the_same_pass_is_followed_into_its_merge(tmp_path):
    """The rule the wording restated was itself merged with another in the same pass: the next pass merges
    the failed merge's rules with that product, not with a rule no longer in force."""
    agent, location = _seed(tmp_path, cap=4)

    def plan(request: p.PlanRequest) -> p.PlanAnswer:  # two merges in one pass: a1+a2, and r with a list rule
        return p.PlanAnswer(moves=[p.Move(kind="merge", ids=["000000a1", "000000a2"]),
                                   p.Move(kind="merge", ids=["0000000r", "00000000"])])

    def rewrite(request: p.RewriteRequest) -> p.RewriteAnswer:
        ids = {o.id for o in request.originals}
        title = "Keep every paragraph short" if "000000a1" in ids else "Short paragraphs, numbered tips"
        return p.RewriteAnswer(rule=p.Draft(category="tip", title=title), covers=sorted(ids))

    first_vet = {"done": False}

    def vet(request: p.VetRequest) -> p.VetAnswer:  # the first vet: a1+a2's wording restates r
        out = []
        for c in request.candidates:
            restates = not first_vet["done"] and "Keep every paragraph" in c.text
            out.append(p.VetVerdict(id=c.id, verdict="duplicate" if restates else "pass",
                                    detail="Write short paragraphs" if restates else "",
                                    against="0000000r" if restates else None))
        first_vet["done"] = True
        return p.VetAnswer(verdicts=out)

    helper = ScriptedHelper(plan_groups=keep_everything, rewrite_group=rewrite, vet=vet, audit=nothing_missing,
                            rewrite_block=block_unchanged).script("plan_groups", plan)
    result = run_tidy(agent, helper=helper, today=TODAY, seed=1)
    product = next(c.result for c in result.changes if c.kind == "merged" and c.pass_no == 1)
    second = helper.ops("rewrite_group")[2].request
    assert {o.id for o in second.originals} == {"000000a1", "000000a2", product}
    assert not any("not applied" in n for n in result.notes), result.notes
    in_force = [r.title for r in store.load(location).learnings if r.state is State.active]
    assert "Keep paragraphs short" not in in_force and "Write short paragraphs" not in in_force
