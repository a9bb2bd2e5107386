"""Serving both deployments from one process: what `agentuse deploy serve` and `python -m agentuse.deployments`
run. The schedule and the trigger are validated before anything touches the server, the server is
checked before serving, and the model-tag limit is reported either way (preflight.py says why)."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path

from agentuse.core.store import project_root
from agentuse.deployments import definitions, preflight
from agentuse.deployments.preflight import ServeError

Echo = Callable[..., None]


def build(root: Path, *, cron: str, timezone: str, concurrency: int):
    if not root.is_dir():
        raise ServeError(f"{root} is not a folder: pass the project to tidy with -C <project root>")
    if concurrency < 1:  # the flow's parameter schema refuses it too, but only once a run has been scheduled
        raise ServeError(f"--concurrency must be 1 or more (agents tidied at once), not {concurrency}")
    root = project_root(root)  # the git root, as `migrate --all` walks it; the folder itself outside git
    try:
        return definitions.deployments(root, cron=cron, timezone=timezone, concurrency=concurrency)
    except ValueError as problem:  # pydantic's validation of the cron string or the time zone
        _check_timezone(timezone)
        raise ServeError(f"invalid schedule {cron!r} ({timezone}): {_first_line(problem)}. "
                         'Give five cron fields, e.g. --cron "0 3 * * *" for 03:00 daily') from None


def serve_project(root: Path, *, cron: str = definitions.DEFAULT_CRON, timezone: str = definitions.DEFAULT_TIMEZONE,
                  concurrency: int = definitions.DEFAULT_CONCURRENCY, echo: Echo) -> None:
    built = build(root, cron=cron, timezone=timezone, concurrency=concurrency)
    root = Path(built[0].parameters["root"])
    url = preflight.api_url()
    check = preflight.model_limit()
    echo(check.message, err=not check.throttled)
    echo(f"Serving against {url} (Ctrl-C stops):\n"
         f"  {definitions.TIDY_DEPLOYMENT}: tidies every agent under {root.resolve()} at {cron!r} ({timezone})\n"
         f"  {definitions.CAPTURE_DEPLOYMENT}: captures each run that emits {definitions.RUN_COMPLETED} "
         "(runs with AGENTUSE_CAPTURE_VIA=prefect and the same PREFECT_API_URL and AGENTUSE_DATA_DIR)")
    _stop_on_sigint()
    definitions.serve(built)


def _stop_on_sigint() -> None:
    """A shell starts background jobs with SIGINT ignored, and Python then never raises KeyboardInterrupt:
    `agentuse deploy serve &` could only be killed, leaving its deployments unpaused. SIGINT is the clean
    stop (Prefect pauses the deployments), so make sure it is heard."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _check_timezone(timezone: str) -> None:
    """Prefect's refusal of a time zone read as a cron error ending in a pydantic URL: name it instead
    (asked once Prefect has refused the schedule: the cron may be what it refused)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ServeError(f"unknown time zone {timezone!r}: give --timezone an IANA name such as UTC or "
                         "Europe/Paris") from None


def _first_line(problem: Exception) -> str:
    lines = [line.strip() for line in str(problem).splitlines() if line.strip()]
    return lines[-1] if lines else type(problem).__name__
