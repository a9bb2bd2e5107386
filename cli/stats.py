"""`agentuse learnings stats <agent-file>`: each rule's figures from the runs it was in force for."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from agentuse.cli.common import say
from agentuse.cli.learnings import AgentArg
from agentuse.core.errors import AgentuseError


def stats(
    agent_file: AgentArg,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Recount every session log of this agent first.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="The totals and every rule with its figures.")] = False,
    sort: Annotated[str, typer.Option("--sort", help="runs, approved, commented, rejected, commented_about, recurred or title.")] = "runs",
) -> None:
    """Per rule: runs in force, how they ended, and whether a tool-errors rule's failure recurred."""
    from agentuse.cli.common import described
    from agentuse.core.status_text import STATS_SORTS, render_stats

    if sort not in STATS_SORTS:
        raise AgentuseError(f"--sort takes one of {', '.join(STATS_SORTS)}, not {sort!r}")
    if rebuild:
        from agentuse.core import store
        from agentuse.core.agent_file import load_agent
        from agentuse.runtime.effectiveness import rebuild as recount

        load_agent(agent_file)  # a typo says so instead of writing an index nothing reads
        location = store.locate(agent_file)
        recount(location.project_dir, location.key)
    _, _, report = described(agent_file)
    if as_json:
        from agentuse.core.effectiveness import approval_rates
        from agentuse.core.status_text import sorted_entries

        say(json.dumps({
            "agent": report.agent,
            "runs": report.runs_counted,
            "reviewed": report.totals.reviewed,
            "approval_rate": report.totals.rate,
            "never_injected": [e.record["id"] for e in report.never_injected],
            "not_landing": [e.record["id"] for e in report.not_landing],
            "index_unreadable": report.index_unreadable,
            "rules": [{"id": e.record["id"], "title": e.record["title"], "state": e.state,
                       **e.figures.model_dump(mode="json"),
                       **dict(zip(("approval_rate_with", "approval_rate_without"),
                                  approval_rates(e.figures, report.totals)))}
                      for e in sorted_entries(report, sort)],
        }, indent=2))
    else:
        say(render_stats(report, sort).rstrip("\n"))

