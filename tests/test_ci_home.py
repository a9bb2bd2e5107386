"""A job with no home folder: a container started as a user id the image's /etc/passwd does not list
(docker run --user 1001, a Kubernetes pod with a random uid) with HOME unset, or HOME set to nothing. The
state directory's default lives under the home folder; everything else must not need one."""

from __future__ import annotations

import pwd
import shutil
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture
def no_home(monkeypatch):
    """HOME unset, and this user id unknown to the password database (as in such a container)."""
    monkeypatch.delenv("HOME", raising=False)

    def unknown(uid):
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", unknown)


@pytest.fixture
def agent(tmp_path) -> Path:
    path = tmp_path / "checkout" / "blog-writer.agentuse"
    path.parent.mkdir()
    shutil.copy(EXAMPLES / "blog-writer.agentuse", path)
    return path


@pytest.mark.parametrize("command", [["doctor"], ["learnings"], ["learnings", "--json"]])
def test_with_the_state_directory_set_no_home_folder_is_needed(no_home, agent, invoke, command):
    done = invoke(command[0], agent, *command[1:])
    assert "learnings file:" in done.stdout or '"file"' in done.stdout or "No learnings yet" in done.stdout


def test_without_a_home_folder_the_default_state_directory_is_one_line_naming_the_fix(no_home, monkeypatch, agent,
                                                                                       invoke):
    monkeypatch.delenv("AGENTUSE_DATA_DIR")
    done = invoke("learnings", agent, "--path", code=1)
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert "AGENTUSE_DATA_DIR" in done.stderr and "home folder" in done.stderr


def test_doctor_on_a_bedrock_agent_needs_no_home_folder(no_home, agent, invoke, monkeypatch):
    """The AWS chain's files default to ~/.aws: with no home folder there are none, which is no error."""
    monkeypatch.delenv("AWS_SHARED_CREDENTIALS_FILE")
    monkeypatch.delenv("AWS_CONFIG_FILE")
    agent.write_text(agent.read_text().replace("anthropic:claude-sonnet-5", "bedrock:anthropic.claude-test"))
    done = invoke("doctor", agent)
    assert "no AWS credentials found" in done.stdout


def test_a_state_directory_that_is_a_dangling_link_is_named(tmp_path, monkeypatch, agent, invoke):
    """A job that links its state directory to a cache folder not restored yet: every write said
    '<state>/project/<hash>/learnings: is a file where agentuse keeps a folder', naming a folder that is not
    a file and not the link to fix."""
    link = tmp_path / "state"
    link.symlink_to(tmp_path / "cache" / "agentuse")
    monkeypatch.setenv("AGENTUSE_DATA_DIR", str(link))
    done = invoke("learnings", "add", agent, "Keep intros short", code=1)
    [error] = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert "Traceback" not in done.stderr
    assert f"AGENTUSE_DATA_DIR: {link} is a symbolic link to {tmp_path / 'cache' / 'agentuse'}" in done.stderr
    assert "which does not exist" in done.stderr
