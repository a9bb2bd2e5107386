"""What a command the model runs is given of agentuse's environment: everything but the credentials.

Through `agentuse run` against the fake Messages API over HTTP: a scripted `env` must not show the provider
key (or another secret-named variable) in the tool result the model is sent next, the session log, or what
`sessions show --json` prints; the agent file's `shell_env` lets a named variable through to the command,
never its value into what the model or the log sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakes import text, tool_use, session_id_in

pytestmark = pytest.mark.usefixtures("offline_helper")

KEY = "sk-ant-api03-Zq7Xw2Lp9Vt4Mk8Rn3Bc6Hy1Dg5Fj0Ks"
DEPLOY = "dpl_9fKq2Lm7Xw3Zr8Tn4Vb6Yc1Hd5Gs0Ja"

AGENT = """---
model: anthropic:claude-test
{extra}---

# Shell user

Run the command you are asked to.
"""


@pytest.fixture
def keyed(cli, fake_anthropic, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("DEPLOY_TOKEN", DEPLOY)
    monkeypatch.setenv("AGENTUSE_TEST_VISIBLE", "plain-value")
    return cli


def _agent(tmp_path: Path, extra: str = "") -> Path:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    path = root / "shell.agentuse"
    path.write_text(AGENT.format(extra=extra))
    return path


def _tool_result(request) -> str:
    """The tool result the model is sent back in this request."""
    for message in request.body["messages"]:
        if isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block["content"]
                    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    raise AssertionError("no tool_result in the request")


def _session_log(data_dir: Path, sid: str) -> str:
    (path,) = [p for p in data_dir.rglob(f"{sid}*.jsonl")]
    return path.read_text()


def _run(keyed, fake_anthropic, agent: Path, command: str):
    fake_anthropic.script(tool_use("run_shell", {"command": command}), text("done"))
    result = keyed("run", str(agent), "Show the environment")
    return session_id_in(result.stdout)


def test_env_shows_no_provider_key_nor_secret_named_variable(keyed, fake_anthropic, tmp_path, data_dir):
    sid = _run(keyed, fake_anthropic, _agent(tmp_path), "env")
    sent = _tool_result(fake_anthropic.requests[1])
    assert "AGENTUSE_TEST_VISIBLE=plain-value" in sent  # the command ran and saw the ordinary environment
    assert "ANTHROPIC_API_KEY" not in sent and "DEPLOY_TOKEN" not in sent
    assert KEY not in json.dumps(fake_anthropic.requests[1].body) and DEPLOY not in json.dumps(fake_anthropic.requests[1].body)
    log = _session_log(data_dir, sid)
    assert KEY not in log and DEPLOY not in log
    shown = keyed("sessions", "show", sid, "--json").stdout
    assert KEY not in shown and DEPLOY not in shown


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_the_parent_process_environment_read_from_proc_is_masked(fake_anthropic, tmp_path, data_dir):
    # The shell's parent is agentuse itself, whose environment holds the key: a command can read it there.
    # In a process of its own, so /proc shows the environment it was started with.
    fake_anthropic.script(tool_use("run_shell", {"command": "tr '\\0' '\\n' < /proc/$PPID/environ; echo END"}),
                          text("done"))
    env = {**os.environ, **fake_anthropic.env(KEY), "DEPLOY_TOKEN": DEPLOY}
    run = subprocess.run([sys.executable, "-c", "from agentuse.cli.app import main; main()", "run", str(_agent(tmp_path)), "Show it"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    sent = _tool_result(fake_anthropic.requests[1])
    assert sent.rstrip().endswith("END") and "ANTHROPIC_API_KEY=***" in sent
    assert KEY not in sent and DEPLOY not in sent
    assert KEY not in _session_log(data_dir, session_id_in(run.stdout))


def test_shell_env_lets_a_named_variable_through_but_not_its_value_into_the_log(keyed, fake_anthropic, tmp_path,
                                                                                 data_dir):
    agent = _agent(tmp_path, "shell_env: [DEPLOY_TOKEN]\n")
    sid = _run(keyed, fake_anthropic, agent, f'test ${{#DEPLOY_TOKEN}} = {len(DEPLOY)} && echo "given $DEPLOY_TOKEN"')
    sent = _tool_result(fake_anthropic.requests[1])
    assert sent.startswith("given ***")  # the command had it; what it printed of it is masked
    assert DEPLOY not in json.dumps(fake_anthropic.requests[1].body) and DEPLOY not in _session_log(data_dir, sid)
    assert "ANTHROPIC_API_KEY" not in _run_env(keyed, fake_anthropic, agent)


def _run_env(keyed, fake_anthropic, agent: Path) -> str:
    fake_anthropic.reset()
    _run(keyed, fake_anthropic, agent, "env")
    return _tool_result(fake_anthropic.requests[1])


@pytest.mark.parametrize("value, said", [
    ("GH_TOKEN", "shell_env: must be a list of environment variable names, e.g. [GH_TOKEN]"),
    ("[GH_TOKEN, 'not a name']", "shell_env: 'not a name' is not an environment variable name"),
])
def test_a_bad_shell_env_is_one_line(keyed, tmp_path, value, said):
    agent = _agent(tmp_path, f"shell_env: {value}\n")
    result = keyed("run", str(agent), "x", code=1)
    assert said in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_revision_runs_its_commands_without_the_key_too(keyed, fake_anthropic, tmp_path, data_dir):
    agent = _agent(tmp_path, "approval: true\n")
    fake_anthropic.script(text("first draft"), tool_use("run_shell", {"command": "env"}), text("revised"))
    sid = session_id_in(keyed("run", str(agent), "Draft").stdout)
    keyed("sessions", "resume", sid, "--comment", "Check the environment first")
    sent = _tool_result(fake_anthropic.requests[2])
    assert "AGENTUSE_TEST_VISIBLE=plain-value" in sent and "ANTHROPIC_API_KEY" not in sent
    assert KEY not in _session_log(data_dir, sid)


def test_a_file_holding_a_masked_value_is_not_overwritten_with_the_mask(keyed, fake_anthropic, tmp_path):
    # read_file shows the key as ***: a model writing back what it read would replace the key with ***.
    agent = _agent(tmp_path)
    env_file = agent.parent / ".env"
    env_file.write_text(f"ANTHROPIC_API_KEY={KEY}\nDEBUG=0\n")
    fake_anthropic.script(tool_use("read_file", {"path": ".env"}),
                          tool_use("write_file", {"path": ".env", "content": "ANTHROPIC_API_KEY=***\nDEBUG=1\n"}),
                          text("done"))
    keyed("run", str(agent), "Turn debugging on")
    assert _tool_result(fake_anthropic.requests[1]) == "ANTHROPIC_API_KEY=***\nDEBUG=0\n"
    assert env_file.read_text() == f"ANTHROPIC_API_KEY={KEY}\nDEBUG=0\n"
    refused = json.dumps(fake_anthropic.requests[2].body["messages"][-1])
    assert "holds a credential the tools show as ***" in refused


def test_a_registered_endpoints_key_variable_is_withheld_whatever_its_name(invoke, fake_openai, tmp_path,
                                                                           monkeypatch):
    # GPU_BOX_CREDS names no secret word a name check knows; it is the key variable this run's model reads.
    invoke("provider", "add", "gpu-box", "--url", f"{fake_openai.url}/v1", "--key-env", "GPU_BOX_CREDS")
    monkeypatch.setenv("GPU_BOX_CREDS", "plainpassphrase")
    agent = tmp_path / "a.agentuse"
    agent.write_text("---\nmodel: gpu-box:llama\n---\n\nRun what you are asked to.\n")
    fake_openai.script(tool_use("run_shell", {"command": "env"}), text("done"))
    invoke("run", agent, "go")
    sent = json.dumps(fake_openai.requests[1].body["messages"])
    assert "GPU_BOX_CREDS" not in sent and "plainpassphrase" not in sent


def test_paths_are_never_withheld_though_a_segment_looks_random(keyed, fake_anthropic, tmp_path, monkeypatch):
    # A Nix PATH holds store hashes and a macOS TMPDIR a random folder name: core/redact masks such segments
    # in text it shows, but a command without PATH finds no program at all.
    nix = "/nix/store/3k9d5m2f8h1gq1x7bq3k9d5m2f8h1g00-bash-5.2/bin"
    monkeypatch.setenv("PATH", f"{nix}:{os.environ['PATH']}")
    monkeypatch.setenv("TMPDIR", str(tmp_path / "q1" / "x7bq3k9d5m2f8h1g0000gn" / "T"))
    _run(keyed, fake_anthropic, _agent(tmp_path), "echo \"$PATH\"; echo \"$TMPDIR\"")
    sent = _tool_result(fake_anthropic.requests[1])
    assert sent.splitlines() == [os.environ["PATH"], os.environ["TMPDIR"]]
