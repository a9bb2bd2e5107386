"""Killed at EVERY file-system operation of an undo and of a tidy-up that graduates rules, not at random ones.

The fork server (tests/reliability/worker.py) counts each operation that changes a file (create, open for
writing, fsync, rename, mkdir, unlink, rmtree) and SIGKILLs its child just before the k-th. An uninterrupted
run gives the count n; each test then kills at k = 0 .. n-1 in turn, runs a next command, and checks what
any reader finds: both files before, or both after, never one of each.
"""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

import pytest
from tidy_scenario import install

from agentuse.core import snapshots, store
from agentuse.core.learning import State
from agentuse.core.learned_block import read_block
from agentuse.core.store_format import parse

from .test_crashes import Files


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


class Disk:
    """Everything an agent's tidy-up, undo and their recovery touch: the three files and the snapshots."""

    def __init__(self, location: store.AgentLocation) -> None:
        self.location = location
        self.files = Files.of(location)
        self.saved = location.project_dir.parent / f"{location.project_dir.name}.consolidations"
        shutil.rmtree(self.saved, ignore_errors=True)
        if location.consolidations_dir.exists():
            shutil.copytree(location.consolidations_dir, self.saved)

    def put_back(self) -> None:
        location = self.location
        for path, data in ((location.agent_path, self.files.agent), (location.store_path, self.files.store),
                           (location.archive_path, self.files.archive)):
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)
        shutil.rmtree(location.consolidations_dir, ignore_errors=True)
        if self.saved.exists():
            shutil.copytree(self.saved, location.consolidations_dir)
        for folder in (location.store_path.parent, location.agent_path.parent, location.archive_path.parent):
            for temp in folder.glob(".*.tmp") if folder.exists() else []:
                temp.unlink()  # a killed writer's temp file: swept once stale by a later write; here, now


def _calibrate(fork_server, scenario: str, config: dict) -> list[str]:
    answer = fork_server.ask({"cmd": "trial", "scenario": scenario, "config": config})
    assert answer["exit"] == 0, answer
    return answer["trace"]


def _kill(fork_server, scenario: str, config: dict, k: int, trace: list[str]) -> str:
    answer = fork_server.ask({"cmd": "trial", "scenario": scenario, "config": config, "kill_at": k})
    assert answer.get("error") is None, answer
    assert answer["signal"] == signal.SIGKILL, (k, trace[k], answer)
    return f"killed before operation {k} of {len(trace)} ({trace[k].rsplit('/', 1)[-1]})"


def _next_command(cli, agent: Path, k: int) -> None:
    """A different command after each kill: every one settles an interrupted commit or undo first."""
    commands = [("learnings", agent, "--json"), ("doctor", agent), ("learnings", agent)]
    cli(*commands[k % len(commands)])


def _graduated_absent(location: store.AgentLocation) -> list[str]:
    """Rules the store calls graduated that the agent file's block does not hold: they reach no run."""
    block = {rule.text for rule in read_block(location.agent_path.read_text(encoding="utf-8")) or []}
    doc = parse(location.store_path.read_text(encoding="utf-8"))
    return [rule.id for rule in doc.learnings if rule.state is State.graduated and rule.text not in block]


@pytest.fixture
def tidied(fork_server, tmp_path):
    """The spec's tidy-up (9 rules graduate) done once: the files before it, and after it with its snapshot."""
    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    before = Disk(location)
    _calibrate(fork_server, "tidy", {"agent": str(agent)})
    after = Disk(location)
    assert after.files.agent != before.files.agent and after.files.store != before.files.store
    return agent, location, before, after


def test_an_undo_killed_at_any_operation_is_finished_by_the_next_command(fork_server, tidied, cli):
    agent, location, before, after = tidied
    _calibrate(fork_server, "undo", {"agent": str(agent)})
    after.put_back()
    trace = _calibrate(fork_server, "undo", {"agent": str(agent)})
    assert Files.of(location) == before.files, "an uninterrupted undo restores the files before the tidy-up"
    problems = []
    for k in range(len(trace)):
        after.put_back()
        trial = _kill(fork_server, "undo", {"agent": str(agent)}, k, trace)
        _next_command(cli, agent, k)
        now = Files.of(location)
        names = [name for name, a, b in zip(("agent file", "store", "archive"),
                                            (now.agent, now.store, now.archive),
                                            (before.files.agent, before.files.store, before.files.archive))
                 if a != b]
        untouched = now == after.files
        if names and not untouched:
            problems.append(f"{trial}: {', '.join(names)} not as before the tidy-up, nor all as after it")
        if absent := _graduated_absent(location):
            problems.append(f"{trial}: {len(absent)} graduated rule(s) are in the store but not the block")
        second = cli("learnings", "undo", agent, code=0 if untouched else 1)
        expected = "Undid the tidy-up" if untouched else "Nothing to undo"
        if expected not in second.output:
            problems.append(f"{trial}: the next undo said {second.output.strip()!r}")
    assert not problems, f"{len(problems)} of {len(trace)} kill points:\n" + "\n".join(problems)


def test_a_graduating_tidy_up_killed_at_any_operation_leaves_both_files_before_or_after(fork_server, tmp_path, cli):
    agent = install(tmp_path / "proj", store.locate)
    location = store.locate(agent)
    before = Disk(location)
    _calibrate(fork_server, "tidy", {"agent": str(agent)})
    before.put_back()  # counted from the state each trial starts from
    trace = _calibrate(fork_server, "tidy", {"agent": str(agent)})
    result = Files.of(location)
    assert _graduated_absent(location) == [] and b"state:graduated" in result.store
    problems = []
    for k in range(len(trace)):
        before.put_back()
        trial = _kill(fork_server, "tidy", {"agent": str(agent)}, k, trace)
        _next_command(cli, agent, k)
        now = Files.of(location)
        pair = ("before" if now.agent == before.files.agent else "after" if now.agent == result.agent else "neither",
                "before" if now.store == before.files.store else "after" if now.store == result.store else "neither")
        if pair[0] != pair[1] or "neither" in pair:
            problems.append(f"{trial}: agent file {pair[0]}, store {pair[1]}")
        if pair == ("before", "before") and now.archive != before.files.archive:
            problems.append(f"{trial}: rolled back, but the archive keeps what the tidy-up retired")
        if absent := _graduated_absent(location):
            problems.append(f"{trial}: {len(absent)} graduated rule(s) are in the store but not the block")
    assert not problems, f"{len(problems)} of {len(trace)} kill points:\n" + "\n".join(problems)
