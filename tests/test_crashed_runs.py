"""A flow run that crashed leaves nothing reading Running under it.

Prefect marks only the crashed flow run itself: a killed project tidy-up's task runs and its subflow (with
the model step it was waiting on) read Running in the dashboard for ever. The scene is built on a real
temporary server the way a killed process leaves it — a flow run, its task runs, a subflow with a task run
of its own, all Running — then the flow's on_crashed hooks run, as the serving process runs them once the
flow run's process has died.
"""

from __future__ import annotations

import pytest
from prefect_harness import harness

from agentuse.tasks.retry import MODEL_TAG

pytestmark = pytest.mark.prefect


def test_a_crashed_flow_runs_task_runs_and_subflows_are_crashed_too(tmp_path):
    from prefect import task
    from prefect.client.orchestration import get_client
    from prefect.states import Completed, Crashed, Running

    from agentuse.flows.project_tidy import project_tidy_flow
    from agentuse.flows.tidy import tidy_flow

    project, tidy = project_tidy_flow.prefect_flow(), tidy_flow.prefect_flow()
    model_step = task(name="plan", tags=[MODEL_TAG])(lambda: None)
    plain_step = task(name="tidy-agent")(lambda: None)
    with harness(tmp_path / "prefect-home"), get_client(sync_client=True) as client:
        def task_run(step, flow_run_id, key, state):
            return client.create_task_run(step, flow_run_id, key, state=state)

        parent = client.create_flow_run(project, parameters={"root": str(tmp_path)}, state=Running())
        done = task_run(plain_step, parent.id, "done", Completed())
        agent_task = task_run(plain_step, parent.id, "agent", Running())
        child = client.create_flow_run(tidy, parameters={"agent_path": str(tmp_path / "a.agentuse")},
                                       parent_task_run_id=agent_task.id, state=Running())
        nested = task_run(model_step, child.id, "nested", Running())
        crashed = client.set_flow_run_state(parent.id, Crashed(message="Process exited with status code: -9"),
                                            force=True).state
        assert project.on_crashed_hooks
        for hook in project.on_crashed_hooks:  # what the runner does once the process has died
            hook(project, client.read_flow_run(parent.id), crashed)

        states = {name: client.read_task_run(t.id).state.type.value
                  for name, t in (("done", done), ("agent", agent_task), ("nested", nested))}
        states["subflow"] = client.read_flow_run(child.id).state.type.value
        states["parent"] = client.read_flow_run(parent.id).state.type.value
    assert states == {"done": "COMPLETED", "agent": "CRASHED", "nested": "CRASHED", "subflow": "CRASHED",
                      "parent": "CRASHED"}
