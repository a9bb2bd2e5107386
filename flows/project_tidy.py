"""Tidy every agent of a project: the scheduled maintenance job behind the tidy deployment.

Finds every `.agentuse` file under the project root and runs the tidy flow for each, a bounded number
at a time. Under orchestration each agent is one submitted task (`tidy-agent/<name>`) whose body runs
the tidy flow as a subflow (`tidy/<name>`, with its own task runs and artifacts), so the fan-out goes
through the flow's task runner: the default thread pool on one machine, prefect-dask's DaskTaskRunner
across many when AGENTUSE_DASK_ADDRESS is set (README: Scale-out) — nothing here assumes threads. Inline (no Prefect API) the same task
bodies run in a small thread pool (`flows.runner.fan_out` with a limit, either way).

One agent's problem (an agent file that does not parse, a broken store, a model that stayed down past
its retries) is reported on its row and does not stop the other agents; the message says what to fix.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from agentuse.core.discovery import find_agent_files
from agentuse.core.errors import AgentuseError
from agentuse.flows.log import logger
from agentuse.flows.names import agent_name, artifact_key, root_run_name
from agentuse.flows.runner import fan_out, orchestrated, pipeline
from agentuse.tasks.step import step
from agentuse.core.model_defaults import empty_list

DASK_ADDRESS = "AGENTUSE_DASK_ADDRESS"  # a Dask scheduler (tcp://host:8786), or "local" for a LocalCluster
DEFAULT_CONCURRENCY = 4  # tidy-ups at once; each fans its own model calls out under the agentuse-model tag


class AgentJob(BaseModel):
    agent_path: str
    name: str


class AgentOutcome(BaseModel):
    name: str
    agent_path: str
    status: Literal["tidied", "nothing", "planned", "failed"]
    summary: str
    written: bool = False
    failed_calls: int = 0  # the agent's model calls that failed for good: its tidy-up did only part of its work


class ProjectTidyReport(BaseModel):
    root: str
    agents: list[AgentOutcome] = Field(default_factory=empty_list)

    @property
    def line(self) -> str:
        counts = {s: sum(1 for a in self.agents if a.status == s) for s in ("tidied", "nothing", "planned", "failed")}
        shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no agents found"
        return f"{len(self.agents)} agent(s) under {self.root}: {shown}"


@step("tidy-agent", "tidy-agent/{job.name}")
def tidy_agent(job: AgentJob, dry_run: bool = False) -> AgentOutcome:
    from agentuse.flows.tidy import tidy_flow

    # Under a run the tidy is a real subflow (its own entry in the dashboard); inline it is a plain call,
    # since calling the flow object outside a run would start a temporary server.
    run = tidy_flow.prefect_flow() if orchestrated() else tidy_flow.body
    try:
        result = run(agent_path=job.agent_path, dry_run=dry_run)
    except AgentuseError as problem:  # file/store errors name the file; a HelperError: a model outage outlived retries
        logger().warning("%s: %s", job.name, problem)
        return AgentOutcome(name=job.name, agent_path=job.agent_path, status="failed", summary=str(problem))
    if result.nothing:
        status, summary = "nothing", "Nothing to tidy up"
    else:
        status, summary = ("planned" if dry_run else "tidied"), result.summary
    if result.failed_calls:  # what they would have done was left as it was; the agent's notes say which
        summary += f"; {result.failed_calls} model call(s) failed, so part of it was left as it was"
    (logger().warning if result.failed_calls else logger().info)("%s: %s", job.name, summary)
    return AgentOutcome(name=job.name, agent_path=job.agent_path, status=status, summary=summary,
                        written=result.written, failed_calls=result.failed_calls)


def task_runner() -> Any:
    """Prefect's default thread pool, or prefect-dask's DaskTaskRunner when AGENTUSE_DASK_ADDRESS is set.

    An environment variable rather than `with_options`: served and worker-run flow runs re-import the flow
    from its entrypoint in a fresh process, so a runner chosen in code at deploy time would be lost there,
    while the variable is read again by every process that imports this module."""
    address = os.environ.get(DASK_ADDRESS, "").strip()
    if not address:
        return None
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError:
        raise AgentuseError(f"{DASK_ADDRESS} is set but prefect-dask is not installed: pip install prefect-dask "
                            f"(or unset {DASK_ADDRESS} to tidy on this machine's threads)") from None
    return DaskTaskRunner() if address == "local" else DaskTaskRunner(address=address)


@pipeline("project-tidy", root_run_name, agent=None, task_runner=task_runner)
def project_tidy_flow(root: str, concurrency: Annotated[int, Field(ge=1)] = DEFAULT_CONCURRENCY,
                      dry_run: bool = False) -> ProjectTidyReport:
    """Tidy every agent of a project, a few at a time: one tidy-up (a subflow) per agent file.

    Args:
        root: The project's root folder, as an absolute path: every .agentuse file under it is tidied
            (.git, .venv and node_modules are skipped).
        concurrency: How many agents are tidied at once (1 or more).
        dry_run: Plan only: write nothing, and publish each agent's plan under tidy-dry-run-<agent>.
    """
    agents = find_agent_files(_project_root(root))
    jobs = [AgentJob(agent_path=str(path), name=agent_name(path)) for path in agents]
    logger().info("tidying %d agent(s) under %s, %d at a time", len(jobs), root, concurrency)
    report = ProjectTidyReport(root=str(Path(root).resolve()),
                               agents=fan_out(tidy_agent, jobs, limit=concurrency, dry_run=dry_run))
    logger().info(report.line)
    if orchestrated():
        _publish(report)
    return report


def _project_root(root: str) -> Path:
    """The folder to tidy, refused (failing the run) unless it is an absolute path to a folder: a typo, a
    moved project or an unset AGENTUSE_PROJECT_ROOT (prefect.yaml) would otherwise find no agents and
    complete, night after night, or tidy whatever folder the worker happens to run in."""
    path = Path(root)
    fix = ("give the project's folder as an absolute path (agentuse deploy serve -C <folder>, or "
           "AGENTUSE_PROJECT_ROOT for prefect.yaml)")
    if not root.strip() or not path.is_absolute():
        raise AgentuseError(f"the project root {root!r} is not an absolute path: {fix}")
    if not path.is_dir():
        raise AgentuseError(f"the project root {root!r} is not a folder: {fix}")
    return path.resolve()


def _publish(report: ProjectTidyReport) -> None:
    from prefect.artifacts import create_table_artifact

    rows = [{"agent": a.name, "status": a.status, "summary": a.summary, "written": a.written}
            for a in report.agents] or [{"agent": "(no .agentuse files found)"}]
    create_table_artifact(table=rows, key=artifact_key("project-tidy", Path(report.root).name),
                          description=report.line)


def run_project_tidy(root: str | Path, *, concurrency: int = DEFAULT_CONCURRENCY, dry_run: bool = False,
                     force_prefect: bool = False) -> ProjectTidyReport:
    """The entry point, shaped like the others: a real flow run when Prefect is configured, inline otherwise."""
    from agentuse.flows.runner import run

    return run(project_tidy_flow, force_prefect=force_prefect, root=str(root), concurrency=concurrency,
               dry_run=dry_run)
