"""Commands as a CI job or a cron line runs them: stdin closed or /dev/null, stdout a pipe, a minimal
environment. What would wait for a person fails in one line instead, and what the spec says a command
prints is still printed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def ci_env(**extra: str) -> dict[str, str]:
    """What a CI job hands a command: no editor, no terminal type worth the name, the C locale."""
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/"), "CI": "true", "TERM": "dumb",
           "NO_COLOR": "1", "LANG": "C", "LC_ALL": "C"}
    for name in ("AGENTUSE_DATA_DIR", "AGENTUSE_CONFIG_DIR", "PREFECT_HOME"):
        env[name] = os.environ[name]
    return {**env, **extra}


def agentuse(*args, env: dict[str, str], cwd: Path, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from agentuse.cli.app import main; main()", *map(str, args)],
                          env=env, cwd=cwd, stdin=stdin, capture_output=True, text=True, timeout=120)


def project(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    root.mkdir()
    shutil.copy(EXAMPLES / "blog-writer.agentuse", root)
    return root / "blog-writer.agentuse"


def test_edit_with_no_terminal_and_no_editor_set_fails_in_one_line(tmp_path, data_dir):
    """The default editor (vi) needs a terminal: run with stdin at /dev/null it painted its screen into the
    job's log as escape sequences, and with stdin an open pipe it waited for keys that never come."""
    agent = project(tmp_path)
    done = agentuse("learnings", agent, "--edit", env=ci_env(), cwd=agent.parent)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert "terminal" in done.stderr and "$EDITOR" in done.stderr
    assert not list(data_dir.rglob("edits/*")), "a copy to edit was made and left behind"


def test_edit_with_no_terminal_runs_the_editor_the_job_names(tmp_path, data_dir):
    """A scripted edit (EDITOR set to a command that edits the file it is given) is the job's own choice."""
    agent = project(tmp_path)
    script = tmp_path / "editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'a').write('### [tip] Keep intros short\\n"
                      "<!-- id:0123abcd | src:manual | ch:corrections | 2026-01-02 -->\\nKeep intros short.\\n')\n")
    done = agentuse("learnings", agent, "--edit", env=ci_env(EDITOR=f"{sys.executable} {script}"), cwd=agent.parent)
    assert done.returncode == 0, done.stderr
    listed = agentuse("learnings", agent, env=ci_env(), cwd=agent.parent)
    assert "Keep intros short" in listed.stdout
