"""A project checked out at a path with spaces (a CI workspace named after a branch, "My Drive", a home
folder): every command a line tells the person to run works when pasted into a shell as printed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import session_id_in

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AGENTUSE_BIN = str(Path(sys.executable).parent)


@pytest.fixture
def spaced(tmp_path, monkeypatch, offline_helper) -> Path:
    root = tmp_path / "ci work" / "my project"
    root.mkdir(parents=True)
    shutil.copytree(EXAMPLES / "sessions", root / "sessions")
    shutil.copy(EXAMPLES / "blog-writer.agentuse", root / "blog writer.agentuse")
    shutil.copy(EXAMPLES / "blog-writer.agentuse", root / "other one.agentuse")
    (root / "posts").mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def suggested(line: str) -> str:
    """The command a line suggests: from `agentuse` to the end of the line or the closing parenthesis."""
    found = re.search(r"(agentuse (?:learnings|sessions) .+?)(?:\)\.?)?$", line.strip())
    assert found, line
    return found.group(1)


def in_a_shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{AGENTUSE_BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["sh", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def test_the_capture_hint_for_another_agent_s_session_runs_as_printed(spaced, invoke):
    recording = "sessions/blog-writer-tool-error.jsonl"  # relative to the agent file
    sid = session_id_in(invoke("run", spaced / "blog writer.agentuse", "--model", f"replay:{recording}").stdout)
    invoke("sessions", "resume", sid, "--approve")
    refused = invoke("learnings", "capture", spaced / "other one.agentuse", "--session", sid, code=1)
    done = in_a_shell(suggested(refused.stderr), spaced)
    assert done.returncode == 0, (suggested(refused.stderr), done.stderr)


def test_the_restore_hint_after_an_edit_runs_as_printed(spaced, invoke, monkeypatch, tmp_path):
    agent = spaced / "blog writer.agentuse"
    invoke("learnings", "add", agent, "Keep intros under 50 words")
    script = tmp_path / "empty.py"
    script.write_text("import sys\nopen(sys.argv[1], 'w').write('')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    edited = invoke("learnings", "./blog writer.agentuse", "--edit").stdout
    rule_id = re.search(r"id:([0-9a-f]{8})", edited).group(1)
    hint = next(line for line in edited.splitlines() if line.startswith("Put one back with:"))
    done = in_a_shell(suggested(hint).replace("<id>", rule_id), spaced)
    assert done.returncode == 0, (hint, done.stderr)
    assert "Keep intros under 50 words" in invoke("learnings", agent).stdout


def test_a_recording_at_a_path_with_spaces_replays(spaced, invoke):
    """`--model replay:$GITHUB_WORKSPACE/sessions/x.jsonl`: the recording is a file, and its path may hold
    spaces; a model name with one is a typo, a path with one is not (it was refused as 'not provider:model')."""
    recording = spaced / "sessions" / "blog-writer-tool-error.jsonl"
    ran = invoke("run", spaced / "blog writer.agentuse", "--model", f"replay:{recording}", "--json")
    assert '"status": "awaiting_review"' in ran.stdout
