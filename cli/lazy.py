"""Command groups whose commands are named up front and imported only when used.

A group lists its commands as `name -> "module:attribute"` (a typer app for a group, a function for one
command). The module is imported when that command runs, or when a help page lists it, so each command
imports only what it uses: `agentuse learnings <file> --path` never loads the pipelines `learnings add`
needs. Registration is this table, not an import's side effect.
"""

from __future__ import annotations

import importlib

import typer
import typer.main
from typer.core import TyperGroup


# Every agentuse Typer: plain click help and usage errors. Rendering them with rich costs more than the
# rest of `agentuse --help` together (rich, markdown-it and pygments: ~70 ms).
MARKUP = None


class LazyGroup(TyperGroup):
    """A typer group whose `lazy` table is resolved on first use (set it on a subclass)."""

    lazy: dict[str, str] = {}

    def list_commands(self, ctx) -> list[str]:
        return [*super().list_commands(ctx), *(name for name in self.lazy if name not in self.commands)]

    def get_command(self, ctx, cmd_name: str):
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self.lazy:
            command = self.commands[cmd_name] = _load(cmd_name, self.lazy[cmd_name])
        return command


def _load(name: str, target: str):
    module, attribute = target.split(":")
    found = getattr(importlib.import_module(module), attribute)
    if isinstance(found, typer.Typer):
        command = typer.main.get_group(found)  # a group even with one subcommand (`deploy serve`)
    else:
        single = typer.Typer(rich_markup_mode=MARKUP, add_completion=False)
        single.command(name)(found)
        command = typer.main.get_command(single)
    command.name = name
    return command
