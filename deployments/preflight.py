"""Checks before serving: a real Prefect server is configured and reachable, and the model tag is limited.

Schedules and event triggers are evaluated by a running `prefect server start` only; the temporary
server Prefect starts when no API is configured fires neither, so serving against it would look fine
and never run anything. And a concurrency limit that does not exist throttles nothing, silently: the
`agentuse-model` tag on every model call only matters once an operator creates a limit for it, so
serving without one says so instead of letting "it has a tag" pass for "it is throttled".
"""

from __future__ import annotations

from dataclasses import dataclass

from agentuse.core.errors import AgentuseError
from agentuse.flows import prefect_api
from agentuse.tasks.retry import MODEL_TAG

START_SERVER = ("start one with `prefect server start` and point agentuse at it: "
                "export PREFECT_API_URL=http://127.0.0.1:4200/api")


class ServeError(AgentuseError):
    """No usable Prefect server to serve the deployments against."""


@dataclass(frozen=True)
class LimitCheck:
    limit: int | None  # None: no limit exists on the tag
    message: str

    @property
    def throttled(self) -> bool:
        return bool(self.limit)


def api_url() -> str:
    """The configured API (environment or Prefect profile); raises when there is none or it does not answer."""
    from prefect.settings import get_current_settings

    url = get_current_settings().api.url
    if not url:
        raise ServeError(f"No Prefect server is configured: {START_SERVER}")
    problem = prefect_api.unanswered(url)
    if problem is not None:
        raise ServeError(f"{problem[0].upper()}{problem[1:]}: {START_SERVER}")
    return url


def model_limit() -> LimitCheck:
    """Is there a tag concurrency limit on `agentuse-model`, and what does it allow?"""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            limit = client.read_concurrency_limit_by_tag(MODEL_TAG)
        except ObjectNotFound:
            return LimitCheck(None, f"warning: no concurrency limit on the {MODEL_TAG} tag, so model calls are NOT "
                                    f"throttled (a tag without a limit limits nothing). Set one: "
                                    f"prefect concurrency-limit create {MODEL_TAG} 4")
    if limit.concurrency_limit <= 0:
        return LimitCheck(0, f"warning: the {MODEL_TAG} concurrency limit is 0, so every model call waits "
                             f"forever. Raise it: prefect concurrency-limit delete {MODEL_TAG} && "
                             f"prefect concurrency-limit create {MODEL_TAG} 4")
    return LimitCheck(limit.concurrency_limit,
                      f"model calls: at most {limit.concurrency_limit} at a time (tag {MODEL_TAG})")
