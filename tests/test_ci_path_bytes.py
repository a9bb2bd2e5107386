"""A checkout whose folder name is not UTF-8 (a Latin-1 'café' from an old archive or a share mounted with
iso8859-1; the file system hands it to Python as surrogate escapes). The project hash is a digest of the
git root's bytes, so every command could work out where the store is; the session log is UTF-8 text."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def agentuse(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from agentuse.cli.app import main; main()", *args], cwd=cwd,
                          env=os.environ.copy(), stdin=subprocess.DEVNULL, capture_output=True, timeout=120)


def latin1_checkout(tmp_path: Path) -> str:
    root = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"caf\xe9"))
    os.mkdir(root)
    shutil.copy(EXAMPLES / "blog-writer.agentuse", os.path.join(root, "blog-writer.agentuse"))
    shutil.copytree(EXAMPLES / "sessions", os.path.join(root, "sessions"))
    subprocess.run(["git", "init", "-q", root], check=True)
    return root


def test_the_store_of_an_agent_in_a_folder_whose_name_is_not_utf8_is_found(tmp_path, data_dir):
    root = latin1_checkout(tmp_path)
    for command in (["learnings", "blog-writer.agentuse", "--path"], ["learnings", "blog-writer.agentuse"],
                    ["doctor", "blog-writer.agentuse"], ["learnings", "add", "blog-writer.agentuse", "Keep intros short"]):
        done = agentuse(*command, cwd=root)
        assert done.returncode == 0 and b"Traceback" not in done.stderr, (command, done.stderr[-2000:])


def test_a_run_there_is_refused_in_one_line_before_a_session_is_recorded(tmp_path, data_dir):
    root = latin1_checkout(tmp_path)
    done = agentuse("run", "blog-writer.agentuse", "--model", "replay:sessions/blog-writer-tool-error.jsonl", cwd=root)
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.count(b"\n") == 1 and done.stderr.startswith(b"error: "), done.stderr[-2000:]
    assert b"not UTF-8" in done.stderr and b"rename" in done.stderr
    assert not list(data_dir.rglob("*.jsonl")), "an empty session log was left, listed as crashed"
