"""A CI runner's cancel, `timeout` in a cron line or systemd stopping a job: SIGTERM (or SIGHUP) ends an
agentuse command the way Ctrl-C does. The command a run's `run_shell` started has its own process group
(so a terminal's Ctrl-C reaches only agentuse, which stops it), so a signal sent to agentuse's group never
reached it: killed by the default SIGTERM, agentuse left it running, and the session read 'crashed'."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from fakes import tool_use

from agentuse.runtime.approval import find_session
from agentuse.runtime.events import RunEnd

AGENT = """---
model: anthropic:claude-test
approval: true
---

# Builder

Build the project.
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited; only its parent's wait is missing.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_for(path, process, seconds: float = 60.0) -> None:
    ends = time.monotonic() + seconds
    while not path.exists() or not path.read_text().strip():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < ends, "the tool's command never started"
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_terminated_run_stops_its_shell_command_and_records_the_interruption(tmp_path, fake_anthropic, sig):
    project = tmp_path / "project"
    project.mkdir()
    agent = project / "build.agentuse"
    agent.write_text(AGENT)
    pid_file = project / "command.pid"
    fake_anthropic.script(tool_use("run_shell", {"command": "echo $$ > command.pid; exec sleep 300"}))
    env = {"PATH": os.environ["PATH"], "AGENTUSE_DATA_DIR": os.environ["AGENTUSE_DATA_DIR"],
           "AGENTUSE_CONFIG_DIR": os.environ["AGENTUSE_CONFIG_DIR"], "PREFECT_HOME": os.environ["PREFECT_HOME"],
           "CI": "true", **fake_anthropic.env()}
    process = subprocess.Popen([sys.executable, "-c", "from agentuse.cli.app import main; main()", "run",
                                str(agent), "build it"], cwd=project, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    command_pid = None
    try:
        _wait_for(pid_file, process)
        command_pid = int(pid_file.read_text())
        process.send_signal(sig)
        out, err = process.communicate(timeout=60)
        assert not _alive(command_pid), ("the tool's command outlived the run", process.returncode, err)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        if command_pid and _alive(command_pid):
            os.kill(command_pid, signal.SIGKILL)
    assert process.returncode == 128 + sig  # what a shell reports for a command its signal ended
    assert "Traceback" not in err and err.count("\n") == 1, err
    assert err.startswith(f"error: stopped by {signal.Signals(sig).name}"), err
    session = find_session(_only_session())
    assert session.status == "failed"  # not 'crashed': the run said why it ended
    end = [e for e in session.events if isinstance(e, RunEnd)][-1]
    assert f"stopped by {signal.Signals(sig).name}" in end.error
    # Its ending is counted as any run's is: the running totals are what a recount of the logs makes them.
    cli = [sys.executable, "-c", "from agentuse.cli.app import main; main()", "learnings", "stats", str(agent), "--json"]
    counted = subprocess.run(cli, env=env, capture_output=True, text=True, check=True).stdout
    recounted = subprocess.run([*cli, "--rebuild"], env=env, capture_output=True, text=True, check=True).stdout
    assert counted == recounted


def _only_session() -> str:
    from agentuse.core import store
    from agentuse.runtime.session import list_logs, sessions_roots

    logs = list(list_logs(sessions_roots(store.data_dir())))
    assert len(logs) == 1, logs
    return logs[0].stem


def test_a_signal_the_caller_ignored_stays_ignored():
    """`nohup agentuse learnings tidy ...` asked for hang-ups to be ignored: the command must not die of one."""
    probe = ("import signal; signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
             "from agentuse.core.stop_signals import stop_like_ctrl_c; stop_like_ctrl_c()\n"
             "print(signal.getsignal(signal.SIGHUP) is signal.SIG_IGN, signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]


def test_a_terminated_tidy_up_asks_the_model_nothing_more(tmp_path, fake_anthropic):
    """A tidy-up weighs its groups in a pool of threads, more groups than threads. Stopped (SIGTERM, like
    Ctrl-C), it went on asking the model about every group still queued before it could exit, spending the
    user's tokens on a result it then threw away; only the calls already out finish now."""
    import threading

    from capture_support import make_agent, rule, seed
    from fakes import tool_use

    agent = make_agent(tmp_path / "p", "learning:\n  capture:\n    addons: [tool-errors]\n  max: 15")
    topics = ["intros", "titles", "links", "images", "tags", "tone", "lists", "quotes", "dates", "names"]
    seed(agent, [rule(f"{n:08x}", f"Rule {n} about {topics[n % len(topics)]} number {n}") for n in range(300)])
    from agentuse.flows.runner import INLINE_WORKERS

    release = threading.Event()
    lock, in_flight, pool_out = threading.Lock(), [], threading.Event()

    def reply(request):
        with lock:
            in_flight.append(request)
            if len(in_flight) == INLINE_WORKERS:
                pool_out.set()  # every worker of the pool is out on a call, the rest of the groups queued
        assert release.wait(60)
        return tool_use(request.forced_tool, {"moves": []} if "plan" in request.forced_tool else {})

    fake_anthropic.script(default=reply)
    env = {"PATH": os.environ["PATH"], "AGENTUSE_DATA_DIR": os.environ["AGENTUSE_DATA_DIR"],
           "AGENTUSE_CONFIG_DIR": os.environ["AGENTUSE_CONFIG_DIR"], "PREFECT_HOME": os.environ["PREFECT_HOME"],
           **fake_anthropic.env()}
    process = subprocess.Popen([sys.executable, "-c", "from agentuse.cli.app import main; main()", "learnings",
                                "tidy", str(agent)], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        assert pool_out.wait(60), "the tidy-up never had its pool out on calls"
        process.send_signal(signal.SIGTERM)
        # The command says it stopped before the interpreter waits for the calls still out: only then are
        # they answered, so a queued group could only be asked about if the stop had not cancelled it.
        said = process.stderr.readline()
        release.set()
        out, err = process.communicate(timeout=60)
    finally:
        release.set()
        if process.poll() is None:
            process.kill()
            process.communicate()
    err = said + err
    out_at_signal = INLINE_WORKERS
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM" in said, err
    assert len(fake_anthropic.requests) == out_at_signal, (out_at_signal, len(fake_anthropic.requests))


def test_a_signal_inside_a_deferred_section_is_raised_as_it_ends():
    """run_shell starts its command inside one: a SIGTERM while the child is starting must not leave the
    child unknown to the code that stops it."""
    probe = ("import os, signal\n"
             "from agentuse.core.stop_signals import Stopped, deferred, stop_like_ctrl_c\n"
             "stop_like_ctrl_c()\n"
             "try:\n"
             "    with deferred():\n"
             "        os.kill(os.getpid(), signal.SIGTERM)\n"
             "        print('finished the section')\n"
             "except Stopped as stopped:\n"
             "    print(stopped)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["finished the section", "stopped by SIGTERM"]
