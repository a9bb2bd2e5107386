"""`agentuse learnings capture <agent-file> --session <id|path>` and `agentuse learnings add <agent-file> "..."`
(spec: How capture works, Deliberate Learning from Review Comments). The post-run hooks that `run`,
`sessions resume` and the serve UI share live in flows/post_run.py.
"""

from __future__ import annotations

from typing import Annotated

import typer

from agentuse.cli.common import say
from agentuse.cli.learnings import AgentArg
from agentuse.core.errors import AgentuseError

PrefectOpt = Annotated[bool, typer.Option("--prefect", help="Run as a real Prefect flow run (a temporary server "
                                                          "when no PREFECT_API_URL is configured).")]


def capture(
    agent_file: AgentArg,
    session: Annotated[str, typer.Option("--session", help="The run to learn from: a session id, a unique "
                                                          "prefix of one, or a session log path.")],
    prefect: PrefectOpt = False,
) -> None:
    """Capture learnings from a recorded run through the agent's automatic channels."""
    from agentuse.core import store
    from agentuse.core.agent_file import load_agent
    from agentuse.runtime.trace import agent_session

    # A wrong id, or another agent's session, fails here, before any model call.
    path = agent_session(session, store.locate(agent_file).agent_path, store.data_dir())
    if not load_agent(agent_file).channels:
        say(f"No automatic capture channel is configured in {agent_file}: nothing to capture. Name one under "
            "learning.capture: addons: [tool-errors], custom: \"...\" or agent: ./file.agentuse")
        return
    from agentuse.flows.capture import run_capture

    report = run_capture(agent_file, str(path), force_prefect=prefect)  # the flow logs its lines
    for line in report.lines:
        say(line)
    if report.failed:  # its lines say which and why; a scheduled capture must not read as passed
        raise typer.Exit(1)


def add(
    agent_file: AgentArg,
    text: Annotated[str, typer.Argument(help="The rule, in your words.", show_default=False)],
    prefect: PrefectOpt = False,
) -> None:
    """Save a rule by hand: grounded, reconciled with the rules in force, vetted, stored as src:manual."""
    from agentuse.core.terminal_text import not_utf8

    if problem := not_utf8(text):  # the store is UTF-8: writing it raised UnicodeEncodeError
        raise AgentuseError(f"the rule {problem}")
    from agentuse.flows.remember import run_remember

    for line in run_remember(agent_file, text, agent_arg=str(agent_file), force_prefect=prefect).lines:
        say(line)
