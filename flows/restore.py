"""`agentuse learnings restore` as one flow: read the archived copy -> vet it against the current contract
and the rules in force (one model call; the capture vet task, so the same retry policy) -> put it back
through the cap and out of the archive (core/restore.py decides what a verdict, or a failed vet, means)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentuse.core import restore, store
from agentuse.core.agent_file import load_agent
from agentuse.core.capture import rules_in_force
from agentuse.core.contract import agent_hash, contract_text
from agentuse.flows.names import agent_run_name
from agentuse.flows.runner import call, pipeline, run
from agentuse.tasks import capture as capture_steps
from agentuse.tasks import helpers


@pipeline("restore", agent_run_name("restore"), agent="agent_path")
def restore_flow(agent_path: str, rule_id: str, agent_arg: str | None = None) -> restore.Restored:
    """Put an archived rule back, re-vetted against the current instructions. The vet uses the agent's
    helper (the offline evaluator without a key), built only when the rule needs a vet.

    Args:
        agent_path: The agent file (.agentuse), as an absolute path; a relative one is read from the folder
            the flow runs in.
        rule_id: The archived rule's id (8 characters), or a prefix only one archived rule has.
        agent_arg: The agent file as the user typed it, for the lines the restore prints; empty for
            `agent_path`.
    """
    agent = load_agent(Path(agent_path))
    location = store.locate(Path(agent_path))
    copy = restore.archived(location, rule_id)
    contract, ih = contract_text(agent), agent_hash(agent)
    rules = rules_in_force(store.load(location).learnings, ih)
    request = restore.vet_request(copy, contract=contract, rules=rules)
    answer = None
    if request is not None:
        answer = call(capture_steps.vet, request, f"restore/{copy.id}", on_error="collect")
    offline = request is not None and helpers.vets_offline()  # the vet built the helper: nothing to build
    record, verdict = restore.decide(copy, request, answer, rules=rules, ih=ih, offline=offline)
    return restore.put_back(location, copy, record, verdict=verdict, cap=agent.cap,
                            agent_arg=agent_arg or agent_path)


def run_restore(agent_path: Path, rule_id: str, *, agent_arg: str, helper: Any = None,
                force_prefect: bool = False, announce: Any = None) -> restore.Restored:
    """The entry point surfaces use: a real flow run when Prefect is configured, inline otherwise."""
    return run(restore_flow, force_prefect=force_prefect, helper=helper, announce=announce,
               agent_path=str(agent_path), rule_id=rule_id, agent_arg=agent_arg)
