"""The `agentuse` typer app."""

from __future__ import annotations

import typer

from agentuse.cli import run, sessions

app = typer.Typer(no_args_is_help=True, add_completion=False, help="agentuse: agents that learn from review.")
app.command("run")(run.run)
app.add_typer(sessions.app, name="sessions")


def main() -> None:
    app()
