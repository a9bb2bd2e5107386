"""A job killed outright (the runner's timeout, OOM, SIGKILL) leaves its session without a run_end, and a
later job reads it crashed, unless the process that wrote it is still running. A container's processes get
the same small pids every time (its first process is always pid 1), so the next job sharing the state
directory is very often a process with the dead job's pid: the session read 'running' for ever."""

from __future__ import annotations

import json
import os

from capture_support import EXAMPLES, copy_example

from agentuse.core import store


def _killed_session_with_this_pid(agent, started: int) -> str:
    """The log a killed job left: run_start by a process whose pid is this one's, started at another time."""
    location = store.locate(agent)
    location.session_dir.mkdir(parents=True, exist_ok=True)
    sid = "01K8ZKILLED000000000000000"
    start = {"type": "run_start", "session_id": sid, "agent_key": location.key, "agent_path": str(agent),
             "project_root": str(location.root), "ih": "0" * 12, "model": "anthropic:claude-test",
             "prompt": "Write a post", "system": "x", "pid": os.getpid(), "pid_started": started,
             "at": "2026-01-01T00:00:00Z"}
    (location.session_dir / f"{sid}.jsonl").write_text(json.dumps(start) + "\n")
    return sid


def test_a_killed_job_s_session_reads_crashed_though_its_pid_is_alive_again(tmp_path, invoke):
    agent = copy_example(tmp_path / "checkout")
    with open(f"/proc/{os.getpid()}/stat") as handle:
        ours = int(handle.read().rsplit(")", 1)[1].split()[19])
    sid = _killed_session_with_this_pid(agent, started=ours - 1)
    [listed] = json.loads(invoke("sessions", "list", "--json").stdout)
    assert (listed["id"], listed["status"]) == (sid, "crashed")


def test_a_run_this_process_is_writing_still_reads_running(tmp_path, invoke):
    agent = copy_example(tmp_path / "checkout")
    with open(f"/proc/{os.getpid()}/stat") as handle:
        ours = int(handle.read().rsplit(")", 1)[1].split()[19])
    _killed_session_with_this_pid(agent, started=ours)
    [listed] = json.loads(invoke("sessions", "list", "--json").stdout)
    assert listed["status"] == "running"


def test_a_run_recorded_by_the_cli_names_when_its_process_started(tmp_path, invoke):
    agent = copy_example(tmp_path / "checkout")
    recording = EXAMPLES / "sessions" / "blog-writer-tool-error.jsonl"
    ran = json.loads(invoke("run", agent, "--model", f"replay:{recording}", "--json").stdout)
    first = json.loads(open(ran["session_file"]).readline())
    with open(f"/proc/{os.getpid()}/stat") as handle:
        assert first["pid_started"] == int(handle.read().rsplit(")", 1)[1].split()[19])
