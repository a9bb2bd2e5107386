"""Property: for random stores and random, adversarial model answers, tidy's "nothing may vanish" holds.

Every rule id that went in is afterwards in the store (in force, quarantined or graduated) or in the
archive, and every rule of the permanent block is still in the block or named in an edit (combined into
another, or dropped with a reason). The model here answers every step with random moves over real and
made-up ids, random covers and drops, random audits and verdicts: whatever it says, code decides.
"""

from __future__ import annotations

import random
from datetime import date

from fakes.scripted_helper import ScriptedHelper
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentuse.core import store
from agentuse.core.helper import protocol as p
from agentuse.core.learned_block import BlockRule, read_block, write_block
from agentuse.core.learning import Category, Verdict
from agentuse.core.store_format import StoreDoc
from agentuse.flows.tidy import run_tidy

from .stores import agent_text, make_rules

TODAY = date(2026, 8, 1)
_WORDS = "keep cite link avoid check post tip source intro draft upload wait".split()


def _draft(rng: random.Random) -> p.Draft:
    return p.Draft(category=rng.choice(list(Category)), title=" ".join(rng.choices(_WORDS, k=rng.randint(0, 5))),
                   body=" ".join(rng.choices(_WORDS, k=rng.randint(0, 40))))


def _pick(rng: random.Random, ids: list[str]) -> list[str]:
    pool = ids + ["0badc0de", "ffffffff"]
    return rng.sample(pool, rng.randint(0, min(len(pool), 4)))


def adversary(seed: int) -> ScriptedHelper:
    rng = random.Random(seed)

    def vet(request: p.VetRequest) -> p.VetAnswer:
        ids = [c.id for c in request.candidates]
        return p.VetAnswer(verdicts=[p.VetVerdict(id=rng.choice(ids + ["0badc0de"]), verdict=rng.choice(list(Verdict)),
                                                  detail=rng.choice(["", "contradicts: x"]))
                                     for _ in range(rng.randint(0, len(ids) + 1))])

    def plan(request: p.PlanRequest) -> p.PlanAnswer:
        ids = [r.id for r in request.rules]
        return p.PlanAnswer(moves=[p.Move(kind=rng.choice(list(p.MoveKind)), ids=_pick(rng, ids),
                                          superseded_by=rng.choice([None, *ids, "0badc0de"]), reason="random")
                                   for _ in range(rng.randint(0, 5))])

    def rewrite(request: p.RewriteRequest) -> p.RewriteAnswer:
        ids = [r.id for r in request.originals]
        return p.RewriteAnswer(rule=_draft(rng), covers=_pick(rng, ids),
                               dropped=[p.Dropped(id=i, reason="random") for i in _pick(rng, ids)])

    def audit(request: p.AuditRequest) -> p.AuditAnswer:
        ids = [r.id for r in request.originals]
        return p.AuditAnswer(missing=[p.Missing(id=i, what="a case") for i in _pick(rng, ids)])

    def block(request: p.BlockRequest) -> p.BlockAnswer:
        ids = [r.id for r in request.rules]
        rules = [p.RewrittenRule(category=rng.choice(list(Category)), text=_draft(rng).body or "x", covers=_pick(rng, ids))
                 for _ in range(rng.randint(0, len(ids) + 1))]
        return p.BlockAnswer(rules=rules, dropped=[p.BlockDrop(id=i, reason="random", stated_by=rng.choice([None, *ids]))
                                                  for i in _pick(rng, ids)])

    return ScriptedHelper(vet=vet, plan_groups=plan, rewrite_group=rewrite, audit=audit, rewrite_block=block)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(size=st.integers(2, 40), cap=st.integers(1, 15), block_size=st.integers(0, 4), seed=st.integers(0, 10**6),
       stale=st.booleans())
def test_nothing_may_vanish_whatever_the_model_answers(tmp_path_factory, size, cap, block_size, seed, stale):
    root = tmp_path_factory.mktemp("prop")
    agent = root / "blog-writer.agentuse"
    block = [BlockRule(category=Category.tip, text=f"Permanent rule {i}: {' '.join(_WORDS[i:i + 4])}")
             for i in range(block_size)]
    agent.write_text(write_block(agent_text(cap), block))
    location = store.locate(agent)
    rules = make_rules(size, seed=seed, ih="000000000000" if stale else None, today=TODAY)
    store.save(location, StoreDoc(name=location.name, agent=location.key, learnings=rules))

    result = run_tidy(agent, helper=adversary(seed), today=TODAY, seed=seed)

    kept = {r.id for r in store.load(location).learnings}
    archived = {r.id for r in store.load_archive(location).learnings}
    vanished = {r.id for r in rules} - kept - archived
    assert not vanished, (vanished, result.notes)
    after = [r.text for r in read_block(agent.read_text()) or []]
    accounted = set(after) | {s for edit in result.block_edits for s in edit.sources}
    accounted |= {edit.text for edit in result.block_edits if edit.kind == "dropped" and edit.reason}
    lost = [rule.text for rule in block if rule.text not in accounted]
    assert not lost, (lost, result.block_edits, result.block_discarded)
