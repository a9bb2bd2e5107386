"""`python -m agentuse.deployments [--root DIR] [--cron "0 3 * * *"] [--timezone UTC] [--concurrency 4]`:
serve the scheduled tidy and post-run capture deployments until interrupted (SIGINT, Ctrl-C).

The same as `agentuse deploy serve`, without the typer app: what a process supervisor or the end-to-end
test runs. PREFECT_API_URL must name a running `prefect server start`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agentuse.core.errors import AgentuseError
from agentuse.core.terminal_text import printable
from agentuse.flows.prefect_api import settings_problem


def _echo(text: str = "", *, err: bool = False) -> None:
    print(printable(text), file=sys.stderr if err else sys.stdout, flush=True)


def main(argv: list[str] | None = None) -> int:
    if (problem := settings_problem()) is not None:  # the deployments import prefect
        _echo(f"error: {problem}: fix or unset it", err=True)
        return 1
    from agentuse.deployments import definitions
    from agentuse.deployments.serving import serve_project

    parser = argparse.ArgumentParser(prog="python -m agentuse.deployments", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the project whose agents are tidied")
    parser.add_argument("--cron", default=definitions.DEFAULT_CRON, help="when to tidy (five cron fields)")
    parser.add_argument("--timezone", default=definitions.DEFAULT_TIMEZONE, help="time zone of the cron schedule")
    parser.add_argument("--concurrency", type=int, default=definitions.DEFAULT_CONCURRENCY,
                        help="agents tidied at once")
    args = parser.parse_args(argv)
    try:
        serve_project(args.root, cron=args.cron, timezone=args.timezone, concurrency=args.concurrency, echo=_echo)
    except AgentuseError as problem:
        _echo(f"error: {problem}", err=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
