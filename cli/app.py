"""The `agentuse` typer app: one place that registers every command group."""

from __future__ import annotations

import typer

from agentuse.cli import demo, deploy, doctor, learnings, provider, run, serve, sessions
from agentuse.cli import capture  # noqa: F401  (registers `learnings capture` and `learnings add`)
from agentuse.cli import tidy  # noqa: F401  (registers `learnings tidy` and `learnings undo`)

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
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


app.add_typer(learnings.app, name="learnings")
app.command("doctor")(doctor.doctor)
app.command("run")(run.run)
app.add_typer(sessions.app, name="sessions")
app.command("serve")(serve.serve)
app.add_typer(deploy.app, name="deploy")
app.add_typer(provider.app, name="provider")
app.command("demo")(demo.demo)


def main() -> None:
    app()
