"""Read-only commands start fast: they import neither prefect nor anthropic (DESIGN: One composition)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
HEAVY = ("prefect", "anthropic", "httpx", "httpx2")

PROBE = """
import atexit, json, sys
def report():
    roots = sorted({m.split('.')[0] for m in sys.modules})
    sys.stderr.write('MODULES ' + json.dumps(roots) + '\\n')
atexit.register(report)
from agentuse.cli.app import main
sys.argv = ['agentuse', *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize(
    "args",
    [["learnings", "{agent}", "--path"], ["learnings", "{agent}", "--json"], ["learnings", "{agent}"],
     ["doctor", "{agent}"]],
    ids=["path", "json", "list", "doctor"],
)
def test_read_only_commands_import_no_heavy_modules(args, tmp_path):
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    argv = [a.format(agent=agent) for a in args]
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                            env=os.environ.copy(), timeout=120)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stderr.splitlines() if line.startswith("MODULES "))
    roots = set(json.loads(line.removeprefix("MODULES ")))
    assert not roots & set(HEAVY), sorted(roots & set(HEAVY))


@pytest.mark.parametrize(
    "args",
    [["learnings", "add", "{agent}", "Keep intros factual for informational posts"],
     ["learnings", "tidy", "{agent}", "--dry-run"],
     ["learnings", "capture", "{agent}", "--session", "{session}"],
     ["run", "{agent}", "--model", "replay:{session}"]],
    ids=["add", "tidy-dry-run", "capture", "run-and-capture"],
)
def test_write_commands_inline_import_no_prefect_nor_a_model_sdk(args, tmp_path):
    """No Prefect API configured: the pipelines run inline, and the offline evaluator needs no SDK
    (issue 14: one composition, a runner chosen once, a fast inline path)."""
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    (tmp_path / "posts").mkdir()
    # A copy: capture appends its result lines to the session log, which must not be the repository's example.
    session = tmp_path / "blog-writer-tool-error.jsonl"
    shutil.copy(EXAMPLES / "sessions" / "blog-writer-tool-error.jsonl", session)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    argv = [a.format(agent=agent, session=session) for a in args]
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ANTHROPIC_API_KEY")}
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=120)
    assert result.returncode == 0, (result.stdout, result.stderr)
    line = next(line for line in result.stderr.splitlines() if line.startswith("MODULES "))
    roots = set(json.loads(line.removeprefix("MODULES ")))
    assert not roots & set(HEAVY), (sorted(roots & set(HEAVY)), result.stdout, result.stderr)
