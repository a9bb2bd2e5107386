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
