"""What a crashed flow run leaves behind, finished off: its unfinished task runs and subflows are marked
Crashed too.

When a flow run's process dies (killed for memory, SIGKILL, a machine lost), Prefect marks the flow run
Crashed and nothing under it: a project tidy-up's `tidy-agent/<agent>` task run, its `tidy/<agent>` subflow
and the model step that was waiting read Running in the dashboard for ever, as if the tidy-up were still
going. (Cancelling is not this case: Prefect cancels what a cancelled run leaves. The model-tag slot such a
task run held comes back by itself once its 60-second lease lapses.)

`release` is every pipeline's `on_crashed` hook (flows/runner.py): a served or worker-run flow run's hooks
run in the serving process once its child has died.
"""

from __future__ import annotations

from typing import Any

PAGE = 200  # task runs read per request


def release(flow: Any, flow_run: Any, state: Any) -> None:
    """Mark every unfinished task run and subflow under `flow_run` Crashed, level by level."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, TaskRunFilter
    from prefect.client.schemas.objects import StateType
    from prefect.states import Crashed

    unfinished = {"type": {"any_": [StateType.SCHEDULED, StateType.PENDING, StateType.RUNNING, StateType.PAUSED,
                                    StateType.CANCELLING]}}
    why = f"its flow run {flow_run.name} crashed"
    with get_client(sync_client=True) as client:
        parents = [flow_run.id]
        while parents:
            left = _all(lambda offset: client.read_task_runs(
                flow_run_filter=FlowRunFilter(id={"any_": parents}), task_run_filter=TaskRunFilter(state=unfinished),
                limit=PAGE, offset=offset))
            # Forced: a run that crashed is not asked whether it may (and its own process is gone).
            for task_run in left:
                client.set_task_run_state(task_run.id, Crashed(message=why), force=True)
            children = client.read_flow_runs(flow_run_filter=FlowRunFilter(
                parent_task_run_id={"any_": [t.id for t in left]}, state=unfinished)) if left else []
            for child in children:
                client.set_flow_run_state(child.id, Crashed(message=why), force=True)
            parents = [child.id for child in children]


def _all(read: Any) -> list[Any]:
    """Every page, all read before any run is marked (marking changes what the filter matches)."""
    found: list[Any] = []
    while True:
        page = read(len(found))
        found += page
        if len(page) < PAGE:
            return found
