"""`agentuse learnings <agent-file>` and its subcommands.

`learnings` is both a command (list one agent's rules) and a group (`migrate`, `tidy`, `undo`, ...):
a first argument that is not a subcommand name is the agent file, so `agentuse learnings ./a.agentuse
--path` works as the spec writes it.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Annotated

import typer

from agentuse.cli.common import is_interactive, say
from agentuse.cli.lazy import MARKUP, LazyGroup
from agentuse.core.errors import AgentuseError


class _AgentOrCommand(LazyGroup):
    lazy = {
        "capture": "agentuse.cli.capture:capture",
        "add": "agentuse.cli.capture:add",
        "tidy": "agentuse.cli.tidy:tidy",
        "undo": "agentuse.cli.tidy:undo",
        "stats": "agentuse.cli.stats:stats",
    }
    _helping = False

    def parse_args(self, ctx, args):
        if args and args[0] not in self.list_commands(ctx) and args[0] not in ctx.help_option_names:
            args = ["show", *args]
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx) -> list[str]:
        return ["AGENT_FILE [--path|--edit|--json] | COMMAND [ARGS]..."]

    def format_help(self, ctx, formatter) -> None:
        # `learnings <agent-file>` is the hidden `show` command: its page lists show's argument and options too
        self._helping = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._helping = False

    def get_params(self, ctx):
        own = super().get_params(ctx)
        if not self._helping:
            return own
        shown = [param for param in self.get_command(ctx, "show").get_params(ctx) if param.name != "help"]
        return [*shown, *own]


app = typer.Typer(
    cls=_AgentOrCommand,
    rich_markup_mode=MARKUP,
    no_args_is_help=True,
    help="List an agent's learnings by status, or manage them: agentuse learnings <agent-file> [--path|--edit|--json].",
)

AgentArg = Annotated[Path, typer.Argument(help="The agent file (.agentuse).", show_default=False)]


@app.command("show", hidden=True)
def show(
    agent_file: AgentArg,
    path: Annotated[bool, typer.Option("--path", help="Print where this agent's learnings file lives.")] = False,
    edit: Annotated[bool, typer.Option("--edit", help="Open the learnings file in $EDITOR.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Counts and every entry with its computed state.")] = False,
) -> None:
    """Every rule of an agent grouped by status."""
    from agentuse.core.location import locate  # not store: --path needs no pydantic model

    if path + edit + as_json > 1:
        raise AgentuseError("--path, --edit and --json each do something different: pass one of them")
    if (path or edit) and not agent_file.is_file():
        # Without the agent file these would print, or with --edit create, a store nothing will ever read:
        # a typo must say so. (Only existence: --path must still work on an agent that does not parse.)
        _require_agent(agent_file)
    if path:
        say(str(locate(agent_file).store_path))
        return
    if edit:
        _edit(agent_file)
        return
    from agentuse.cli.common import described
    from agentuse.core.status_text import render_learnings

    _, _, report = described(agent_file)
    if as_json:
        say(json.dumps(report.model_dump(mode="json"), indent=2))
    else:
        say(render_learnings(report).rstrip("\n"))


def _edit(agent_file: Path) -> None:
    """The person edits a copy; it is merged onto whatever arrived meanwhile (core/store_edit.py)."""
    from agentuse.core import store, store_edit

    location = store.locate(agent_file)
    chosen = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not chosen and not is_interactive():
        # vi needs a person at a terminal: from a CI job or cron it painted escape sequences into the log,
        # or waited for keys that never come. An editor the job names (a script that edits the file) runs.
        raise AgentuseError(f"--edit opens an editor, and there is no terminal here (stdin is not one) and neither "
                            f"$VISUAL nor $EDITOR is set: run it in a terminal, or set EDITOR to a command that "
                            f"edits the file it is given; nothing was written to {location.store_path}")
    copy, baseline = store_edit.begin(location)
    earlier = store_edit.earlier_copies(copy, baseline)
    for path in earlier.removed:
        say(f"note: an earlier edit's copy held nothing {location.store_path} does not (it was saved, or never "
            f"changed): removed {path}", err=True)
    for path in earlier.unsaved:
        say(f"note: an earlier edit was never saved: {path} (copy what you need from it, then delete it)", err=True)
    editor = chosen or "vi"
    try:
        result = subprocess.run([*shlex.split(editor), str(copy)], check=False)
    except (OSError, ValueError) as problem:  # not on PATH, not executable, or unbalanced quotes
        copy.unlink(missing_ok=True)  # nothing was typed into it
        reason = "was not found" if isinstance(problem, FileNotFoundError) else f"could not be started ({problem})"
        raise AgentuseError(f"the editor {editor!r} {reason}: set $VISUAL or $EDITOR to an editor on your PATH; "
                            f"nothing was written to {location.store_path}") from None
    if result.returncode != 0:
        raise AgentuseError(f"{editor} exited with status {result.returncode}: nothing was written to "
                            f"{location.store_path}. Whatever it saved is at {copy}")
    outcome = store_edit.finish(location, copy, baseline)
    if outcome.merged:
        say(f"Saved your edit to {location.store_path}, merged with what changed while the editor was open"
            + (f" ({outcome.kept_added} rule(s) added meanwhile kept)." if outcome.kept_added else "."))
    for line in store_edit.archived_lines(outcome, location, agent_arg=str(agent_file)):
        say(line)
    # Notes on what the edit means, beside the other notes of --edit (on stderr).
    for line in (store_edit.redacted_lines(outcome) + store_edit.reworded_lines(outcome, agent_arg=str(agent_file))
                 + store_edit.joined_lines(outcome)):
        say(line, err=True)


IdArg = Annotated[str, typer.Argument(help="The rule's id (8 characters, or a prefix only one rule has).",
                                      show_default=False)]


@app.command("discard")
def discard(agent_file: AgentArg, rule_id: IdArg) -> None:
    """Move one rule (active, quarantined or a graduated copy) to the archive: never deleted."""
    from agentuse.core import discard as discarding
    from agentuse.core import store

    _require_agent(agent_file)
    say(discarding.discarded_line(discarding.discard(store.locate(agent_file), rule_id)))


@app.command("restore")
def restore(agent_file: AgentArg, rule_id: IdArg) -> None:
    """Put an archived rule back, re-vetted against the current instructions: active, or quarantined with the reason."""
    from agentuse.core.helper.factory import once
    from agentuse.flows.restore import run_restore  # the flow (and Prefect) load only for a restore

    _require_agent(agent_file)
    restored = run_restore(agent_file, rule_id, agent_arg=str(agent_file),
                           announce=once(lambda message: say(message, err=True)))
    for line in restored.lines:
        say(line)


def _require_agent(agent_file: Path) -> None:
    """A typo must say so rather than act on a store nothing reads: the same one-line error as elsewhere."""
    from agentuse.core.agent_file import load_agent

    load_agent(agent_file)


@app.command("migrate")
def migrate(
    agent_file: Annotated[Path | None, typer.Argument(help="One agent file; or use --all.", show_default=False)] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every .agentuse file under the project root.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report what would be copied; write nothing.")] = False,
    keep_source: Annotated[bool, typer.Option("--keep-source", help="Answer no to deleting the originals.")] = False,
    delete_source: Annotated[bool, typer.Option("--delete-source", help="Answer yes to deleting the originals.")] = False,
) -> None:
    """Move learnings from beside the agent file (before v0.17.0) into the state directory."""
    from agentuse.core import migrate as core_migrate

    if (agent_file is None) == (not all_):
        raise AgentuseError("name one agent file or pass --all, not both and not neither")
    if keep_source and delete_source:
        raise AgentuseError("--keep-source and --delete-source contradict each other: pass one")
    plan = (
        core_migrate.plan_all(Path.cwd()) if all_ else core_migrate.plan_one(agent_file)  # type: ignore[arg-type]
    )
    report = core_migrate.run(plan, dry_run=dry_run)
    for line in report.lines():
        say(line)
    originals = report.copied_sources()
    if originals and not dry_run:
        _maybe_delete(originals, keep=keep_source, delete=delete_source)
    if report.failed:
        raise typer.Exit(1)


def _maybe_delete(originals: list[Path], *, keep: bool, delete: bool) -> None:
    say("The originals are now copied:")
    for path in originals:
        say(f"  {path}")
    if keep:
        say("Kept the originals (--keep-source).")
        return
    if not delete:
        if not is_interactive():
            say("Kept the originals: nothing is deleted non-interactively without --delete-source.")
            return
        answer = typer.prompt("Delete them? Type yes to delete", default="no", show_default=True)
        if answer.strip().lower() not in ("y", "yes"):
            say("Kept the originals.")
            return
    undeletable = []
    for path in originals:
        try:
            path.unlink(missing_ok=True)
        except OSError as problem:  # its copy is in place: only the old file stays behind
            undeletable.append((path, problem))
    say(f"Deleted {len(originals) - len(undeletable)} original(s).")
    if undeletable:
        path, problem = undeletable[0]
        others = f" (and {len(undeletable) - 1} more)" if len(undeletable) > 1 else ""
        raise AgentuseError(f"could not delete {path}{others}: {(problem.strerror or str(problem)).lower()}; its "
                            "learnings are copied, so delete it by hand or make its folder writable and run the "
                            "migrate again")
