"""Built-in tools: real work inside the project root, every failure an error outcome, never an exception."""

from __future__ import annotations

import os

import pytest

from agentuse.runtime.tools import ToolBox


@pytest.fixture
def box(tmp_path):
    root = tmp_path / "project"
    (root / "posts").mkdir(parents=True)
    (root / "notes.md").write_text("hello\n")
    return ToolBox(root, shell_timeout=5)


def test_read_write_list(box):
    assert box.run("read_file", {"path": "notes.md"}).output == "hello\n"
    wrote = box.run("write_file", {"path": "posts/a.md", "content": "# A\n"})
    assert not wrote.is_error and wrote.output == "wrote 4 bytes to posts/a.md"
    assert (box.root / "posts" / "a.md").read_text() == "# A\n"
    assert box.run("list_dir", {}).output == "notes.md\nposts/"
    assert box.run("list_dir", {"path": "posts"}).output == "a.md"
    # Missing folders inside the root are created: the model should not need a shell for that.
    assert not box.run("write_file", {"path": "posts/2026/b.md", "content": "b"}).is_error
    assert (box.root / "posts" / "2026" / "b.md").read_text() == "b"


def test_failures_are_error_outcomes(box):
    missing = box.run("read_file", {"path": "nope.md"})
    assert missing.is_error and missing.error == "no such file: nope.md"
    assert box.run("list_dir", {"path": "nope"}).error == "no such folder: nope"
    assert box.run("write_file", {"path": "posts", "content": "x"}).error == "posts is a folder, not a file"
    assert box.run("read_file", {}).error.startswith("read_file: bad arguments")
    assert box.run("read_file", ["notes.md"]).error == "read_file expects an object of arguments, got list"
    assert box.run("delete_everything", {}).error.startswith("unknown tool 'delete_everything'")
    assert box.run("_tool_read_file", {"path": "notes.md"}).is_error  # internals are not tools


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/passwd", "posts/../../outside.txt", "~/x"])
def test_paths_outside_the_root_are_refused(box, path):
    outcome = box.run("write_file", {"path": path, "content": "x"})
    assert outcome.is_error and "outside the project root" in outcome.error
    assert not (box.root.parent / "outside.txt").exists()


def test_a_symlink_out_of_the_root_is_refused(box, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("key")
    os.symlink(secret, box.root / "link.txt")
    os.symlink(tmp_path, box.root / "escape")
    assert "outside the project root" in box.run("read_file", {"path": "link.txt"}).error
    assert "outside the project root" in box.run("write_file", {"path": "escape/new.txt", "content": "x"}).error
    assert not (tmp_path / "new.txt").exists()
    assert secret.read_text() == "key"


def test_shell_runs_in_the_root_and_reports_failure(box):
    assert box.run("run_shell", {"command": "pwd"}).output.strip() == str(box.root)
    failed = box.run("run_shell", {"command": "echo oops; exit 3"})
    assert failed.is_error and failed.error == "command exited with status 3: echo oops; exit 3\noops"


def test_shell_timeout_kills_the_command_and_its_children(box):
    outcome = box.run("run_shell", {"command": "sleep 30 & sleep 30", "timeout": 0.3})
    assert outcome.is_error and outcome.error.startswith("command timed out after 0.3 s")


def test_huge_output_is_clipped(box):
    outcome = box.run("run_shell", {"command": "head -c 50000 /dev/zero | tr '\\0' a"})
    assert len(outcome.output) < 21_000 and "more characters cut" in outcome.output


def _group_alive(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, read from /proc."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry))
    return alive


def _group_left(pgid: int) -> list[int]:
    """`_group_alive` once the kernel has finished the kills: a SIGKILLed process exits when it is next
    scheduled, which on a busy machine is not at once (up to 5 s, then what is still alive)."""
    import time

    for _ in range(100):
        if not (alive := _group_alive(pgid)):
            return alive
        time.sleep(0.05)
    return _group_alive(pgid)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process table from /proc")
def test_an_interrupted_command_leaves_no_process_behind(box, monkeypatch):
    import subprocess

    started: list[int] = []
    wait = subprocess.Popen.wait

    def interrupted(self, *args, **kwargs):  # Ctrl-C while the tool waits for the command
        if not started:
            started.append(self.pid)
            raise KeyboardInterrupt
        return wait(self, *args, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "wait", interrupted)
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C reaches the user as before
        box.run("run_shell", {"command": "sleep 30 & sleep 30"})
    [pgid] = started
    assert _group_left(pgid) == []  # the shell and its background child were killed with it


@pytest.mark.parametrize("timeout", [float("nan"), -1, "soon"])
def test_a_timeout_that_is_not_a_positive_number_is_the_default(box, timeout):
    # JSON from a model may hold NaN (Python's parser reads it): min(nan, 600) is nan, and a wait with a nan
    # timeout never times out, so the command ran for ever; a negative one killed it before it began.
    box.shell_timeout = 0.5
    outcome = box.run("run_shell", {"command": "sleep 30", "timeout": timeout})
    assert outcome.is_error and outcome.error.startswith("command timed out after 0.5 s")
    assert box.run("run_shell", {"command": "echo ok", "timeout": timeout}).output == "ok\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_write_file_refuses_what_is_not_a_regular_file(box):
    # Opening a FIFO for writing waits for a reader for ever: the run would never end.
    os.mkfifo(box.root / "pipe")
    outcome = box.run("write_file", {"path": "pipe", "content": "x"})
    assert outcome.is_error and outcome.error == "pipe is not a regular file; write_file writes regular files"
