"""`learnings discard` and `learnings restore` killed at EVERY file-system operation, then run again.

Each writes two files, the archive and the store, in the order that leaves a rule in both rather than in
neither (discard archives first, restore writes the store first). Whatever operation the kill lands
before, the same command run again must finish the move: the rule in exactly one of the two files, once.
"""

from __future__ import annotations

import signal

import pytest

from agentuse.core import store
from agentuse.core.learning import State
from agentuse.core.store_format import parse


def _ids(path) -> list[str]:
    return [r.id for r in parse(path.read_text(), include_retired=True).learnings] if path.exists() else []


@pytest.fixture
def seeded(project):
    doc = project.seed(6, states=False)
    rule = next(r for r in doc.learnings if r.is_human and r.state is State.active)
    return project, rule.id


def _put_back(location: store.AgentLocation, saved: dict) -> None:
    for path, data in saved.items():
        if data is None:
            path.unlink(missing_ok=True)
        else:
            path.write_bytes(data)
    for folder in (location.store_path.parent, location.archive_path.parent):
        for temp in folder.glob(".*.tmp") if folder.exists() else []:
            temp.unlink()  # a killed writer's temp file


def _trials(fork_server, location, scenario: str, config: dict, saved: dict) -> tuple[list[str], int]:
    for _ in range(2):  # the first run creates lock files the later ones find: count from the second
        _put_back(location, saved)
        calibration = fork_server.ask({"cmd": "trial", "scenario": scenario, "config": config})
        assert calibration["exit"] == 0, calibration
    trace, rule, problems = calibration["trace"], config["rule"], []
    for k in range(len(trace)):
        _put_back(location, saved)
        killed = fork_server.ask({"cmd": "trial", "scenario": scenario, "config": config, "kill_at": k})
        assert killed["signal"] == signal.SIGKILL, (k, trace[k], killed)
        trial = f"killed before operation {k} of {len(trace)} ({trace[k].rsplit('/', 1)[-1]})"
        again = fork_server.ask({"cmd": "trial", "scenario": scenario, "config": config})
        if again["exit"] != 0 and "no learning with id" not in again.get("error", ""):
            problems.append(f"{trial}: the same command run again failed: {again.get('error')}")
        in_store = _ids(location.store_path).count(rule)
        in_archive = _ids(location.archive_path).count(rule)
        expected = (0, 1) if scenario == "discard" else (1, 0)
        if (in_store, in_archive) != expected:
            problems.append(f"{trial}: the rule is in the store {in_store}x and the archive {in_archive}x")
    return problems, len(trace)


def test_a_discard_killed_at_any_operation_and_run_again_archives_the_rule_once(fork_server, seeded):
    project, rule = seeded
    location = project.location
    saved = {location.store_path: location.store_path.read_bytes(), location.archive_path: None}
    problems, points = _trials(fork_server, location, "discard", {"agent": str(project.agent), "rule": rule}, saved)
    assert not problems, f"{len(problems)} problems over {points} kill points:\n" + "\n".join(problems)


def test_a_restore_killed_at_any_operation_and_run_again_puts_the_rule_back_once(fork_server, seeded):
    from agentuse.core.discard import discard

    project, rule = seeded
    location = project.location
    discard(location, rule)
    saved = {path: path.read_bytes() for path in (location.store_path, location.archive_path)}
    problems, points = _trials(fork_server, location, "restore", {"agent": str(project.agent), "rule": rule}, saved)
    assert not problems, f"{len(problems)} problems over {points} kill points:\n" + "\n".join(problems)


def test_an_edit_killed_at_any_operation_and_made_again_archives_the_removed_rule_once(fork_server, seeded):
    """--edit archives the rules the person deleted, then writes the store, then removes its copy."""
    project, _ = seeded
    location = project.location
    first, second = parse(location.store_path.read_text()).learnings[:2]
    config = {"agent": str(project.agent), "drop": first.id, "title": second.title}
    saved = {location.store_path: location.store_path.read_bytes(), location.archive_path: None}
    for _ in range(2):
        _put_back(location, saved)
        calibration = fork_server.ask({"cmd": "trial", "scenario": "edit", "config": config})
        assert calibration["exit"] == 0, calibration
    trace, problems = calibration["trace"], []
    for k in range(len(trace)):
        _put_back(location, saved)
        killed = fork_server.ask({"cmd": "trial", "scenario": "edit", "config": config, "kill_at": k})
        assert killed["signal"] == signal.SIGKILL, (k, trace[k], killed)
        trial = f"killed before operation {k} of {len(trace)} ({trace[k].rsplit('/', 1)[-1]})"
        again = fork_server.ask({"cmd": "trial", "scenario": "edit", "config": config})
        if again["exit"] != 0:
            problems.append(f"{trial}: the same edit made again failed: {again.get('error')}")
        rules = parse(location.store_path.read_text()).learnings
        titles = [r.title for r in rules if r.id == second.id]
        if first.id in {r.id for r in rules} or titles != [second.title + " (edited)"]:
            problems.append(f"{trial}: the store does not hold the edit once: {titles}")
        if (count := _ids(location.archive_path).count(first.id)) != 1:
            problems.append(f"{trial}: the removed rule is in the archive {count}x")
    assert not problems, f"{len(problems)} problems over {len(trace)} kill points:\n" + "\n".join(problems)
