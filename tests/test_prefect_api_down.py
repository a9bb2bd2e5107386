"""PREFECT_API_URL naming a server that is down: every command says so in one line and still does its work
here (or, asked for `--prefect`, refuses in one line) — never a traceback, never a lost capture.

The commands run as a person runs them, as `agentuse` processes, against a loopback port nothing listens on.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from agentuse.core import store
from agentuse.core.store_format import parse

REPO = Path(__file__).resolve().parents[1]
RECORDING = REPO / "examples" / "sessions" / "blog-writer-tool-error.jsonl"
AGENT = """---
model: anthropic:claude-sonnet-5
approval: true
learning:
  capture:
    addons: [tool-errors]
---

# Post saver

Write short productivity blog posts and save each one under `posts/`.
"""


def _closed_port() -> int:
    """A loopback port that was free a moment ago: connecting to it is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _agentuse(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from agentuse.cli.app import main; main()", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _setup(tmp_path: Path) -> tuple[Path, dict[str, str], str]:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    agent = project / "post-saver.agentuse"
    agent.write_text(AGENT)
    shutil.copy(RECORDING, project / "recording.jsonl")
    url = f"http://127.0.0.1:{_closed_port()}/api"
    env = {**os.environ, "PREFECT_API_URL": url}
    return agent, env, url


def _no_traceback(done: subprocess.CompletedProcess) -> None:
    for text in (done.stdout, done.stderr):
        assert "Traceback" not in text and "RuntimeError" not in text and "╭" not in text, text


def test_a_command_runs_here_and_says_so_in_one_line(tmp_path):
    agent, env, url = _setup(tmp_path)
    done = _agentuse("learnings", "add", str(agent), "Keep intros under 40 words", cwd=agent.parent, env=env)
    _no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert 'Saved "Keep intros under 40 words"' in done.stdout
    [notice] = [line for line in done.stderr.splitlines() if url in line]
    assert "did not answer" in notice and "PREFECT_API_URL" in notice
    [rule] = parse(store.locate(agent).store_path.read_text()).learnings
    assert rule.title == "Keep intros under 40 words"


def test_the_capture_after_an_approved_run_is_not_lost(tmp_path):
    agent, env, url = _setup(tmp_path)
    ran = _agentuse("run", str(agent), "Write a post", "--model", "replay:recording.jsonl", "--json",
                    cwd=agent.parent, env=env)
    assert ran.returncode == 0, ran.stderr
    import json

    session = json.loads(ran.stdout)["session"]
    approved = _agentuse("sessions", "resume", session, "--approve", cwd=agent.parent, env=env)
    _no_traceback(approved)
    assert approved.returncode == 0, approved.stderr
    assert f"[Learning] Captured here, not by Prefect: the Prefect API at {url} did not answer" in approved.stdout
    assert "Extracted 1 learning(s)" in approved.stdout
    [learning] = parse(store.locate(agent).store_path.read_text()).learnings
    assert learning.ch.value == "tool-errors"


def test_forcing_prefect_at_a_server_that_is_down_refuses_in_one_line(tmp_path):
    agent, env, url = _setup(tmp_path)
    done = _agentuse("learnings", "tidy", str(agent), "--prefect", cwd=agent.parent, env=env)
    _no_traceback(done)
    assert done.returncode == 1
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: ") and url in line


def test_the_health_check_asks_the_api_the_environment_names_now(monkeypatch):
    """Prefect reads its settings once, when first imported: a process that set PREFECT_API_URL after that
    (a test, a long-lived surface) had the check ask Prefect's cached settings, which named no API, so it
    started a temporary server and reported the dead API as answering."""
    import prefect.settings  # noqa: F401 - imported before the variable is set, as in a long-lived process

    from agentuse.flows import prefect_api

    url = f"http://127.0.0.1:{_closed_port()}/api"
    monkeypatch.setenv("PREFECT_API_URL", url)
    problem = prefect_api.unanswered()
    assert problem is not None and url in problem
