"""Odd files where agentuse expects ordinary ones: a directory as the learnings file, a permission-denied store
or state dir, a FIFO or device as agent file, replay file or session, a missing editor, a port that is not
one, a session log that cannot be read. Each is one `error: ` line and exit 1, never a traceback or a hang.

Commands that could block on a FIFO run in a subprocess with a timeout, so a regression fails instead of
hanging the suite. Permission tests need permissions to apply: the suite runs as root here, so they run
the CLI under `setpriv` with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped from the bounding set: a
root process that obeys file modes, as an ordinary user's would.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app

from .test_disk_full import REPLAY, one_error_line

AGENTUSE = str(Path(sys.executable).with_name("agentuse"))
HANG_GUARD_SECONDS = 120  # only so a FIFO that blocks fails the test; a passing command returns at once


def cli(*args: str, as_user: bool = False, env: dict | None = None) -> subprocess.CompletedProcess:
    prefix = []
    if as_user and os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("root without setpriv: file modes cannot be made to apply")
        prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
    try:
        return subprocess.run([*prefix, AGENTUSE, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              env={**os.environ, **(env or {})}, timeout=HANG_GUARD_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"agentuse {' '.join(args)} hung (it opened a FIFO?)")


def one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and result.stderr.rstrip("\n").endswith(errors[0]), result.stderr
    return errors[0]


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.agentuse"
    os.mkfifo(path)
    return path


# --- the learnings file is a directory --------------------------------------------------------------------


@pytest.mark.parametrize("args", [[], ["--json"], ["--edit"]])
def test_a_directory_as_the_learnings_file(project, args, monkeypatch):
    project.location.store_path.mkdir(parents=True)
    monkeypatch.setenv("EDITOR", "true")
    line = one_error_line(CliRunner().invoke(app, ["learnings", str(project.agent), *args]))
    assert line == f"error: {project.location.store_path}: is a directory, not a learnings file"


def test_a_directory_as_the_learnings_file_for_add(project):
    project.location.store_path.mkdir(parents=True)
    line = one_error_line(CliRunner().invoke(app, ["learnings", "add", str(project.agent), "Cite sources."]))
    assert line == f"error: {project.location.store_path}: is a directory, not a learnings file"


# --- permission denied ------------------------------------------------------------------------------------


def test_an_unreadable_store(project):
    project.seed(3)
    project.location.store_path.chmod(0)
    for args in (["learnings", str(project.agent)], ["learnings", "add", str(project.agent), "Cite sources."],
                 ["run", str(project.agent), "--model", f"replay:{REPLAY}"]):
        line = one_line(cli(*args, as_user=True))
        assert line.startswith(f"error: {project.location.store_path}: could not read the learnings file: "
                               "permission denied"), line


def test_an_unreadable_state_dir(project):
    project.seed(3)
    project.location.project_dir.chmod(0)
    try:
        for args in (["learnings", str(project.agent)], ["learnings", "add", str(project.agent), "Cite sources."],
                     ["run", str(project.agent), "--model", f"replay:{REPLAY}"], ["doctor", str(project.agent)],
                     ["learnings", "tidy", str(project.agent)], ["learnings", "undo", str(project.agent)]):
            line = one_line(cli(*args, as_user=True))
            assert "permission denied" in line and str(project.location.project_dir) in line, line
    finally:
        project.location.project_dir.chmod(0o755)  # so the temp dir can be removed


def test_an_unwritable_state_dir(project):
    data = Path(os.environ["AGENTUSE_DATA_DIR"])
    data.chmod(0o555)
    try:
        line = one_line(cli("learnings", "add", str(project.agent), "Cite sources.", as_user=True))
        assert line.startswith("error: permission denied writing ") and str(data) in line, line
    finally:
        data.chmod(0o755)


# --- the editor -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("editor", ["no-such-editor-agentuse", "/nonexistent/bin/vim", "'unbalanced"])
def test_a_missing_editor(project, monkeypatch, editor):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor)
    line = one_error_line(CliRunner().invoke(app, ["learnings", str(project.agent), "--edit"]))
    assert line.startswith(f"error: the editor {editor!r} ") and "set $VISUAL or $EDITOR" in line


# --- FIFOs and devices are refused before they are opened ------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("command", [["learnings", "{}"], ["learnings", "{}", "--path"], ["doctor", "{}"],
                                     ["run", "{}"], ["learnings", "add", "{}", "Cite sources."]])
def test_a_fifo_or_device_as_agent_file(fifo, kind, command):
    agent = str(fifo) if kind == "fifo" else "/dev/zero"
    line = one_line(cli(*(arg.format(agent) for arg in command)))
    what = "a named pipe (FIFO)" if kind == "fifo" else "a character device"
    assert line == f"error: {agent}: is {what}, not an agent file; agentuse reads only regular files"


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_device_as_replay_file(project, fifo, kind):
    replay = str(fifo) if kind == "fifo" else "/dev/zero"
    line = one_line(cli("run", str(project.agent), "--model", f"replay:{replay}"))
    assert line.startswith(f"error: {replay}: is a ") and "not a session log" in line


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_device_as_session(project, fifo, kind):
    session = str(fifo) if kind == "fifo" else "/dev/zero"
    line = one_line(cli("learnings", "capture", str(project.agent), "--session", session))
    assert line.startswith(f"error: {session}: is a ") and "not a session log" in line


# --- session logs that cannot be read ---------------------------------------------------------------------


def test_an_unreadable_session_log(project, tmp_path):
    log = tmp_path / "run.jsonl"
    shutil.copy(REPLAY, log)
    log.chmod(0)
    line = one_line(cli("learnings", "capture", str(project.agent), "--session", str(log), as_user=True))
    assert line == f"error: {log}: could not read the session log: permission denied; make it (and its folders) " \
                   "readable by you"


def test_a_session_log_with_no_readable_event(project, tmp_path):
    log = tmp_path / "run.jsonl"
    log.write_bytes(b"\x00\x01 not json\n{\"type\": \"nonsense\"}\n")
    result = CliRunner().invoke(app, ["learnings", "capture", str(project.agent), "--session", str(log)])
    line = one_error_line(result)
    assert line == f"error: session log {log} could not be read: it holds no session events (2 unreadable line(s))"
    assert "Extracted" not in result.stdout


# --- serve ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("port", ["99999", "-1"])
def test_serve_on_a_port_that_is_not_one(tmp_path, port):
    line = one_error_line(CliRunner().invoke(app, ["serve", "-C", str(tmp_path), "--port", port]))
    assert line == f"error: --port {port} is not a port: give a number from 1 to 65535 (default 8765)"


@pytest.mark.parametrize("editor", ["rm -f", "{mkdir}"])
def test_an_editor_that_leaves_no_file_where_the_copy_was(project, monkeypatch, tmp_path, editor):
    """The editor deleted the copy (or left a folder there): nothing to merge, so nothing is written."""
    project.seed(3)
    before = project.location.store_path.read_bytes()
    script = tmp_path / "mkdir.py"
    script.write_text("import os, sys\nos.remove(sys.argv[1])\nos.mkdir(sys.argv[1])\n")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor.format(mkdir=f"{sys.executable} {script}"))
    line = one_error_line(CliRunner().invoke(app, ["learnings", str(project.agent), "--edit"]))
    assert f"edits{os.sep}blog-writer." in line, line
    assert line.endswith(f"nothing was written to {project.location.store_path}"), line
    assert project.location.store_path.read_bytes() == before


def test_migrate_that_cannot_delete_an_original_says_so_in_one_line(tmp_path):
    root = tmp_path / "proj"
    (root / "old").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    agent = root / "old" / "blog.agentuse"
    agent.write_text("---\nmodel: anthropic:claude-sonnet-5\nlearning: true\n---\n\n# Blog\n\nWrite posts.\n")
    source = root / "old" / "blog.agentuse.learnings.md"
    source.write_bytes((Path(__file__).parents[2] / "examples" / "seeds" / "blog-writer.learnings.md").read_bytes())
    (root / "old").chmod(0o555)  # the original cannot be deleted from its folder
    try:
        result = cli("learnings", "migrate", str(agent), "--delete-source", as_user=True)
    finally:
        (root / "old").chmod(0o755)
    line = one_line(result)
    assert line.startswith(f"error: could not delete {source}: permission denied"), line
    assert source.exists() and "copied: " in result.stdout


# --- a file where the state directory keeps a folder -------------------------------------------------------


@pytest.mark.parametrize("folder,command", [
    ("edits", ["learnings", "{agent}", "--edit"]),
    ("archive", ["learnings", "discard", "{agent}", "{rule}"]),
    ("learnings", ["learnings", "discard", "{agent}", "{rule}"]),
    ("session", ["run", "{agent}", "--model", f"replay:{REPLAY}"]),
    ("effectiveness", ["learnings", "stats", "{agent}", "--rebuild"]),
])
def test_a_file_where_a_state_folder_belongs(project, monkeypatch, folder, command):
    doc = project.seed(3)
    monkeypatch.setenv("EDITOR", "true")
    blocker = project.location.project_dir / folder
    shutil.rmtree(blocker, ignore_errors=True)
    blocker.write_text("not a folder\n")
    args = [arg.format(agent=project.agent, rule=doc.learnings[0].id) for arg in command]
    line = one_error_line(CliRunner().invoke(app, args))
    assert line.startswith(f"error: {blocker}: is a file where agentuse keeps a folder"), line
    assert blocker.read_text() == "not a folder\n"


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_snapshot_manifest_that_is_not_a_file_is_never_opened(project, kind):
    """A FIFO in a manifest's place would block every command that lists snapshots (a device would be read
    without end); a folder there crashed them. Like a manifest that does not parse, it is not a snapshot."""
    project.seed(20)  # over the cap: the tidy-up has work to do, and leaves a snapshot
    assert CliRunner().invoke(app, ["learnings", "tidy", str(project.agent)]).exit_code == 0
    [manifest] = project.location.consolidations_dir.glob("*/*/manifest.json")
    manifest.unlink()
    manifest.mkdir() if kind == "folder" else os.mkfifo(manifest)
    line = one_line(cli("learnings", "undo", str(project.agent)))
    assert line.startswith("error: Nothing to undo"), line
    assert cli("learnings", str(project.agent), "--json").returncode == 0


def test_an_edit_left_by_a_killed_edit_is_named_by_the_next_one(project, monkeypatch):
    """A terminal closed while the editor was open kills agentuse before it merges: the copy holds what the
    person typed, and no error named it. The next --edit does, before it opens a fresh copy."""
    project.seed(3)
    left = project.location.project_dir / "edits" / "blog-writer.20261201T101500-ab12.learnings.md"
    left.parent.mkdir(parents=True)
    left.write_text("what the person typed\n")
    other = left.with_name("blog-writer-2.20261201T101500-ab12.learnings.md")  # another agent's: not named
    other.write_text("someone else's\n")
    monkeypatch.setenv("EDITOR", "true")
    result = CliRunner().invoke(app, ["learnings", str(project.agent), "--edit"])
    assert result.exit_code == 0, result.output
    assert f"an earlier edit was never saved: {left}" in result.stderr and str(other) not in result.stderr
    assert left.read_text() == "what the person typed\n"


@pytest.mark.parametrize("change", ["category", "token"])
def test_an_earlier_copy_that_differs_from_the_store_in_anything_typed_is_kept(project, monkeypatch, change):
    """An earlier copy the store already holds is removed (an edit killed after saving it); one that differs
    in anything a person types, however small, is what they typed and is kept and named."""
    project.seed(3)
    text = project.location.store_path.read_text(encoding="utf-8")
    typed = text.replace("### [tip]", "### [pattern]", 1) if change == "category" else \
        re.sub(r"(<!-- id:[^\n]*?) -->", r"\1 | mine:1 -->", text, count=1)  # a token this version does not know
    assert typed != text
    left = project.location.project_dir / "edits" / "blog-writer.20261201T101500-ab12.learnings.md"
    left.parent.mkdir(parents=True)
    left.write_text(typed, encoding="utf-8")
    same = left.with_name("blog-writer.20261201T101501-cd34.learnings.md")
    same.write_text(text, encoding="utf-8")
    monkeypatch.setenv("EDITOR", "true")
    result = CliRunner().invoke(app, ["learnings", str(project.agent), "--edit"])
    assert result.exit_code == 0, result.output
    assert f"an earlier edit was never saved: {left}" in result.stderr and left.read_text(encoding="utf-8") == typed
    assert f"removed {same}" in result.stderr and not same.exists()
