"""Helpers every command shares: turning domain errors into one message and a non-zero exit."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TypeVar

import typer

from agentuse.core.errors import AgentuseError
from agentuse.core.terminal_text import printable

F = TypeVar("F", bound=Callable)


def friendly_errors(command: F) -> F:
    """Catch the project's errors in one place: one actionable line on stderr, exit 1, no traceback.
    The message names paths the user gave, so its control characters are escaped like any printout."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except AgentuseError as error:
            typer.echo(f"error: {printable(str(error))}", err=True)
            raise typer.Exit(error.exit_code) from None

    return wrapper  # type: ignore[return-value]


def say(text: str = "", *, err: bool = False) -> None:
    """Every line a command prints: rule text, paths and model output reach the terminal escaped."""
    typer.echo(printable(text), err=err)


def is_interactive() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()
