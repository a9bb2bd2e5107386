"""One logger call for code that runs both ways (DESIGN.md: one composition, two ways to run it).

Under a flow or task run, Prefect's run logger sends the line to the run's log in the dashboard; outside
one, `get_run_logger()` raises, so plain `logging` takes over and the CLI stays quiet unless configured.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

PLAIN_LOGGER = "agentuse"


def logger() -> logging.Logger | logging.LoggerAdapter:
    context = sys.modules.get("prefect.context")  # not imported: certainly not a Prefect run (runner.py)
    if context is not None and (context.FlowRunContext.get() is not None or context.TaskRunContext.get() is not None):
        from prefect.logging import get_run_logger

        return get_run_logger()
    import logging  # asked only when there is a line to log

    return logging.getLogger(PLAIN_LOGGER)
