"""Read-only commands start fast: they import neither prefect nor anthropic (DESIGN: One composition), and
each command imports only its own module (cli/app.py names them; issue 14 item 6)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
HEAVY = ("prefect", "anthropic", "httpx", "httpx2", "botocore")

PROBE = """
import atexit, json, sys
def report():
    sys.stderr.write('MODULES ' + json.dumps(sorted(sys.modules)) + '\\n')
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
    roots = {name.split(".")[0] for name in _imported(result.stderr)}
    assert not roots & set(HEAVY), sorted(roots & set(HEAVY))


def _imported(stderr: str) -> set[str]:
    line = next(line for line in stderr.splitlines() if line.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES ")))


def _probe(argv: list[str], cwd: Path) -> set[str]:
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                            env=os.environ.copy(), cwd=cwd, timeout=120)
    assert result.returncode == 0, result.stderr
    return {name for name in _imported(result.stderr) if name.startswith("agentuse.")}


# What the entry point itself needs: the registry, the error handler and the escaping of its message, and
# the listener for what a crash recovery did.
ENTRY = {"agentuse.cli", "agentuse.cli.app", "agentuse.cli.lazy", "agentuse.core", "agentuse.core.errors",
         "agentuse.core.stop_signals", "agentuse.core.terminal_text", "agentuse.core.recovered"}
COMMAND_MODULES = {"agentuse.cli.learnings", "agentuse.cli.capture", "agentuse.cli.tidy", "agentuse.cli.doctor",
                   "agentuse.cli.run", "agentuse.cli.sessions", "agentuse.cli.serve", "agentuse.cli.deploy",
                   "agentuse.cli.demo", "agentuse.cli.provider"}


def test_version_imports_nothing_but_the_entry_point(tmp_path):
    assert _probe(["--version"], tmp_path) == ENTRY


def test_help_imports_the_command_modules_and_no_domain_module(tmp_path):
    """The page lists every command's help, so their modules load; none of them imports a model at import."""
    imported = _probe(["--help"], tmp_path)
    assert imported - ENTRY - COMMAND_MODULES <= {"agentuse.cli.common"}, sorted(imported - ENTRY - COMMAND_MODULES)


@pytest.mark.parametrize(
    "args, own",
    [(["learnings", "{agent}", "--path"], {"agentuse.cli.learnings"}),
     (["learnings", "{agent}", "--json"], {"agentuse.cli.learnings"}),
     (["doctor", "{agent}"], {"agentuse.cli.doctor"})],
    ids=["path", "json", "doctor"],
)
def test_a_command_imports_its_own_module_and_no_pipeline(args, own, tmp_path):
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    imported = _probe([a.format(agent=agent) for a in args], tmp_path)
    assert imported & COMMAND_MODULES == own
    layers = {name.split(".")[1] for name in imported}
    assert layers <= {"cli", "core"}, sorted(layers)  # no flows, tasks or runtime


def test_resume_with_a_note_inline_imports_no_prefect_nor_a_model_sdk(tmp_path):
    """The Learn checkbox from a terminal: approving a gated run with a note saves it and captures the run."""
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ANTHROPIC_API_KEY")}
    recording = EXAMPLES / "sessions" / "blog-writer-tool-error.jsonl"
    ran = subprocess.run([sys.executable, "-c", PROBE, "run", str(agent), "--model", f"replay:{recording}", "--json"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert ran.returncode == 0, (ran.stdout, ran.stderr)
    session = json.loads(ran.stdout)["session"]
    result = subprocess.run([sys.executable, "-c", PROBE, "sessions", "resume", session, "--approve",
                             "--remember", "Always include source links before publishing."],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Saved" in result.stdout and "Extracted 1 learning(s)" in result.stdout, result.stdout
    assert "***" not in result.stdout  # the learnings file's path is printed whole, never taken for a secret
    roots = {name.split(".")[0] for name in _imported(result.stderr)}
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
    roots = {name.split(".")[0] for name in _imported(result.stderr)}
    assert not roots & set(HEAVY), (sorted(roots & set(HEAVY)), result.stdout, result.stderr)
    assert "filelock" not in roots  # every write locks, with one flock of core/file_lock.py


@pytest.mark.parametrize(
    "args",
    [["learnings", "{agent}", "--path"], ["learnings", "{agent}", "--json"], ["doctor", "{agent}"]],
    ids=["path", "json", "doctor"],
)
def test_read_only_commands_in_a_repository_import_neither_gitpython_nor_a_lock(args, tmp_path):
    """The git root comes from reading .git (core/git_root.py), and a read-only command takes no lock
    (issue 17: GitPython alone was ~60 ms of `learnings --path`)."""
    agent = tmp_path / "agents" / "blog-writer.agentuse"
    agent.parent.mkdir()
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    result = subprocess.run([sys.executable, "-c", PROBE, *[a.format(agent=agent) for a in args]],
                            capture_output=True, text=True, env=os.environ.copy(), cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    imported = _imported(result.stderr)
    roots = {name.split(".")[0] for name in imported}
    assert not roots & {"git", "gitdb", "filelock"}, sorted(roots & {"git", "gitdb", "filelock"})
    assert "agentuse.core.file_lock" not in imported


def test_learnings_path_imports_only_where_stores_live(tmp_path):
    """--path needs the location of the store, not its format nor its pydantic models."""
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    imported = _probe(["learnings", str(agent), "--path"], tmp_path)
    allowed = ENTRY | {"agentuse.cli.learnings", "agentuse.cli.common", "agentuse.core.location",
                       "agentuse.core.git_root", "agentuse.core.discovery"}
    assert imported <= allowed, sorted(imported - allowed)


def test_doctor_on_a_bedrock_agent_imports_no_botocore(tmp_path):
    """doctor says where Bedrock credentials come from without the SDK (core/bedrock.credential_source)."""
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: bedrock:amazon.nova-pro-v1:0\nlearning: true\n---\n\nWrite.\n")
    env = {**os.environ, "AWS_PROFILE": "work", "AWS_REGION": "us-east-1"}
    result = subprocess.run([sys.executable, "-c", PROBE, "doctor", str(agent)], capture_output=True, text=True,
                            env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "AWS credentials from AWS_PROFILE" in result.stdout
    roots = {name.split(".")[0] for name in _imported(result.stderr)}
    assert not roots & set(HEAVY), sorted(roots & set(HEAVY))


def test_tidy_dry_run_on_the_offline_evaluator_imports_no_thread_pool_nor_the_cap(tmp_path):
    """The offline evaluator's calls run on the calling thread (flows/runner.py fan_out), and a tidy-up
    never places a capture's records nor asks capture's questions: neither the pool (nor the logging it
    imports), core/cap.py nor capture's messages (core/helper/protocol_capture.py) load."""
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "ANTHROPIC_API_KEY")}
    for note in ("Keep intros factual for informational posts",) * 2:  # a repeat: a rewrite to plan
        subprocess.run([sys.executable, "-c", PROBE, "learnings", "add", str(agent), note], check=True,
                       capture_output=True, env=env, cwd=tmp_path, timeout=120)
    result = subprocess.run([sys.executable, "-c", PROBE, "learnings", "tidy", str(agent), "--dry-run"],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, (result.stdout, result.stderr)
    imported = _imported(result.stderr)
    assert "agentuse.core.helper.offline_plan" in imported  # the evaluator did plan the rules
    unwanted = {"concurrent.futures", "logging", "agentuse.core.cap", "agentuse.core.helper.protocol_capture", "yaml"}
    assert not imported & unwanted, sorted(imported & unwanted)
