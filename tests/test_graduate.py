"""Graduation into the agent file's learned block, and the rewrite of the block as one document."""

from __future__ import annotations

from datetime import date

import pytest
from fakes.scripted_helper import ScriptedHelper, passing, block_unchanged, keep_everything, nothing_missing

from agentuse.core import graduate, store, tidy
from agentuse.core.contract import instruction_hash
from agentuse.core.helper import protocol as p
from agentuse.core.learned_block import END, START, BlockRule, read_block
from agentuse.core.learning import Learning, Source, State
from agentuse.core.store_format import StoreDoc, render
from agentuse.flows.tidy import run_tidy

TODAY = date(2026, 11, 30)
AGENT = """---
# the owner's comment, kept byte for byte
model: anthropic:claude-sonnet-5
learning:
  max: 15
---

# Blog Writer

Write short productivity blog posts.   

<!-- agentuse:learned -->
## Learned Guidance

Guidance consolidated from previous runs.

- [tip] Cite sources before publishing
<!-- /agentuse:learned -->

## Notes written after the block
Trailing text stays too.
"""


def helper(**ops) -> ScriptedHelper:
    defaults = dict(vet=passing, plan_groups=keep_everything, audit=nothing_missing, rewrite_block=block_unchanged)
    return ScriptedHelper(**{**defaults, **ops})


@pytest.fixture
def agent(tmp_path):
    path = tmp_path / "blog.agentuse"
    path.write_bytes(AGENT.encode())
    return path


def seed(agent, *rules: Learning) -> None:
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True, exist_ok=True)
    location.store_path.write_text(render(StoreDoc(name="blog", learnings=list(rules))))


def rule(rid: str, title: str, agent, **kw) -> Learning:
    kw.setdefault("date", "2026-06-01")
    kw.setdefault("ih", instruction_hash(agent.read_text()))
    return Learning(id=rid, title=title, **kw)


@pytest.mark.parametrize("evidence, eligible", [
    ({"re": 1}, True), ({"ok": 3}, True), ({"injected": 10}, True),
    ({"ok": 2, "injected": 9}, False), ({"src": Source.manual}, False),  # writing it yourself is not enough
])
def test_eligibility(evidence, eligible):
    state = tidy.new_state(agent="a", learnings=[Learning(id="r1", title="t", date="2026-06-01", ih="h", **evidence)],
                           cap=15, current_ih="h", today=TODAY)
    assert bool(graduate.eligible(state)) is eligible


def test_an_unvetted_rule_does_not_graduate():
    state = tidy.new_state(agent="a", learnings=[Learning(id="r1", title="t", date="2026-06-01", ok=5)],
                           cap=15, current_ih="h", today=TODAY)
    assert graduate.eligible(state) == []


def test_graduation_changes_only_the_bytes_inside_the_markers(agent):
    other = rule("00000002", "Keep intros factual", agent)
    seed(agent, rule("00000001", "Check every link", agent, body="Open each link before saving.", ok=3), other)
    hash_before = instruction_hash(agent.read_text())

    result = run_tidy(agent, helper=helper(), today=TODAY)

    text = agent.read_text()
    head, tail = AGENT.split(START)[0], AGENT.split(END)[1]
    assert text.startswith(head + START) and text.endswith(END + tail)
    assert read_block(text) == [BlockRule(category="tip", text="Cite sources before publishing"),
                                BlockRule(category="tip", text="Check every link\nOpen each link before saving.")]
    assert result.permanent == ["Check every link"]
    # The block is excised from the hash: graduating marks nothing stale.
    assert instruction_hash(text) == hash_before
    doc = store.load(store.locate(agent))
    assert doc.learnings[0].state is State.graduated  # the staged copy stays, marked
    assert doc.learnings[1] == other


def test_hand_edits_in_the_block_survive_and_rerunning_does_not_duplicate(agent):
    seed(agent, rule("00000001", "Check every link", agent, ok=3))
    run_tidy(agent, helper=helper(), today=TODAY)
    edited = agent.read_text().replace("- [tip] Check every link", "- [tip] Check every link, including images")
    agent.write_text(edited)
    location = store.locate(agent)
    doc = store.load(location)
    doc.learnings.append(rule("00000003", "Prefer active voice", agent, injected=12))
    store.save(location, doc)

    run_tidy(agent, helper=helper(), today=TODAY)

    texts = [b.text for b in read_block(agent.read_text())]
    assert texts == ["Cite sources before publishing", "Check every link, including images", "Prefer active voice"]


def test_an_unwritable_agent_file_skips_graduation_and_says_so(agent):
    seed(agent, rule("00000001", "Check every link", agent, ok=3))
    agent.chmod(0o444)
    try:
        result = run_tidy(agent, helper=helper(), today=TODAY)
    finally:
        agent.chmod(0o644)
    assert agent.read_bytes() == AGENT.encode()
    assert result.graduation_skipped.startswith(f"Graduation skipped: {agent} is not writable.")
    assert result.counts.permanent == 0
    assert store.load(store.locate(agent)).learnings[0].state is State.active


def _block_with(agent, *texts: str) -> None:
    body = "\n".join(f"- [tip] {t}" for t in texts)
    agent.write_text(AGENT.replace("- [tip] Cite sources before publishing", body))


def test_a_block_rewrite_that_loses_a_rule_is_discarded_naming_it(agent):
    _block_with(agent, "Cite sources before publishing", "Link the primary study", "Never promise results")
    before = agent.read_bytes()

    def lose_one(request: p.BlockRequest) -> p.BlockAnswer:
        return p.BlockAnswer(rules=[p.RewrittenRule(category="tip", text="Cite and link the primary source",
                                                covers=["b1", "b2"])])

    result = run_tidy(agent, helper=helper(rewrite_block=lose_one), today=TODAY)
    assert result.block_discarded == ('The rewrite of the permanent block was discarded: it lost '
                                      '"Never promise results"')
    assert agent.read_bytes() == before


def test_a_block_audit_puts_back_exactly_the_inputs_it_reports_missing(agent):
    _block_with(agent, "Cite sources before publishing", "Link the primary study, except for books",
                "Never promise results", "Do not promise outcomes")

    def combine(request: p.BlockRequest) -> p.BlockAnswer:
        return p.BlockAnswer(
            rules=[p.RewrittenRule(category="tip", text="Cite and link the primary source", covers=["b1", "b2"]),
                   p.RewrittenRule(category="warning", text="Never promise results or outcomes", covers=["b3", "b4"])])

    def audit(request: p.AuditRequest) -> p.AuditAnswer:
        if any(r.id == "b2" for r in request.originals):
            return p.AuditAnswer(missing=[p.Missing(id="b2", what='the exception "except for books"')])
        return p.AuditAnswer()

    result = run_tidy(agent, helper=helper(rewrite_block=combine, audit=audit), today=TODAY)
    assert [(b.category.value, b.text) for b in read_block(agent.read_text())] == [
        ("tip", "Cite and link the primary source"),
        ("tip", "Link the primary study, except for books"),
        ("warning", "Never promise results or outcomes"),
    ]
    kinds = [(e.kind, e.text) for e in result.block_edits]
    assert ("kept back", "Link the primary study, except for books") in kinds
    assert ("combined", "Never promise results or outcomes") in kinds


def test_an_unchanged_block_is_not_rewritten_again(agent):
    _block_with(agent, "Cite sources before publishing", "Never promise results")
    h = helper(rewrite_block=lambda r: p.BlockAnswer(rules=[
        p.RewrittenRule(category="tip", text="Cite sources before publishing; never promise results",
                    covers=["b1", "b2"])]))
    run_tidy(agent, helper=h, today=TODAY)
    assert len(h.ops("rewrite_block")) == 1
    second = run_tidy(agent, helper=h, today=TODAY)
    assert second.nothing and len(h.ops("rewrite_block")) == 1


def test_a_block_rule_dropped_without_a_reason_counts_as_vanished():
    block = [BlockRule(category="tip", text="Cite sources"), BlockRule(category="tip", text="Cite every source")]
    silent = p.BlockAnswer(rules=[p.RewrittenRule(category="tip", text="Cite every source", covers=["b2"])],
                           dropped=[p.BlockDrop(id="b1", reason=" ")])
    explained = silent.model_copy(update={"dropped": [p.BlockDrop(id="b1", reason='"Cite every source" states it')]})
    assert graduate.check_claims(block, silent) == \
        'The rewrite of the permanent block was discarded: it lost "Cite sources"'
    assert graduate.check_claims(block, explained) is None


# ---------------------------------------------------------------- a rule dropped from the block (review 19)

def test_a_model_that_drops_every_permanent_rule_with_a_reason_empties_nothing(tmp_path, cli, fake_anthropic):
    """Spec: a rule is dropped only when another rule now fully states it. A drop names that rule and the
    claim is audited like a cover; a drop naming none is no drop, so a model cannot wipe the block."""
    from fakes import tool_use

    agent = tmp_path / "blog.agentuse"
    agent.write_text(AGENT.replace("- [tip] Cite sources before publishing", "- [tip] Keep intros under 40 words\n"
                                   "- [warning] Never publish without two sources\n- [tip] Spell out numbers under ten"))
    before = agent.read_bytes()

    def model(request):
        tool = request.forced_tool
        if tool == "submit_rewrite_block":
            return tool_use(tool, {"rules": [], "dropped": [{"id": i, "reason": "obsolete"} for i in ("b1", "b2", "b3")]})
        return tool_use(tool, {"verdicts": []} if tool == "submit_vet" else {"missing": []})

    fake_anthropic.script(default=model)
    result = cli("learnings", "tidy", agent)
    assert agent.read_bytes() == before
    assert "(dropped" not in result.stdout


def test_a_dropped_block_rule_is_audited_against_the_rule_it_names(agent):
    _block_with(agent, "Cite sources before publishing", "Cite every source", "Never promise results",
                "Do not promise outcomes, except in case studies", "Spell out numbers under ten")

    def rewrite(request: p.BlockRequest) -> p.BlockAnswer:
        return p.BlockAnswer(
            rules=[p.RewrittenRule(category="tip", text="Cite every source before publishing", covers=["b1"]),
                   p.RewrittenRule(category="tip", text="Never promise results", covers=["b3"]),
                   p.RewrittenRule(category="tip", text="Spell out numbers under ten", covers=["b5"])],
            dropped=[p.BlockDrop(id="b2", reason="the first rule states it", stated_by="b1"),
                     p.BlockDrop(id="b4", reason="the second rule states it", stated_by="b3")])

    asked = []

    def audit(request: p.AuditRequest) -> p.AuditAnswer:
        asked.append(sorted(r.id for r in request.originals))
        return p.AuditAnswer(missing=[p.Missing(id="b4", what='the exception "except in case studies"')]
                             if any(r.id == "b4" for r in request.originals) else [])

    result = run_tidy(agent, helper=helper(rewrite_block=rewrite, audit=audit), today=TODAY)
    assert sorted(asked) == [["b1", "b2"], ["b4"]]  # the unchanged rule is asked only about the rule it absorbs
    assert [b.text for b in read_block(agent.read_text())] == [
        "Cite every source before publishing", "Never promise results",
        "Do not promise outcomes, except in case studies", "Spell out numbers under ten"]
    kinds = {(e.kind, e.text) for e in result.block_edits}
    assert ("dropped", "Cite every source") in kinds
    assert ("kept back", "Do not promise outcomes, except in case studies") in kinds


@pytest.mark.parametrize("stated_by", [None, "b9", "b2", "b3"], ids=["none", "unknown", "itself", "not-in-output"])
def test_a_drop_that_names_no_rule_of_the_rewrite_is_kept_back(agent, stated_by):
    _block_with(agent, "Cite sources before publishing", "Cite every source", "Never promise results")

    def rewrite(request: p.BlockRequest) -> p.BlockAnswer:
        return p.BlockAnswer(rules=[p.RewrittenRule(category="tip", text="Cite sources before publishing",
                                                    covers=["b1"])],
                             dropped=[p.BlockDrop(id="b2", reason="stated", stated_by=stated_by),
                                      p.BlockDrop(id="b3", reason="obsolete", stated_by="b2")])

    result = run_tidy(agent, helper=helper(rewrite_block=rewrite), today=TODAY)
    assert [b.text for b in read_block(agent.read_text())] == [
        "Cite sources before publishing", "Cite every source", "Never promise results"]
    assert not [e for e in result.block_edits if e.kind == "dropped"]


def test_a_rule_dropped_twice_is_dropped_once(agent):
    _block_with(agent, "Cite sources before publishing", "Cite every source", "Never promise results")

    def rewrite(request: p.BlockRequest) -> p.BlockAnswer:
        return p.BlockAnswer(rules=[p.RewrittenRule(category="tip", text="Cite every source before publishing",
                                                    covers=["b1"]),
                                    p.RewrittenRule(category="tip", text="Never promise results", covers=["b3"])],
                             dropped=[p.BlockDrop(id="b2", reason="stated", stated_by="b1"),
                                      p.BlockDrop(id="b2", reason="again", stated_by="b9")])

    result = run_tidy(agent, helper=helper(rewrite_block=rewrite), today=TODAY)
    assert [b.text for b in read_block(agent.read_text())] == ["Cite every source before publishing",
                                                               "Never promise results"]
    assert [(e.kind, e.text) for e in result.block_edits if e.kind == "dropped"] == [("dropped", "Cite every source")]


def test_a_credential_a_block_rewrite_writes_never_reaches_the_agent_file(agent):
    """Every other rule a model writes is redacted (a Draft); the permanent block's rules go into a file that
    is committed to the repository."""
    _block_with(agent, "Connect to the reporting database read-only", "Use the replica for reports")

    def rewrite(request: p.BlockRequest) -> p.BlockAnswer:
        return p.BlockAnswer(rules=[p.RewrittenRule(
            category="tip", covers=["b1", "b2"],
            text="Connect to the reporting replica read-only with DB_PASSWORD=zq8Xv2LmP0rT")])

    run_tidy(agent, helper=helper(rewrite_block=rewrite), today=TODAY)
    written = agent.read_text()
    assert "zq8Xv2LmP0rT" not in written
    assert "- [tip] Connect to the reporting replica read-only with DB_PASSWORD=***" in written
