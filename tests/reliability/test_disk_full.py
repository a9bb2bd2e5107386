"""A full disk (or a failing one) during any write: the old file is intact and the command says so in one
`error: ` line naming the file, never a traceback. The fault is injected where the kernel reports it for a
buffered write on most file systems, at fsync, for files under one folder; a real full tmpfs is in
test_a_real_full_file_system (root only).
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import snapshots, store

REPLAY = Path(__file__).parents[2] / "examples" / "sessions" / "blog-writer-tool-error.jsonl"


REAL_FSYNC = os.fsync


def fail_writes_under(monkeypatch, folder: Path, code: int = errno.ENOSPC) -> list[str]:
    """Every fsync of a file under `folder` fails with `code`; returns the paths that failed."""
    real_fsync, failed = os.fsync, []

    def fsync(fd):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if target.startswith(f"{folder}{os.sep}") and not os.path.isdir(target):
            failed.append(target)
            raise OSError(code, os.strerror(code))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return failed


def one_error_line(result) -> str:
    assert result.exit_code == 1, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and result.stderr.rstrip("\n").endswith(errors[0]), result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    return errors[0]


def snapshot_bytes(*paths: Path) -> dict[Path, bytes | None]:
    return {path: path.read_bytes() if path.exists() else None for path in paths}


@pytest.mark.parametrize("code,words", [(errno.ENOSPC, "no space left on device writing"),
                                        (errno.EIO, "input/output error writing"),
                                        (errno.EROFS, "is on a read-only file system")])
def test_learnings_add_on_a_full_disk(project, monkeypatch, code, words):
    project.seed(3)
    before = snapshot_bytes(project.location.store_path, project.agent)
    failed = fail_writes_under(monkeypatch, project.location.store_path.parent, code)

    line = one_error_line(CliRunner().invoke(app, ["learnings", "add", str(project.agent),
                                                   "Always link the sources a post cites."]))
    assert failed and words in line and str(project.location.store_path) in line
    assert line.endswith(f"{project.location.store_path} was left as it was")
    assert snapshot_bytes(*before) == before
    assert not [p for p in project.location.store_path.parent.iterdir() if p.name.endswith(".tmp")]


def test_learnings_undo_on_a_full_disk(project, monkeypatch):
    project.seed(20)  # over the cap of 15: the tidy-up has work to do, and leaves a snapshot
    tidied = CliRunner().invoke(app, ["learnings", "tidy", str(project.agent)])
    assert tidied.exit_code == 0, tidied.output
    assert snapshots.listing(project.location)
    before = snapshot_bytes(project.location.store_path, project.agent, project.location.archive_path)
    failed = fail_writes_under(monkeypatch, project.root)  # the agent file is the first file undo restores

    line = one_error_line(CliRunner().invoke(app, ["learnings", "undo", str(project.agent)]))
    assert failed and line.startswith("error: no space left on device writing ")
    assert "free some space and run the command again" in line and line.endswith("was left as it was")
    assert snapshot_bytes(*before) == before
    # The undo was journaled before its first file (issue 13, an undo cut short): once there is space, the
    # next command of any kind finishes it, and the tidy-up is undone as one.
    monkeypatch.setattr(os, "fsync", REAL_FSYNC)  # the disk has room again (monkeypatch.undo would drop the env too)
    assert CliRunner().invoke(app, ["learnings", str(project.agent), "--json"]).exit_code == 0
    assert snapshot_bytes(*before) != before and not snapshots.listing(project.location)


@pytest.mark.parametrize("where", ["session", "learnings"])
def test_run_on_a_full_disk(project, monkeypatch, where):
    project.seed(3)
    before = snapshot_bytes(project.location.store_path)
    folder = project.location.session_dir if where == "session" else project.location.store_path.parent
    failed = fail_writes_under(monkeypatch, folder)

    line = one_error_line(CliRunner().invoke(app, ["run", str(project.agent), "Write a post",
                                                   "--model", f"replay:{REPLAY}"]))
    assert failed and line.startswith("error: no space left on device writing ")
    assert failed[0] in line or str(project.location.store_path) in line
    assert snapshot_bytes(*before) == before


def test_a_real_full_file_system(tmp_path):
    """A 256 KiB tmpfs as the state dir, filled to the last byte: `learnings add` fails in one line and the
    store is as it was. Needs root (mount); skipped elsewhere."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "tiny"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        agent = tmp_path / "proj" / "blog.agentuse"
        agent.parent.mkdir()
        agent.write_text("---\nmodel: anthropic:claude-sonnet-5\nlearning: true\n---\n\n# Blog\n\nWrite posts.\n")
        env = {**os.environ, "AGENTUSE_DATA_DIR": str(mount)}
        agentuse = [str(Path(sys.executable).with_name("agentuse"))]
        first = subprocess.run([*agentuse, "learnings", "add", str(agent), "Cite the sources of every claim."],
                               env=env, capture_output=True, text=True)
        assert first.returncode == 0, first.stderr
        learnings = next(mount.glob("project/*/learnings/blog.learnings.md"))
        kept = learnings.read_bytes()
        with open(mount / "filler", "ab", buffering=0) as filler:  # fill every last block
            with pytest.raises(OSError) as full:
                while True:
                    filler.write(b"\0" * 4096)
            assert full.value.errno == errno.ENOSPC
        second = subprocess.run([*agentuse, "learnings", "add", str(agent), "Keep every intro under 40 words."],
                                env=env, capture_output=True, text=True)
        assert second.returncode == 1 and "Traceback" not in second.stderr
        assert second.stderr.splitlines()[-1].startswith(f"error: no space left on device writing {learnings}")
        assert learnings.read_bytes() == kept
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_resume_with_a_note_on_a_full_disk_exits_1_and_names_the_command_that_saves_it(project, monkeypatch):
    """The approval is decided (the session log has room), but the note cannot be stored: the command fails
    and gives the note back as a command to run, rather than exiting 0 with a placeholder `"..."`."""
    import shlex

    from agentuse.runtime.runner import start_run
    from agentuse.runtime.summary import summarize

    from .test_resume_kill_points import AGENT, NOTE

    project.agent.write_text(AGENT, encoding="utf-8")
    project.seed(3)
    result = start_run(project.agent, model=f"replay:{REPLAY}")
    before = snapshot_bytes(project.location.store_path)
    failed = fail_writes_under(monkeypatch, project.location.store_path.parent)

    resumed = CliRunner().invoke(app, ["sessions", "resume", result.session_id, "--approve", "--remember", NOTE])
    assert failed and resumed.exit_code == 1, resumed.output
    assert "Traceback" not in resumed.output
    command = f"agentuse learnings add {project.agent} {shlex.quote(NOTE)}"
    assert command in resumed.output, resumed.output
    assert snapshot_bytes(*before) == before
    assert summarize(Path(result.session_file)).status == "completed"

    monkeypatch.setattr(os, "fsync", REAL_FSYNC)  # room again: the command it named saves the note
    assert CliRunner().invoke(app, shlex.split(command)[1:]).exit_code == 0
    assert [r.text for r in store.load(project.location).learnings if r.is_human and NOTE in r.text]
