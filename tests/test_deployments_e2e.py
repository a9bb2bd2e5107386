"""End to end on a real `prefect server start`: serve both deployments, run an agent with capture set to go
through Prefect, see the triggered capture write the learning (once), run the tidy deployment and see it
tidy, read the artifacts back from the API, and leave no process behind.

Every process this test starts (server, serve, the served flow runs, the agent run) inherits a marker in
its environment, so "nothing left" is checked by looking for the marker in /proc, not by trusting that
each stop worked. Waits are bounded polls of the API, never sleeps that assume a speed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from prefect_server import prefect_server, stop

from agentuse.core import store
from agentuse.core.store_format import parse

pytestmark = pytest.mark.prefect

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
RECORDING = EXAMPLES / "sessions" / "blog-writer-tool-error.jsonl"
WAIT_SECONDS = 120
CAPTURE_AGENT = """---
model: anthropic:claude-sonnet-5
learning:
  capture:
    addons: [tool-errors]
---

# Post saver

Write short productivity blog posts and save each one under `posts/`.
"""


def wait_for(what: str, probe: Callable[[], Any], *, seconds: float = WAIT_SECONDS, every: float = 0.5) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {seconds}s waiting for {what}")


def marked_processes(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:  # exited meanwhile, or not ours to read
            continue
    return found


@pytest.fixture
def project(tmp_path, data_dir):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "post-saver.agentuse").write_text(CAPTURE_AGENT)
    blog = root / "blog-writer.agentuse"
    shutil.copyfile(EXAMPLES / "blog-writer.agentuse", blog)
    seeded = store.locate(blog).store_path
    seeded.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(EXAMPLES / "seeds" / "overgrown.learnings.md", seeded)
    return root


def _flow_runs(client, deployment_id) -> list:
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterId

    return client.read_flow_runs(deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id])))


def _artifacts(client, keys: list[str]) -> dict[str, Any]:
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    found = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=keys)))
    return {a.key: a for a in found}


def test_served_deployments_capture_after_a_run_and_tidy_the_project(project, tmp_path, monkeypatch):
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL, temporary_settings

    marker = f"AGENTUSE_E2E_{uuid.uuid4().hex}"
    monkeypatch.setenv(marker, "1")  # inherited by every process started below
    home = tmp_path / "prefect-server"
    timings: dict[str, float] = {}
    started = time.monotonic()
    serve_log = (tmp_path / "serve.log").open("w")
    serving = None
    stack = ExitStack()
    try:
        with prefect_server(home) as url:
            timings["server healthy"] = time.monotonic() - started
            monkeypatch.setenv("PREFECT_API_URL", url)  # for the children; this process reads its settings once:
            stack.enter_context(temporary_settings({PREFECT_API_URL: url}))
            env = {**os.environ, "AGENTUSE_CAPTURE_VIA": "prefect", "PREFECT_LOGGING_LEVEL": "INFO"}
            serving = subprocess.Popen([sys.executable, "-m", "agentuse.deployments", "--root", str(project),
                                        "--cron", "0 3 * * *"], env=env, stdout=serve_log,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
            with get_client(sync_client=True) as client:
                def served(name: str):
                    assert serving.poll() is None, f"serve exited:\n{(tmp_path / 'serve.log').read_text()[-4000:]}"
                    return _deployment(client, name)

                capture = wait_for("the capture deployment", lambda: served("capture/post-run-capture"))
                tidy = wait_for("the tidy deployment", lambda: served("project-tidy/scheduled-tidy"))
                wait_for("the capture trigger's automation", lambda: client.read_automations_by_name(
                    "agentuse: capture after each run"))
                timings["deployments served"] = time.monotonic() - started
                assert serving.pid in marked_processes(marker)  # the final "nothing left" check can see them
                assert tidy.schedules[0].schedule.cron == "0 3 * * *"
                assert tidy.parameters["root"] == str(project.resolve())

                # --- a run with capture through Prefect: the runtime hands it over, it does not capture inline
                agent = project / "post-saver.agentuse"
                run = subprocess.run([str(Path(sys.executable).with_name("agentuse")), "run", str(agent), "Write a post",
                                      "--model", f"replay:{RECORDING}"], env=env, capture_output=True, text=True,
                                     timeout=WAIT_SECONDS, cwd=project)
                assert run.returncode == 0, run.stderr
                assert "Capture handed to Prefect" in run.stdout, run.stdout
                location = store.locate(agent)
                assert not location.store_path.exists()  # nothing captured inline
                ran_at = time.monotonic()

                flow_run = wait_for("the triggered capture run to finish", lambda: _finished(client, capture.id))
                timings["run -> capture completed"] = time.monotonic() - ran_at
                assert flow_run.state.is_completed(), flow_run.state
                assert flow_run.name.startswith("capture/post-saver/")
                assert flow_run.parameters["agent"] == str(agent)
                [learning] = parse(location.store_path.read_text()).learnings  # written once: no double capture
                assert learning.ch.value == "tool-errors" and learning.tool == "write_file"
                assert learning.sess == flow_run.name.rsplit("/", 1)[1]

                # --- the tidy deployment, run now rather than at 03:00
                blog = project / "blog-writer.agentuse"
                before = blog.read_text()
                tidy_at = time.monotonic()
                tidied = run_deployment("project-tidy/scheduled-tidy", timeout=WAIT_SECONDS)
                timings["tidy deployment"] = time.monotonic() - tidy_at
                assert tidied.state.is_completed(), tidied.state
                assert tidied.name == "project-tidy/proj"
                assert blog.read_text() != before  # proven rules graduated into the agent file
                in_force = [r for r in parse(store.locate(blog).store_path.read_text()).learnings
                            if r.state.value == "active"]
                assert len(in_force) < 58
                subflows = {r.name for r in client.read_flow_runs() if r.name.startswith("tidy/")}
                assert {"tidy/blog-writer", "tidy/post-saver"} <= subflows

                # --- the artifacts, read back from the API
                keys = ["capture-post-saver", "rules-post-saver", "tidy-blog-writer", "rules-blog-writer",
                        "project-tidy-proj"]
                artifacts = _artifacts(client, keys)
                assert set(artifacts) == set(keys), sorted(artifacts)
                assert "Extracted 1 learning(s), 0 quarantined" in artifacts["capture-post-saver"].data
                assert "write_file" in artifacts["capture-post-saver"].data
                tidy_md = artifacts["tidy-blog-writer"].data
                assert "now permanent" in tidy_md and "## Diff: agent file" in tidy_md and "+- [" in tidy_md
                assert artifacts["capture-post-saver"].flow_run_id == flow_run.id
                assert "write_file" in str(artifacts["rules-post-saver"].data)

                # --- the model tag: warned about while it has no limit, reported once it has one
                assert "no concurrency limit on the agentuse-model tag" in (tmp_path / "serve.log").read_text()
                client.create_concurrency_limit(tag="agentuse-model", concurrency_limit=4)
            from agentuse.deployments.preflight import model_limit

            assert model_limit().limit == 4
            stop(serving)
            assert serving.returncode is not None
    finally:
        stack.close()
        if serving is not None:
            stop(serving)
        serve_log.close()
    timings["total"] = time.monotonic() - started
    print("timings:", ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()))
    assert wait_for("every started process to exit", lambda: not marked_processes(marker), seconds=30) is True


def _deployment(client, name: str):
    from prefect.exceptions import ObjectNotFound

    try:
        return client.read_deployment_by_name(name)
    except ObjectNotFound:
        return None


def _finished(client, deployment_id):
    runs = _flow_runs(client, deployment_id)
    return next((r for r in runs if r.state and r.state.is_final()), None)
