"""The `agentuse` typer app: every command is registered here, and its module is imported only when it runs.

This is also the one place the project's errors become a message: an `AgentuseError` (a model fault, a
`HelperError`, included) raised by any command is one line on stderr and its exit code, never a
traceback. It is caught in the root group's `invoke`, which `main()`, `app(...)` and typer's CliRunner
all go through.
"""

from __future__ import annotations

import gc
import os

import typer

from agentuse.cli.lazy import MARKUP, LazyGroup
from agentuse.core import recovered
from agentuse.core.errors import AgentuseError
from agentuse.core.stop_signals import Stopped, stop_like_ctrl_c
from agentuse.core.terminal_text import printable


class _Root(LazyGroup):
    lazy = {
        "learnings": "agentuse.cli.learnings:app",
        "doctor": "agentuse.cli.doctor:doctor",
        "run": "agentuse.cli.run:run",
        "sessions": "agentuse.cli.sessions:app",
        "serve": "agentuse.cli.serve:serve",
        "deploy": "agentuse.cli.deploy:app",
        "provider": "agentuse.cli.provider:app",
        "demo": "agentuse.cli.demo:demo",
    }

    def invoke(self, ctx):
        # Whichever command first settles a tidy-up or undo a crash cut short says what it did (core/recovered.py).
        previous = recovered.listen(lambda line: typer.echo(f"note: {printable(line)}", err=True))
        try:
            return super().invoke(ctx)
        except AgentuseError as error:
            # The message names paths the user gave: its control characters are escaped like any printout.
            typer.echo(f"error: {printable(str(error))}", err=True)
            raise typer.Exit(error.exit_code) from None
        except Stopped as stopped:  # SIGTERM/SIGHUP, after everything Ctrl-C cleans up has been cleaned up
            typer.echo(f"error: {stopped}", err=True)
            raise typer.Exit(stopped.exit_code) from None
        finally:
            recovered.listen(previous)


app = typer.Typer(
    cls=_Root,
    rich_markup_mode=MARKUP,
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # inherited by every subcommand
    help="agentuse: agents that learn from review — vetted, capped, provenance-stamped rules.",
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"agentuse {version('agentuse')}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                      help="Print the installed version and exit."),
) -> None:
    """agentuse: agents that learn from review — vetted, capped, provenance-stamped rules."""


# The terminal shows the project's own lines, while Prefect's INFO lines still reach each run's log in the
# dashboard (the API handler): only its console handler is raised to warnings. Set in the `agentuse`
# process itself before Prefect configures logging (not in tests, nor in a served deployment's process).
PREFECT_CONSOLE_LEVEL = "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"

# A command's start-up makes tens of thousands of container objects that live as long as the process
# (typer's and pydantic's machinery, the models, tables and patterns of the modules it imports) and frees
# few of them: at CPython's default of a young-generation pass every 700 allocations the collector walks
# them again and again and finds next to nothing. Passes every 50,000 keep collecting cycles in a long run
# (serve, an agent loop) at a fraction of the cost (measured side by side: 5-10 ms of `learnings --json`).
GC_YOUNG_THRESHOLD = 50_000


def main() -> None:
    os.environ.setdefault(PREFECT_CONSOLE_LEVEL, "WARNING")
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    stop_like_ctrl_c()
    try:
        app()
    finally:
        # The command is done and the process ends: interpreter shutdown would walk every object once more
        # in a last full collection (about 25 ms of a read-only command) only to free memory the OS takes
        # back anyway. Frozen, they are skipped; atexit handlers still run, and every file is closed where
        # it is written.
        gc.freeze()
