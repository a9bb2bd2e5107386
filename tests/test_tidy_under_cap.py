"""A tidy-up does what it is for under the cap too (issue 12): near-duplicates are merged, a rule a person
repeated is sharpened before it graduates, and "Nothing to tidy up" comes only when nothing qualifies,
without a model call. Under the cap, only the groups with such work cost a stage-1 call."""

from __future__ import annotations

from datetime import date

from fakes.scripted_helper import ScriptedHelper, passing, block_unchanged, nothing_missing

from agentuse.core import store
from agentuse.core.agent_file import load_agent, read_block
from agentuse.core.contract import agent_hash
from agentuse.core.helper import protocol as p
from agentuse.core.learning import Channel, Learning, Source, State
from agentuse.core.store_format import StoreDoc
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)
AGENT = "---\nmodel: anthropic:claude-sonnet-5\nlearning: true\n---\n# Blog\n\nWrite short posts.\n"
UNRELATED = ["Use numbered lists for the tips", "Keep paragraphs under four sentences", "Write in British English",
             "Link the previous post at the end", "Put the reading time under the title"]
PARAPHRASES = ["Start each post with a relatable hook", "Open every post with a hook",
               "Begin posts with an engaging hook"]


def _seed(tmp_path, rules: list[Learning]):
    agent = tmp_path / "blog.agentuse"
    agent.write_text(AGENT)
    ih = agent_hash(load_agent(agent))
    location = store.locate(agent)
    store.save(location, StoreDoc(name=location.name, agent=location.key,
                                  learnings=[r.model_copy(update={"ih": ih}) for r in rules]))
    return agent, location


def _rule(i: int, title: str, **kw) -> Learning:
    kw.setdefault("date", "2026-06-01")
    return Learning(id=f"{i:08x}", title=title, **kw)


def _merge_the_hooks(request: p.PlanRequest) -> p.PlanAnswer:
    hooks = [r.id for r in request.rules if "hook" in r.text.lower() and r.re == 0]
    repeated = [r.id for r in request.rules if r.re > 0]
    moves = [p.Move(kind="merge", ids=hooks, reason="near-duplicates")] if len(hooks) > 1 else []
    return p.PlanAnswer(moves=moves + [p.Move(kind="rewrite", ids=[i], reason="repeated") for i in repeated])


def _rewrite(request: p.RewriteRequest) -> p.RewriteAnswer:
    if request.kind is p.MoveKind.rewrite:
        return p.RewriteAnswer(rule=p.Draft(title="Put the hook in the first sentence"),
                               covers=[r.id for r in request.originals])
    return p.RewriteAnswer(rule=p.Draft(title="Open every post with a relatable hook"),
                           covers=[r.id for r in request.originals])


def test_under_the_cap_paraphrases_merge_and_a_repeated_rule_is_sharpened_before_it_graduates(tmp_path):
    rules = ([_rule(i, t) for i, t in enumerate(UNRELATED)]
             + [_rule(10 + i, t) for i, t in enumerate(PARAPHRASES)]
             + [_rule(20, "hook first pls", src=Source.manual, ch=Channel.corrections, re=2)])
    agent, location = _seed(tmp_path, rules)  # 9 rules, cap 15
    helper = ScriptedHelper(plan_groups=_merge_the_hooks, rewrite_group=_rewrite, audit=nothing_missing,
                            vet=passing, rewrite_block=block_unchanged)
    result = run_tidy(agent, helper=helper, today=TODAY, seed=1)
    assert not result.nothing and helper.ops("plan_groups")
    assert (result.counts.merged, result.counts.rewritten, result.counts.permanent) == (1, 1, 1)
    # The repeated rule reached the agent file in its sharpened wording, not as "hook first pls".
    assert [r.text for r in read_block(agent.read_text())] == ["Put the hook in the first sentence"]
    in_force = [r.title for r in store.load(location).learnings if r.state is State.active]
    assert sorted(in_force) == sorted(UNRELATED + ["Open every post with a relatable hook"])


def test_under_the_cap_only_groups_with_work_are_planned(tmp_path):
    # 19 unrelated rules and one pair of paraphrases: two groups of stage 1, one of which has work.
    texts = ["Use numbered lists for tips", "Keep paragraphs under four sentences", "Write in British English",
             "Link the previous post", "Put reading time under the title", "Add alt text to images",
             "Prefer tables for comparisons", "Quote experts by name", "Never use emoji", "Tag posts by topic",
             "Date every post", "Credit the author", "Footnotes go last", "Caption each chart",
             "Bold the key term once", "Avoid italics", "Headings in sentence case", "Summarise in one line",
             "Format code in fenced blocks"]
    rules = [_rule(i, t) for i, t in enumerate(texts)]
    rules += [_rule(50, "End with a clear call-to-action"), _rule(51, "Finish every post with a call to action")]
    agent = tmp_path / "blog.agentuse"
    agent.write_text(AGENT.replace("learning: true", "learning:\n  max: 30"))
    ih = agent_hash(load_agent(agent))
    location = store.locate(agent)
    store.save(location, StoreDoc(name=location.name, agent=location.key,
                                  learnings=[r.model_copy(update={"ih": ih}) for r in rules]))
    helper = ScriptedHelper(plan_groups=lambda r: p.PlanAnswer(moves=[]), vet=passing)
    result = run_tidy(agent, helper=helper, today=TODAY, seed=1)
    [planned] = helper.ops("plan_groups")  # one call, for the group holding the pair; not one per group
    assert {"End with a clear call-to-action", "Finish every post with a call to action"} <= \
        {r.text for r in planned.request.rules}
    assert result.passes[0].groups == 1


def test_nothing_to_tidy_up_only_when_nothing_qualifies_and_without_a_model_call(tmp_path):
    agent, location = _seed(tmp_path, [_rule(i, t) for i, t in enumerate(UNRELATED)])
    before = location.store_path.read_bytes()
    helper = ScriptedHelper()  # any call fails the test
    result = run_tidy(agent, helper=helper, today=TODAY)
    assert result.nothing and helper.calls == []
    assert location.store_path.read_bytes() == before
