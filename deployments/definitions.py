"""The two deployments the user's design card names: a scheduled project tidy-up and post-run capture.

- `scheduled-tidy` runs the project-tidy flow on a cron schedule the user sets (default daily 03:00),
  with the project root as its parameter.
- `post-run-capture` runs the capture flow whenever the runtime emits `agentuse.run.completed` (it does
  so instead of capturing inline when `AGENTUSE_CAPTURE_VIA=prefect` and a Prefect API is configured,
  so a run is captured once). The event names the session as its resource and the agent as a related
  resource in the role `agent`; the trigger templates the flow's parameters from those labels.

Both are built with `flow.to_deployment(...)`, which needs no server (the unit tests inspect them), and
served by `prefect.serve(...)` (`python -m agentuse.deployments`, `agentuse deploy serve`). prefect.yaml
beside this file describes the same two for `prefect deploy` users; keep them in step.
"""

from __future__ import annotations

from pathlib import Path
from prefect.deployments.runner import EntrypointType, RunnerDeployment
from prefect.events import DeploymentEventTrigger
from prefect.schedules import Cron

from agentuse.flows.capture import capture_flow
# The event the trigger waits for is the one the run emits, and the deployment is the one a run checks for.
from agentuse.flows.handoff import CAPTURE_DEPLOYMENT, RUN_COMPLETED
from agentuse.flows.project_tidy import DEFAULT_CONCURRENCY, project_tidy_flow
from agentuse.flows.runner import RUN_TAGS

SESSION_RESOURCE = "agentuse.session.*"  # the event's resource: `agentuse.session.<session id>`
AGENT_ROLE = "agent"  # the related resource naming the agent; its `agentuse.agent-file` label is the path
DEFAULT_CRON = "0 3 * * *"  # daily, 03:00
DEFAULT_TIMEZONE = "UTC"
TIDY_DEPLOYMENT = "scheduled-tidy"
TAGS = list(RUN_TAGS)

# Jinja rendered by the server against the triggering event. The session is passed by id (the resource
# name), not by log path: the served process must share the runtime's AGENTUSE_DATA_DIR to find the
# agent's store anyway, and an id it cannot resolve fails loudly instead of writing to another store.
CAPTURE_PARAMETERS = {
    "agent": f"{{{{ event.resource_in_role['{AGENT_ROLE}']['agentuse.agent-file'] }}}}",
    "session": "{{ event.resource.name }}",
}


def capture_trigger() -> DeploymentEventTrigger:
    return DeploymentEventTrigger(
        name="agentuse: capture after each run",
        description="Capture learnings from a run as soon as the runtime reports it completed.",
        expect={RUN_COMPLETED},
        match={"prefect.resource.id": SESSION_RESOURCE},
        match_related={"prefect.resource.role": AGENT_ROLE},
        parameters=dict(CAPTURE_PARAMETERS),
    )


def tidy_deployment(root: Path, *, cron: str = DEFAULT_CRON, timezone: str = DEFAULT_TIMEZONE,
                    concurrency: int = DEFAULT_CONCURRENCY) -> RunnerDeployment:
    return project_tidy_flow.prefect_flow().to_deployment(
        name=TIDY_DEPLOYMENT,
        schedules=[Cron(cron, timezone=timezone)],
        parameters={"root": str(Path(root).resolve()), "concurrency": concurrency},
        description=f"Tidy every agent under {Path(root).resolve()} ({cron}, {timezone}).",
        tags=[*TAGS, "tidy"],
        entrypoint_type=EntrypointType.MODULE_PATH,  # the installed package, whatever the working directory
    )


def capture_deployment() -> RunnerDeployment:
    return capture_flow.prefect_flow().to_deployment(
        name=CAPTURE_DEPLOYMENT,
        triggers=[capture_trigger()],
        description=f"Capture learnings after each agent run ({RUN_COMPLETED}).",
        tags=[*TAGS, "capture"],
        entrypoint_type=EntrypointType.MODULE_PATH,
    )


def deployments(root: Path, *, cron: str = DEFAULT_CRON, timezone: str = DEFAULT_TIMEZONE,
                concurrency: int = DEFAULT_CONCURRENCY) -> list[RunnerDeployment]:
    return [tidy_deployment(root, cron=cron, timezone=timezone, concurrency=concurrency), capture_deployment()]


def serve(built: list[RunnerDeployment], *, limit: int | None = None) -> None:
    """Register the deployments and run their flow runs in this process until interrupted (SIGINT)."""
    from prefect import serve as prefect_serve

    prefect_serve(*built, limit=limit)
