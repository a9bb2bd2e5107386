"""Helpers every command shares. (The project's errors become one message in cli/app.py, once.)"""

from __future__ import annotations

import sys

import typer

from agentuse.core.terminal_text import printable


def say(text: str = "", *, err: bool = False) -> None:
    """Every line a command prints: rule text, paths and model output reach the terminal escaped."""
    typer.echo(printable(text), err=err)


def is_interactive() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def described(agent_file):
    """core.describe.describe, with an effectiveness index that could not be used (did not parse, older
    version) rebuilt from the session logs first, saying so in one line: figures are never silently zero."""
    from agentuse.core.describe import describe

    agent, location, report = describe(agent_file)
    if not report.index_unreadable:
        return agent, location, report
    from agentuse.core import effectiveness
    from agentuse.runtime.effectiveness import rebuild, rebuilt_line

    problem = effectiveness.load(effectiveness.index_path(location.project_dir, location.key), location.key).problem
    say(rebuilt_line(location.key, problem, rebuild(location.project_dir, location.key)), err=True)
    return describe(agent_file)
