"""What the injected rules cost on every model request, and how good doctor's estimate of it is.

    python benchmarks/prompt_cost.py

A run's system prompt is the agent body plus the `## Relevant Learnings` section (runtime/runner.py's
`system_prompt`); the rules are paid for on every model request of the run. For 15 rules in force, of
typical length and at the 800-character limit, this prints the tokens they add to the system prompt
(with and without them, counted by a tokenizer), and doctor's figure (`agentuse doctor`, the
`~N tokens/model request` of its first learning line) as a ratio to the tokenizer's count.

The tokenizer is `anthropic-tokenizer` (PyPI; offline, the legacy Claude vocabulary: current models'
counts differ somewhat, so treat it as a second estimate, not the bill). Without it installed the script
says so and compares with len/4 only.
"""

from __future__ import annotations

import random
import re

from _common import machine, make_rules, print_figures, project, sentence
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.describe import estimate_tokens
from agentuse.core.inject import Injection, select_for_run
from agentuse.core.learning import RULE_CHAR_LIMIT, State
from agentuse.core.store_format import StoreDoc
from agentuse.runtime.runner import system_prompt

try:
    from anthropic_tokenizer import count_tokens as _count

    TOKENIZER = "anthropic-tokenizer"
except ImportError:  # the benchmark still runs; the figures then say which counter was used
    _count = None
    TOKENIZER = "len/4 (anthropic-tokenizer not installed)"

RULES = 15
_DOCTOR = re.compile(r"~([0-9.]+)(k?) tokens/model request")


def count(text: str) -> int:
    return _count(text) if _count else estimate_tokens(text)


def _long(rules):
    """The same rules, each padded with sentences to just under the 800-character limit."""
    rng = random.Random(3)
    out = []
    for rule in rules:
        body = rule.body
        while len(f"{rule.title}\n{body} {sentence(rng)}") < RULE_CHAR_LIMIT:
            body = f"{body} {sentence(rng)}"
        out.append(rule.model_copy(update={"body": body}))
    return out


def _doctor_tokens(agent_path) -> int:
    result = CliRunner().invoke(app, ["doctor", str(agent_path)])
    assert result.exit_code == 0, result.output
    found = _DOCTOR.search(result.output)
    assert found, result.output
    number = float(found[1])
    return round(number * 1000) if found[2] else int(number)


def measure(shape: str) -> dict[str, float]:
    with project(cap=RULES) as agent_path:
        agent = load_agent(agent_path)
        ih = agent_hash(agent)
        rules = [r.model_copy(update={"state": State.active, "why": None}) for r in make_rules(RULES, ih=ih)]
        if shape == "limit":
            rules = _long(rules)
        location = store.locate(agent_path)
        doc = StoreDoc(name=location.name, agent=location.key, learnings=rules)
        store.save(location, doc)
        injection = select_for_run(agent, doc, ih)
        assert len(injection.ids) == RULES
        bare, full = system_prompt(agent, Injection()), system_prompt(agent, injection)
        added = count(full) - count(bare)
        return {
            "rule_chars_mean": sum(len(r.text) for r in rules) / RULES,
            "system_prompt_tokens_without": count(bare),
            "system_prompt_tokens_with": count(full),
            "tokens_added_per_request": added,
            "tokens_added_per_rule": added / RULES,
            "section_tokens": count(injection.text),
            "section_len4": estimate_tokens(injection.text),
            "doctor_estimate": _doctor_tokens(agent_path),
        }


def main() -> None:
    figures: dict[str, object] = {**machine(), "tokenizer": TOKENIZER, "rules_injected": RULES}
    for shape in ("typical", "limit"):
        r = measure(shape)
        for key, value in r.items():
            figures[f"{shape}_{key}"] = value
        figures[f"{shape}_doctor_estimate_over_tokenizer"] = r["doctor_estimate"] / r["section_tokens"]
        figures[f"{shape}_len4_over_tokenizer"] = r["section_len4"] / r["section_tokens"]
    print_figures(figures)


if __name__ == "__main__":
    main()
