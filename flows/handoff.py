"""Handing a finished run's capture to Prefect: the `agentuse.run.completed` event a deployment triggers
on, and the check that something will act on it (spec: How capture works; a capture is never lost).

With `AGENTUSE_CAPTURE_VIA=prefect` and a Prefect API configured, the run emits the event instead of
capturing inline, but only when the API has the post-run capture deployment and a process is serving it;
otherwise the run captures here and says why. Prefect is imported inside the functions, so the hooks that
import this module (flows/post_run.py) cost nothing when the capture runs inline.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentuse.flows import prefect_api

if TYPE_CHECKING:
    from agentuse.runtime.runner import RunResult

CAPTURE_VIA = "AGENTUSE_CAPTURE_VIA"  # "inline" (default) or "prefect"
# The one definition: deployments/definitions.py triggers on it, and the post-run hook emits it.
RUN_COMPLETED = "agentuse.run.completed"
# The deployment that captures on that event (deployments/definitions.py serves it under this name).
CAPTURE_DEPLOYMENT = "post-run-capture"


def _asked() -> bool:
    return os.environ.get(CAPTURE_VIA, "").strip().lower() == "prefect"


def via_prefect() -> bool:
    return _asked() and bool(prefect_api.configured_url())


def no_api() -> str | None:
    """Why a capture asked to go through Prefect cannot, when no API is in the environment. A Prefect
    profile's PREFECT_API_URL (`prefect config set`) is not read: a run decides without importing prefect."""
    if _asked() and not prefect_api.configured_url():
        return (f"{CAPTURE_VIA}=prefect, but {prefect_api.API_URL} is not set in the environment (a Prefect "
                f"profile's is not read): export {prefect_api.API_URL}=http://127.0.0.1:4200/api")
    return None


def unreachable_api() -> str | None:
    """With an API configured, a capture that runs here is a flow run on it: why it cannot be, or None."""
    return prefect_api.unanswered() if prefect_api.configured_url() else None


def unserved_capture() -> str | None:
    """None when the API has the post-run capture deployment and a process is serving it (its status is
    READY: a runner polled for it recently); otherwise why an emitted event would capture nothing."""
    from prefect.exceptions import ObjectNotFound

    url = prefect_api.configured_url()
    try:
        with prefect_api.client(url) as client:
            deployment = client.read_deployment_by_name(f"capture/{CAPTURE_DEPLOYMENT}")
    except ObjectNotFound:
        return f"no {CAPTURE_DEPLOYMENT} deployment is registered at {url} (start one: agentuse deploy serve)"
    except Exception as problem:  # noqa: BLE001 - an API that does not answer must not lose the capture
        return prefect_api.did_not_answer(url, problem)
    status = getattr(getattr(deployment, "status", None), "value", "READY")
    if str(status).upper() != "READY":
        return f"nothing is serving the {CAPTURE_DEPLOYMENT} deployment at {url} (start: agentuse deploy serve)"
    return None


def emit_completed(agent_file: Path, result: "RunResult") -> bool:
    """The post-run trigger: resource is the session, related is the agent. False when Prefect did not
    take the event (events disabled): then capture runs inline, so a run is never left uncaptured."""
    from prefect.events import emit_event  # lazily: only this mode pays for `import prefect`

    from agentuse.core import store

    location = store.locate(agent_file)
    event = emit_event(
        event=RUN_COMPLETED,
        resource={"prefect.resource.id": f"agentuse.session.{result.session_id}",
                  "prefect.resource.name": result.session_id, "agentuse.session-file": result.session_file},
        related=[{"prefect.resource.id": f"agentuse.agent.{location.key}", "prefect.resource.role": "agent",
                  "prefect.resource.name": location.key, "agentuse.agent-file": str(location.agent_path)}],
        payload={"session": result.session_id, "session_file": result.session_file,
                 "agent_file": str(location.agent_path), "status": result.status},
    )
    from prefect.events import Event

    if isinstance(event, Event):  # queued to the events worker emit_event started
        _sent()
    return event is not None


SEND_SECONDS = 10.0  # a bound only: on a server that answered the check a moment ago, it takes milliseconds


def _sent() -> None:
    """Wait (bounded) until Prefect's events worker has sent what it was given. Left queued, the event was
    flushed at interpreter exit, and the worker printed `Still processing items: 1 items remaining...`
    under every run that handed its capture over."""
    import threading

    from prefect.events.worker import EventsWorker

    waiter = threading.Thread(target=EventsWorker.instance().wait_until_empty, daemon=True,
                              name="agentuse-event-sent")
    waiter.start()
    waiter.join(SEND_SECONDS)
