"""Fixtures the reliability tests share: one agent in a throw-away project, its store, its worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.store_format import StoreDoc

from .stores import AGENT_TEXT, make_rules

WORKER = Path(__file__).with_name("worker.py")


@dataclass
class Project:
    root: Path
    agent: Path
    location: store.AgentLocation

    @property
    def ih(self) -> str:
        return agent_hash(load_agent(self.agent))

    def seed(self, n: int, *, seed: int = 1, **kw) -> StoreDoc:
        doc = StoreDoc(name=self.location.name, agent=self.location.breadcrumb,
                       learnings=make_rules(n, seed=seed, ih=self.ih, **kw))
        store.save(self.location, doc)
        return doc


@pytest.fixture
def project(tmp_path) -> Project:
    root = tmp_path / "proj"
    agent = root / "agents" / "blog-writer.agentuse"
    agent.parent.mkdir(parents=True)
    agent.write_text(AGENT_TEXT, encoding="utf-8")
    return Project(root=root, agent=agent, location=store.locate(agent))


def start_worker(*args: str, **popen) -> subprocess.Popen:
    """A worker in its own interpreter (tests/reliability/worker.py): the real thing for locks and kills."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.Popen([sys.executable, str(WORKER), *args], env=env, **popen)


class ForkServer:
    """tests/reliability/worker.py, started once per test that needs it; `ask` sends one command."""

    def __init__(self) -> None:
        self.process = start_worker(stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        assert json.loads(self.process.stdout.readline()) == {"ready": True}

    def ask(self, command: dict) -> dict:
        # One server serves every test; each test has its own state dir (the autouse fixture sets it).
        command = {**command, "data_dir": os.environ["AGENTUSE_DATA_DIR"]}
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the fork server died (exit {self.process.poll()})"
        return json.loads(line)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
            self.process.stdin.close()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()  # only the server this fixture started, by its own handle
                self.process.wait()
        self.process.stdout.close()


@pytest.fixture(scope="session")
def fork_server():
    server = ForkServer()
    try:
        yield server
    finally:
        server.close()
