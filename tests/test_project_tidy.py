"""The project tidy-up: every agent under a root, a bounded number at a time; its run names and artifacts.

Inline (no Prefect API) for the behaviour, then once as real flow runs under a temporary server for what
only orchestration shows: subflows named `tidy/<agent>`, and the artifacts each tidy-up and capture publish. The bound itself is fan_out's (tests/test_runner.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agentuse.core import store
from agentuse.core.errors import AgentuseError
from agentuse.core.store_format import parse
from agentuse.flows import artifacts
from agentuse.flows.names import agent_name, artifact_key
from agentuse.core.discovery import find_agent_files
from agentuse.flows.project_tidy import project_tidy_flow, run_project_tidy

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BROKEN = "---\nlearning:\n  criteria: keep everything\n---\n# Broken\n"


def seeded_project(root: Path) -> Path:
    """Two agents in one folder (one overgrown), one in a subfolder, a broken one, and copies that must be
    skipped under .git, .venv and node_modules."""
    (root / "agents" / "sub").mkdir(parents=True)
    blog = root / "blog-writer.agentuse"
    shutil.copyfile(EXAMPLES / "blog-writer.agentuse", blog)
    shutil.copyfile(EXAMPLES / "blog-writer.agentuse", root / "agents" / "sub" / "quiet.agentuse")
    (root / "agents" / "broken.agentuse").write_text(BROKEN)
    for skipped in (".git", ".venv", "node_modules"):
        (root / skipped).mkdir()
        shutil.copyfile(EXAMPLES / "blog-writer.agentuse", root / skipped / "hidden.agentuse")
    seed = store.locate(blog).store_path
    seed.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(EXAMPLES / "seeds" / "overgrown.learnings.md", seed)
    return root


def in_force(agent: Path) -> int:
    return sum(r.state.value == "active" for r in parse(store.locate(agent).store_path.read_text()).learnings)


def test_finds_every_agent_but_not_in_git_venv_or_node_modules(tmp_path):
    root = seeded_project(tmp_path)
    assert [p.relative_to(root).as_posix() for p in find_agent_files(root)] == [
        "agents/broken.agentuse", "agents/sub/quiet.agentuse", "blog-writer.agentuse"]


def test_tidies_every_agent_and_reports_a_broken_one_without_stopping(tmp_path):
    root = seeded_project(tmp_path)
    report = run_project_tidy(root=str(root), concurrency=2)
    by_name = {a.name: a for a in report.agents}
    assert by_name["blog-writer"].status == "tidied" and by_name["blog-writer"].written
    assert "58 →" in by_name["blog-writer"].summary
    assert in_force(root / "blog-writer.agentuse") < 58
    assert by_name["quiet"].status == "nothing"
    assert by_name["broken"].status == "failed" and '"criteria" was removed' in by_name["broken"].summary
    assert report.line.endswith("1 tidied, 1 nothing, 1 failed")


def test_a_dry_run_plans_and_writes_nothing(tmp_path):
    root = seeded_project(tmp_path)
    agent = root / "blog-writer.agentuse"
    before = (agent.read_text(), store.locate(agent).store_path.read_text())
    report = run_project_tidy(root=str(root), dry_run=True)
    assert {a.name: a.status for a in report.agents}["blog-writer"] == "planned"
    assert (agent.read_text(), store.locate(agent).store_path.read_text()) == before


def test_names_and_artifact_keys(tmp_path):
    agent = tmp_path / "agents" / "Blog_Writer.agentuse"
    agent.parent.mkdir()
    agent.write_text("---\nmodel: anthropic:x\n---\n")
    assert agent_name(agent) == "Blog_Writer"  # outside git the agent's own folder is its project
    assert artifact_key("tidy", "agents/blog/Write_2") == "tidy-agents-blog-write-2"
    assert artifact_key("rules", "???") == "rules"


@pytest.mark.parametrize("dry_run", [False, True], ids=["written", "dry-run"])
def test_the_tidy_artifact_shows_each_diff_once(tmp_path, dry_run):
    """The summary block is `render`'s text, which carries the diffs already: they were shown there and
    again under their own headings, twice the artifact for nothing."""
    from agentuse.flows.tidy import run_tidy

    root = seeded_project(tmp_path)
    result = run_tidy(agent_path=str(root / "blog-writer.agentuse"), dry_run=dry_run)
    text = artifacts.tidy_markdown(result, "blog-writer")
    for name in ("blog-writer.learnings.md", "blog-writer.agentuse"):
        assert text.count(f"--- a/{name}") == 1, name
    assert "## Diff: learnings file" in text and "## Diff: agent file" in text


def test_tidy_markdown_carries_summary_passes_and_the_diff_from_the_snapshot(tmp_path):
    from agentuse.flows.tidy import run_tidy

    root = seeded_project(tmp_path)
    result = run_tidy(agent_path=str(root / "blog-writer.agentuse"))
    text = artifacts.tidy_markdown(result, "blog-writer")
    assert result.summary in text and "| pass | read |" in text
    assert "## Diff: learnings file" in text and "## Diff: agent file" in text
    assert "\n+- [" in text  # a rule made permanent, as a line added to the agent file's learned block
    rows = artifacts.rules_table(str(root / "blog-writer.agentuse"))
    assert {row["group"] for row in rows} >= {"applied", "quarantined"}
    assert all(set(row) >= {"state", "title", "id", "why"} for row in rows)
    # the effectiveness columns of `learnings stats` (issue 18), here with no run counted yet
    assert all({"runs in force": 0, "approved clean": 0, "commented": 0, "rejected": 0}.items() <= row.items()
               for row in rows)


# ---------------------------------------------------------------- as real flow runs


@pytest.fixture(scope="module")
def prefect_api(tmp_path_factory):
    from prefect_harness import harness

    with harness(tmp_path_factory.mktemp("prefect-home")) as url:
        yield url


@pytest.mark.prefect
def test_orchestrated_project_tidy_names_runs_and_publishes_artifacts(tmp_path, prefect_api):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    root = seeded_project(tmp_path / "proj")
    state = project_tidy_flow.prefect_flow()(root=str(root), concurrency=2, return_state=True)
    assert state.is_completed()
    report = state.result()
    assert {a.name: a.status for a in report.agents} == {"blog-writer": "tidied", "quiet": "nothing",
                                                         "broken": "failed"}
    with get_client(sync_client=True) as client:
        names = {r.name for r in client.read_flow_runs()}
        assert {"project-tidy/proj", "tidy/blog-writer", "tidy/quiet"} <= names
        keys = ["tidy-blog-writer", "rules-blog-writer", "tidy-quiet", "project-tidy-proj"]
        found = {a.key: a for a in client.read_artifacts(
            artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=keys)))}
    assert set(found) == set(keys)
    blog = next(a for a in report.agents if a.name == "blog-writer")
    assert blog.summary in found["tidy-blog-writer"].data
    assert "1 tidied, 1 nothing, 1 failed" in found["project-tidy-proj"].description


def test_the_task_runner_is_the_thread_pool_unless_a_dask_address_is_set(monkeypatch):
    from agentuse.core.errors import AgentuseError
    from agentuse.flows.project_tidy import DASK_ADDRESS, task_runner

    monkeypatch.delenv(DASK_ADDRESS, raising=False)
    assert task_runner() is None  # Prefect's default ThreadPoolTaskRunner
    monkeypatch.setenv(DASK_ADDRESS, "tcp://127.0.0.1:8786")
    try:
        import prefect_dask  # noqa: F401
    except ImportError:
        with pytest.raises(AgentuseError, match="pip install prefect-dask"):
            task_runner()
    else:
        assert type(task_runner()).__name__ == "DaskTaskRunner"


def test_a_models_markdown_in_a_rule_makes_no_link_or_image_in_the_dashboards_artifacts(tmp_path):
    """The dashboard renders an artifact's markdown: a rule a model wrote with an image (a fetch from the
    viewer's browser), a link, or a fence that closes the artifact's own is shown as text."""
    from markdown_it import MarkdownIt

    from capture_support import TODAY, make_agent, make_session, rule, seed, stored
    from fakes.scripted_helper import ScriptedHelper, drafts, passing
    from agentuse.core.helper.offline import OfflineHelper
    from agentuse.flows.capture import run_capture
    from agentuse.flows.remember import run_remember
    from agentuse.flows.tidy import run_tidy

    hostile = "Save posts ![x](https://evil.example/p.png) [docs](https://evil.example/) <img src=https://evil.example>"
    fenced = "Name files by date\n```\n![y](https://evil.example/q.png)\n```"
    agent = make_agent(tmp_path / "p")
    helper = ScriptedHelper(extract=[drafts(hostile, fenced)], vet=[passing])
    report = run_capture(agent=str(agent), session=str(make_session(agent)), helper=helper, today=TODAY)
    remembered = run_remember(agent=str(agent), text=hostile, helper=OfflineHelper(), today=TODAY)
    closing = rule("c3c3c3c3", "Close every fence").model_copy(update={"body": fenced})  # unhashed: re-vetted
    seed(agent, [*stored(agent), closing])
    tidied = run_tidy(agent, helper=OfflineHelper(), today=TODAY, dry_run=True)
    assert "```" in tidied.diffs["learnings file"]
    pages = [artifacts.capture_markdown(report, "blog"), artifacts.remember_markdown(remembered, "blog", note=hostile),
             artifacts.tidy_markdown(tidied, "blog")]
    for page in pages:
        html = MarkdownIt("commonmark").render(page)
        assert "<img" not in html and "evil.example/\"" not in html and 'href="https://evil' not in html, page
    assert "evil.example" in pages[0]  # shown, as text


def _run_tree(flow_run_id, *, seconds: float = 60.0):
    """The flow run, its subflows (by their parent task runs) and every task run of them, once the events
    that carry task runs to the server have arrived and every run is final (a bounded poll)."""
    import time

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter
    from prefect.events.worker import EventsWorker

    EventsWorker.drain_all(timeout=seconds)
    deadline = time.monotonic() + seconds
    with get_client(sync_client=True) as client:
        while True:
            flows = [client.read_flow_run(flow_run_id)]
            tasks = client.read_task_runs(flow_run_filter=FlowRunFilter(id={"any_": [flow_run_id]}), limit=200)
            children = client.read_flow_runs(flow_run_filter=FlowRunFilter(
                parent_task_run_id={"any_": [t.id for t in tasks]}), limit=200) if tasks else []
            flows += children
            if children:
                tasks += client.read_task_runs(flow_run_filter=FlowRunFilter(id={"any_": [c.id for c in children]}),
                                               limit=200)
            settled = all(r.state is not None and r.state.is_final() for r in [*flows, *tasks])
            if (settled and children) or time.monotonic() > deadline:
                return flows, tasks
            time.sleep(0.5)


@pytest.mark.prefect
def test_a_run_started_as_a_deployment_would_tags_every_run_and_only_model_steps_agentuse_model(tmp_path,
                                                                                                 prefect_api):
    """A deployment's flow run is called with no tags around it (unlike a surface's, flows/runner.py `run`):
    its task runs and its subflows must still carry `agentuse`, so one filter in the dashboard finds them all,
    and `agentuse-model`, the tag operators limit, marks the steps that ask a model and no others."""
    from agentuse.tasks import gate, revet, tidy
    from agentuse.tasks.retry import MODEL_TAG
    from agentuse.tasks.step import Step
    from agentuse.flows import project_tidy

    declared = {s.name: s.model for module in (gate, revet, tidy, project_tidy)
                for s in vars(module).values() if isinstance(s, Step)}
    root = seeded_project(tmp_path / "proj")
    state = project_tidy_flow.prefect_flow()(root=str(root), concurrency=2, return_state=True)
    assert state.is_completed()
    flows, tasks = _run_tree(state.state_details.flow_run_id)
    assert {f.name for f in flows} >= {"project-tidy/proj", "tidy/blog-writer", "tidy/quiet"}
    assert [f.name for f in flows[1:] if "agentuse" not in f.tags] == []  # the root: the deployment's own tags
    steps = [t for t in tasks if t.name.split("/")[0] in declared]
    assert {t.name.split("/")[0] for t in steps} >= {"tidy-agent", "plan", "rewrite", "audit"}
    assert [t.name for t in tasks if "agentuse" not in t.tags] == []
    assert [t.name for t in steps if (MODEL_TAG in t.tags) != declared[t.name.split("/")[0]]] == []


@pytest.mark.prefect
def test_a_subflows_own_lines_reach_its_own_log(tmp_path, prefect_api):
    """The tidy of one agent runs as a subflow inside the project run's `tidy-agent` task: the lines it logs
    (its summary, its artifacts) belong in the log of `tidy/<agent>`, the run a person opens to see what the
    tidy-up did — Prefect's run logger put them in the parent's task run instead."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
    from prefect.logging.handlers import APILogWorker
    from prefect.settings import temporary_settings

    root = seeded_project(tmp_path / "proj")
    with temporary_settings(updates={"logging.to_api.enabled": True}):  # the harness keeps logs local
        state = project_tidy_flow.prefect_flow()(root=str(root), concurrency=2, return_state=True)
        APILogWorker.drain_all(timeout=60)
    assert state.is_completed()
    flows, _ = _run_tree(state.state_details.flow_run_id)
    summary = next(a.summary for a in state.result().agents if a.name == "blog-writer")
    with get_client(sync_client=True) as client:
        logs = {f.name: [entry.message for entry in client.read_logs(
            log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[f.id])))] for f in flows}
    assert f"blog-writer: {summary}" in logs["tidy/blog-writer"]
    assert "artifacts: tidy-blog-writer, rules-blog-writer" in logs["tidy/blog-writer"]
    assert "artifacts: tidy-blog-writer, rules-blog-writer" not in logs["project-tidy/proj"]
    assert f"blog-writer: {summary}" in logs["project-tidy/proj"]  # the project's own row for the agent


@pytest.mark.parametrize("root", ["missing", "", "relative/project"], ids=["missing", "empty", "relative"])
def test_a_project_root_that_is_not_an_absolute_folder_fails_the_run_naming_it(tmp_path, monkeypatch, root):
    """A typo, a project moved away, or prefect.yaml's AGENTUSE_PROJECT_ROOT left unset (Prefect then passes
    the placeholder itself, or nothing): each completed as "no agents found" — or tidied whatever folder the
    worker ran in — so a schedule could do nothing, or the wrong thing, every night without a failed run."""
    from agentuse.flows.project_tidy import run_project_tidy

    monkeypatch.chdir(tmp_path)
    (tmp_path / "relative" / "project").mkdir(parents=True)  # relative to a worker's folder: refused all the same
    given = str(tmp_path / root) if root == "missing" else root
    with pytest.raises(AgentuseError, match="root") as raised:
        run_project_tidy(given)
    assert repr(given) in str(raised.value)


def test_an_agent_whose_model_calls_failed_says_so_on_its_row(tmp_path):
    """The scheduled project tidy-up with the model down: each agent's row read 'tidied' with its summary
    and nothing else, so the report (and the dashboard's artifact) looked like a good night."""
    from fakes.scripted_helper import ScriptedHelper

    from agentuse.core.helper.factory import override_helper
    from agentuse.core.helper.operations import OPERATIONS
    from agentuse.core.helper.protocol import PermanentHelperError

    def down(request):
        raise PermanentHelperError("the API answered 401: invalid x-api-key")

    root = seeded_project(tmp_path)
    with override_helper(ScriptedHelper(**{op: down for op in OPERATIONS})):
        report = run_project_tidy(root=str(root), concurrency=1)
    blog = {a.name: a for a in report.agents}["blog-writer"]
    assert blog.status == "tidied" and blog.failed_calls > 0
    assert f"{blog.failed_calls} model call(s) failed" in blog.summary
