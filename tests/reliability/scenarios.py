"""What the forked children of worker.py do: one save, one capture, one tidy-up, or a load worker's mix.

Each function takes the JSON config the test sent and returns a JSON-able dict for the test to check.
"""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path

from tidy_scenario import Scenario

from agentuse.core import store
from agentuse.core.inject import credit_approval, record_injection
from agentuse.core.store_format import parse
from agentuse.flows.tidy import run_tidy

from .capturing import capture as capture_run
from .capturing import capture_once, record_run

TIDY_DAY = date(2026, 11, 30)
TIDY_SEED = 7


def save(config: dict) -> dict:
    location = store.locate(Path(config["agent"]))
    store.save(location, parse(config["new_store"]))
    return {}


def tidy(config: dict) -> dict:
    result = run_tidy(Path(config["agent"]), helper=Scenario().helper(), today=TIDY_DAY, seed=TIDY_SEED)
    return {"summary": result.summary, "written": result.written}


def capture(config: dict) -> dict:
    return capture_once(Path(config["agent"]), config)


SCENARIOS = {"save": save, "capture": capture, "tidy": tidy}


def load_worker(config: dict, worker: int) -> dict:
    """`ops` operations: injections and approvals of random rules, captures, and (one worker) a tidy-up.
    Returns exactly what it did, so the test can compute every counter the store must end with."""
    location = store.locate(Path(config["agent"]))
    rng = random.Random(config["seed"] * 1000 + worker)
    ids = config["ids"]
    injected: dict[str, int] = {}
    approved: dict[str, int] = {}
    captured: list[str] = []
    tidy_result = None
    for op in range(config["ops"]):
        if worker == config["tidy_worker"] and op == config["tidy_at"]:
            tidy_result = tidy(config)
            continue
        roll = rng.random()
        chosen = rng.sample(ids, rng.randint(1, 5))
        if roll < 0.45:
            record_injection(location, chosen)
            for rule_id in chosen:
                injected[rule_id] = injected.get(rule_id, 0) + 1
        elif roll < 0.8:
            credit_approval(location, chosen)
            for rule_id in chosen:
                approved[rule_id] = approved.get(rule_id, 0) + 1
        else:
            captured.append(capture_load(location, config, worker, op))
    return {"injected": injected, "approved": approved, "captured": captured, "tidy": tidy_result}


def capture_load(location: store.AgentLocation, config: dict, worker: int, op: int) -> str:
    """A real capture of a failed-then-corrected tool call; one failure mode per worker, so each later
    capture supersedes the worker's record with its newer recovery. Returns the tool's name."""
    agent = Path(config["agent"])
    tool = f"uploader{worker}"
    session = record_run(agent, tool=tool, failure="files.length remained 0",
                         bad={"path": "./shot.png"}, good={"path": f"/tmp/shot-{op}.png"})
    capture_run(agent, session)
    return tool


def undo(config: dict) -> dict:
    from agentuse.core import snapshots

    snapshot = snapshots.undo(store.locate(Path(config["agent"])))
    return {"undid": snapshot.manifest.created}


def resume(config: dict) -> dict:
    """`agentuse sessions resume <id> --approve [--remember "..."]`, as the CLI runs it."""
    from agentuse.flows.post_run import after_resume
    from agentuse.runtime.approval import resume as resume_run

    remember = config.get("remember")
    result = resume_run(config["session"], decision="approve", remember=remember)
    after_resume(result, remember=remember, comment=None)
    return {"status": result.status}


SCENARIOS.update(undo=undo, resume=resume)


def discard(config: dict) -> dict:
    """`agentuse learnings discard <agent> <id>`."""
    from agentuse.core.discard import discard as discard_rule

    discard_rule(store.locate(Path(config["agent"])), config["rule"])
    return {}


def restore(config: dict) -> dict:
    """`agentuse learnings restore <agent> <id>`, vetted by the offline evaluator (no key in the tests)."""
    from agentuse.core.helper.offline import OfflineHelper
    from agentuse.flows.restore import run_restore

    restored = run_restore(Path(config["agent"]), config["rule"], agent_arg=config["agent"], helper=OfflineHelper())
    return {"lines": restored.lines}


SCENARIOS.update(discard=discard, restore=restore)


def edit(config: dict) -> dict:
    """`agentuse learnings <agent> --edit`, with an editor that deletes one rule and retitles another."""
    from agentuse.core import store_edit

    location = store.locate(Path(config["agent"]))
    copy, baseline = store_edit.begin(location)
    parts = copy.read_text(encoding="utf-8").split("\n### ")
    kept = [part for part in parts if f"id:{config['drop']}" not in part]
    title = f"] {config['title']}\n"  # the heading as it was: an edit already made is not made twice
    copy.write_text("\n### ".join(part.replace(title, title[:-1] + " (edited)\n", 1) for part in kept),
                    encoding="utf-8")
    store_edit.finish(location, copy, baseline)
    return {}


SCENARIOS.update(edit=edit)
