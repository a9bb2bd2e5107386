"""What flow runs, task runs and artifacts are called, so the dashboard reads like a list of jobs:
`tidy/blog-writer`, `capture/blog-writer/01K...`, artifact keys `tidy-blog-writer`.

An agent is named by its project-relative path without `.agentuse` (`blog-writer`, `agents/blog/write`):
unique within a project, and what `agentuse learnings` shows. Outside a project (or when the file cannot
be located) the file's stem is the fallback; a name must never stop a run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from agentuse.core.discovery import AGENT_SUFFIX


def agent_name(agent_path: str | Path) -> str:
    path = Path(agent_path)
    try:
        from agentuse.core import store

        key = store.locate(path).key
    except (OSError, ValueError):  # a missing or unreadable path still gets a readable name
        key = path.name
    return key.removesuffix(AGENT_SUFFIX)


def artifact_key(kind: str, name: str) -> str:
    """Prefect artifact keys allow lowercase letters, digits and dashes only."""
    slug = re.sub(r"[^a-z0-9]+", "-", f"{kind}-{name}".lower()).strip("-")
    return slug or kind


def agent_run_name(kind: str, parameter: str = "agent_path") -> Callable[[], str]:
    """A `flow_run_name` callable: `<kind>/<agent name>` from the run's own parameters."""

    def name() -> str:
        from prefect.runtime import flow_run

        value = flow_run.parameters.get(parameter)
        return f"{kind}/{agent_name(value)}" if value else kind

    name.__name__ = f"{kind}_run_name"
    return name


def capture_run_name() -> str:
    """`capture/<agent name>/<session id>`; a session given as a log path shows as its id (the file stem)."""
    from prefect.runtime import flow_run

    params = flow_run.parameters
    session = Path(str(params.get("session", ""))).name.removesuffix(".jsonl")
    return f"capture/{agent_name(params['agent'])}/{session}" if params.get("agent") else f"capture/{session}"


def root_run_name() -> str:
    """`project-tidy/<project folder name>`: the full path is in the run's parameters."""
    from prefect.runtime import flow_run

    return f"project-tidy/{Path(str(flow_run.parameters.get('root', ''))).resolve().name}"


def tidy_run_name() -> str:
    """`tidy/<agent name>`, or `tidy-dry-run/<agent name>` for a dry run: a plan that wrote nothing must not
    read as a tidy-up in the dashboard."""
    from prefect.runtime import flow_run

    params = flow_run.parameters
    kind = "tidy-dry-run" if params.get("dry_run") else "tidy"
    return f"{kind}/{agent_name(params['agent_path'])}" if params.get("agent_path") else kind
