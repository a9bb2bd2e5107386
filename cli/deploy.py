"""`agentuse deploy serve [-C <project>] [--cron "0 3 * * *"] [--timezone UTC] [--concurrency 4]`: serve the
scheduled tidy-up and post-run capture deployments on a running Prefect server (README: Running on
Prefect). Prefect is imported inside the command only, so the rest of the CLI stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentuse.cli.common import say
from agentuse.cli.lazy import MARKUP

app = typer.Typer(no_args_is_help=True, rich_markup_mode=MARKUP, help="Prefect deployments: scheduled tidy-ups and post-run capture.")

DEFAULT_CRON = "0 3 * * *"  # deployments/definitions.py holds the same default; importing it would import prefect


@app.command("serve")
def serve(
    project: Annotated[Path, typer.Option("-C", "--project", help="The project whose agents the schedule tidies "
                                                                  "(its git root is used).")] = Path("."),
    cron: Annotated[str, typer.Option("--cron", help="When to tidy every agent: five cron fields.")] = DEFAULT_CRON,
    timezone: Annotated[str, typer.Option("--timezone", help="Time zone of --cron.")] = "UTC",
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Agents tidied at once.")] = 4,
) -> None:
    """Serve both deployments until Ctrl-C: the tidy schedule, and capture on agentuse.run.completed."""
    from agentuse.flows.prefect_api import PrefectUnavailable, settings_problem

    if (problem := settings_problem()) is not None:  # before the import of the deployments imports prefect
        raise PrefectUnavailable(f"{problem}: fix or unset it")
    from agentuse.deployments.serving import serve_project

    serve_project(project, cron=cron, timezone=timezone, concurrency=concurrency, echo=say)
