"""The `agentuse` typer app."""

from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True, add_completion=False, help="agentuse: agents that learn from review.")


def main() -> None:
    app()
