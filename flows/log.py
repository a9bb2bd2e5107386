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
    flow, task = (None, None) if context is None else (context.FlowRunContext.get(), context.TaskRunContext.get())
    if _subflow_of_a_task(flow, task):
        # A flow called inside a task (project tidy's `tidy-agent` runs `tidy/<agent>`): the innermost run is
        # the flow, but Prefect's run logger prefers any task context and filed its lines under the parent's.
        from prefect.logging.loggers import flow_run_logger

        return flow_run_logger(flow_run=flow.flow_run, flow=flow.flow)
    if flow is not None or task is not None:
        from prefect.logging import get_run_logger

        return get_run_logger()
    import logging  # asked only when there is a line to log

    return logging.getLogger(PLAIN_LOGGER)


def _subflow_of_a_task(flow, task) -> bool:
    return (flow is not None and task is not None and flow.flow_run is not None
            and task.task_run.flow_run_id != flow.flow_run.id)
