"""The instruction hash and staleness (spec: Rules are stamped with the instructions they were checked
against): editing the instructions changes the hash; graduating rules into the learned block does not."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from agentuse.core.agent_file import BlockRule, load_agent, write_block
from agentuse.core.contract import agent_hash, contract_text, instruction_hash, instructions, is_stale
from agentuse.core.learning import Category, Learning

AGENT = """\
---
model: anthropic:claude-sonnet-5
learning: true
---

# Blog Writer

Write short productivity blog posts.

## Guidelines
- Start with a relatable hook
- Include 3 actionable tips
"""

CITE = BlockRule(category=Category.tip, text="Cite sources before publishing")
INTROS = BlockRule(category=Category.warning, text="Keep intros factual")


def rule(ih: str | None) -> Learning:
    return Learning(id="a1b2c3d4", title="Keep intros factual", date="2026-01-27", ih=ih)


def test_hash_is_twelve_hex():
    assert re.fullmatch(r"[0-9a-f]{12}", instruction_hash(AGENT))


def test_editing_the_instructions_changes_the_hash():
    edited = AGENT.replace("Include 3 actionable tips", "Include 5 actionable tips")
    assert instruction_hash(edited) != instruction_hash(AGENT)
    assert instruction_hash(AGENT + "- End with a call to action\n") != instruction_hash(AGENT)


def test_adding_changing_and_removing_the_learned_block_keeps_the_hash():
    base = instruction_hash(AGENT)
    with_block = write_block(AGENT, [CITE])
    assert instruction_hash(with_block) == base
    assert instruction_hash(write_block(with_block, [INTROS, CITE])) == base
    assert instruction_hash(write_block(with_block, [])) == base


def test_a_block_in_the_middle_is_excised_too():
    middle = AGENT.replace("## Guidelines", write_block("", [CITE]) + "\n## Guidelines")
    assert instruction_hash(middle) == instruction_hash(AGENT)


def test_whole_file_and_body_hash_the_same(tmp_path):
    path = tmp_path / "blog.agentuse"
    path.write_text(write_block(AGENT, [CITE]))
    agent = load_agent(path)
    assert instruction_hash(agent.text) == instruction_hash(agent.body) == agent_hash(agent)


def test_frontmatter_is_not_part_of_the_hash():
    # Configuration (model, cap) is not what a rule was vetted against: changing it must not go stale.
    retuned = AGENT.replace("learning: true", "learning:\n  max: 30").replace("sonnet-5", "haiku-4-5")
    assert instruction_hash(retuned) == instruction_hash(AGENT)


def test_whitespace_only_changes_keep_the_hash():
    assert instruction_hash(AGENT.replace("\n", "\r\n")) == instruction_hash(AGENT)
    assert instruction_hash(AGENT.replace("blog posts.\n", "blog posts.   \n\n\n")) == instruction_hash(AGENT)


def test_a_body_that_opens_with_a_rule_line_is_not_mistaken_for_frontmatter():
    body = "---\nA note between rules.\n---\n# Agent\n"
    assert instructions(body).startswith("---\nA note")


def test_unbalanced_markers_excise_nothing_but_still_hash():
    broken = AGENT + "<!-- agentuse:learned -->\n- [tip] x\n"
    assert instruction_hash(broken) != instruction_hash(AGENT)


@given(st.lists(st.tuples(st.sampled_from(list(Category)), st.text(min_size=1, max_size=40)), max_size=4))
def test_no_graduation_ever_changes_the_hash(pairs):
    rules = [BlockRule(category=c, text=t) for c, t in pairs if t.strip()]
    assert instruction_hash(write_block(AGENT, rules)) == instruction_hash(AGENT)


def test_contract_text_is_the_whole_body_with_the_block(tmp_path):
    long_rules = "\n".join(f"- Rule {n}: " + "x" * 80 for n in range(60))  # well past 3,000 characters
    path = tmp_path / "big.agentuse"
    path.write_text(write_block(AGENT + long_rules + "\n", [CITE]))
    text = contract_text(load_agent(path))
    assert text.startswith("# Blog Writer") and "- Rule 59: " in text
    assert "- [tip] Cite sources before publishing" in text and "model:" not in text
    assert len(text) > 3000


def test_staleness():
    assert is_stale(rule("9c4d2ba17e08"), "000000000000")
    assert not is_stale(rule("9c4d2ba17e08"), "9c4d2ba17e08")
    assert not is_stale(rule(None), "9c4d2ba17e08")  # pre-v0.19.0 rules stay injectable until backfilled
