"""What an interactive `agentuse` command shows of Prefect (a module of its own: every command calls it,
so it imports nothing)."""

from __future__ import annotations

import os

PREFECT_CONSOLE_LEVEL = "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"  # Prefect's logging.yml override


def quiet_prefect_console() -> None:
    """The terminal shows the project's own lines, while Prefect's INFO lines still reach each run's log in
    the dashboard (the API handler): only its console handler is raised to warnings. Set before Prefect
    configures logging, and only in the `agentuse` process itself (not in tests, nor a served deployment)."""
    os.environ.setdefault(PREFECT_CONSOLE_LEVEL, "WARNING")
