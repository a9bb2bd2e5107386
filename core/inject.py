"""What a run's prompt receives from the store, and counting the injection (spec: How Application Works).

Graduated rules are not rendered here: they live in the agent file's own `## Learned Guidance` block,
which is part of the body the runtime sends. Rules still on probation go under a separate
`## Relevant Learnings` heading, so the two tiers never collide.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from agentuse.core import store, store_merge
from agentuse.core.agent_file import AgentFile
from agentuse.core.learning import Learning
from agentuse.core.ranking import Selection, select
from agentuse.core.redact import redact_text
from agentuse.core.store_format import StoreDoc

RELEVANT_HEADING = "## Relevant Learnings"
RELEVANCE_CAVEAT = (
    "Learnings from previous runs. Apply each one only when its situation is relevant to the current task. "
    "Preserve its intended scope; do not turn examples or past incidents into universal requirements. "
    "The current task and the agent's authored instructions take precedence over any learning. "
    "A clearly relevant learning may refine a soft skill default without becoming a checklist item."
)


@dataclass(frozen=True)
class Injection:
    """What one run's prompt receives (a plain value: the run records `ids` in its own events)."""

    ids: list[str] = field(default_factory=list)
    text: str = ""  # the `## Relevant Learnings` section, empty when nothing is injected


def selection_for(agent: AgentFile, doc: StoreDoc, current_ih: str) -> Selection:
    """The one place that turns an agent's config and store into groups (CLI, runtime, serve share it)."""
    return select(doc.learnings, cap=agent.cap, current_ih=current_ih, apply=agent.applies)


def render_rule(rule: Learning) -> str:
    """One bullet; a multi-line rule continues on indented lines so it stays one list item. Redacted here
    as well as when stamped: a store written before redaction existed must not hand a run a credential."""
    lines = redact_text(rule.text).splitlines() or [redact_text(rule.title)]
    head = f"- [{rule.category.value}] {lines[0]}"
    return "\n".join([head, *(f"  {line}" if line.strip() else "" for line in lines[1:])])


def render_section(rules: list[Learning]) -> str:
    if not rules:
        return ""
    bullets = "\n".join(render_rule(rule) for rule in rules)
    return f"{RELEVANT_HEADING}\n\n{RELEVANCE_CAVEAT}\n\n{bullets}\n"


def injected_texts(system: str, ids: list[str]) -> dict[str, str]:
    """Each injected rule's text as a run's system prompt carried it (render_section read back): the bullets
    follow the ids' order. Empty when the prompt's section does not hold one bullet per id."""
    _, found, section = system.rpartition(f"{RELEVANT_HEADING}\n\n{RELEVANCE_CAVEAT}\n\n")
    bullets: list[list[str]] = []
    for line in section.splitlines() if found else []:
        if line.startswith("- [") and "] " in line:
            bullets.append([line.split("] ", 1)[1]])
        elif bullets and (line.startswith("  ") or not line.strip()):
            bullets[-1].append(line[2:])
    if len(bullets) != len(ids):
        return {}
    return {rule_id: "\n".join(lines).strip() for rule_id, lines in zip(ids, bullets)}


def select_for_run(agent: AgentFile, doc: StoreDoc, current_ih: str) -> Injection:
    """Active, vetted, non-stale rules, top `max` by precedence; nothing when apply is off."""
    applied = selection_for(agent, doc, current_ih).applied
    return Injection(ids=[rule.id for rule in applied], text=render_section(applied))


def record_injection(location: store.AgentLocation, ids: list[str]) -> None:
    """Count one injection against exactly the rules sent, under the store lock."""
    _count(location, ids, "injected")


def credit_approval(location: store.AgentLocation, ids: list[str], *,
                    journal: Callable[[dict[str, int]], None] | None = None,
                    unless_since: dict[str, int] | None = None) -> None:
    """An approval with no comment is a vote for every rule that was in force that run (`ok:`).

    Two files cannot change in one step, so the credit is journaled: `journal` gets each rule's `ok:`
    before the credit, under the store lock and before the store is written (the session log keeps it).
    A resume killed in between and run again passes what it journaled as `unless_since`: a rule whose
    count has risen since means the credit was written, and nothing is credited twice. (The one case this
    cannot tell apart: another approval of the same rule landing between the crash and the re-run; the
    vote is then not counted, rather than counted twice.)"""
    if not ids:
        return
    wanted = set(ids)
    with store.transaction(location) as doc:
        wanted |= _carriers(location, wanted - {rule.id for rule in doc.learnings}, doc)
        rules = [rule for rule in doc.learnings if rule.id in wanted]
        if unless_since is not None and any(rule.ok > unless_since[rule.id] for rule in rules
                                            if rule.id in unless_since):
            return
        if journal is not None:
            journal({rule.id: rule.ok for rule in rules})
        for rule in rules:
            rule.ok += 1


def _carriers(location: store.AgentLocation, gone: set[str], doc: StoreDoc) -> set[str]:
    """The rules in the store now carrying those in `gone`, which left it merged or folded into another since
    the run (a gate can wait for hours; a tidy-up runs meanwhile): the approval's vote goes where their cases
    went, as counts recorded during a tidy-up do. Followed through the archive, newest copy of each id."""
    if not gone:
        return set()
    present = {rule.id for rule in doc.learnings}
    newest = {rule.id: rule for rule in store.load_archive(location).learnings}  # the last copy wins
    found = set()
    for rule_id in gone:
        seen = set()
        while rule_id not in present and rule_id in newest and rule_id not in seen:
            seen.add(rule_id)
            rule_id = store_merge.carried_by(newest[rule_id]) or ""
        if rule_id in present:
            found.add(rule_id)
    return found


def _count(location: store.AgentLocation, ids: list[str], counter: str) -> None:
    if not ids:
        return
    wanted = set(ids)
    if store.count(location, wanted, counter):  # the bytes the run read: only the counted lines change
        return
    with store.transaction(location) as doc:
        for rule in doc.learnings:
            if rule.id in wanted:
                setattr(rule, counter, getattr(rule, counter) + 1)
