"""Start-up cost of the commands, as a ratio to `python -c pass` measured in the same run.

    python benchmarks/startup.py [--runs N]

Also the dependency floor: a process that imports typer, pydantic and yaml and validates one pydantic
model, the least any command that reads a record pays.

For `agentuse --version`, `agentuse --help`, `agentuse learnings <file> --path`, `--json`, `agentuse doctor <file>`, and the write commands that
run a pipeline inline (`learnings add`, `learnings tidy --dry-run`, a `run` of the bundled recording through
to its capture, and `sessions resume --approve --remember` on a run stopped at its gate, which saves the
note and captures the run): the median whole-process wall time
over N runs (the commands are interleaved round-robin with the baseline, so noise from the shared machine
falls on all of them alike), and how many modules the process imported, with whether prefect or anthropic
were among them (with no Prefect API configured, none of them imports either).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from _common import machine, make_rules, print_figures, project

from agentuse.core import store
from agentuse.core.agent_file import load_agent
from agentuse.core.contract import agent_hash
from agentuse.core.store_format import StoreDoc

# Runs the real console entry point, then reports what the process imported. Module counts come from a
# separate run so the counting itself never adds to the measured time.
_COUNTING = (
    "import sys, json, atexit\n"
    "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)) + '\\n'))\n"
    "from agentuse.cli.app import main\n"
    "sys.argv = ['agentuse', *sys.argv[1:]]\n"
    "main()\n"
)


def _entry_point() -> list[str]:
    script = Path(sys.executable).with_name("agentuse")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from agentuse.cli.app import main; main()"]


_RECORDING = Path(__file__).resolve().parent.parent / "examples" / "sessions" / "blog-writer-tool-error.jsonl"
_REPLAY = ["--model", f"replay:{_RECORDING}"]  # the recorded run's model replies: no key, no network


def _gated_sessions(entry: list[str], agent: Path, count: int) -> Iterator[str]:
    """Sessions stopped at the agent's approval gate, one per `sessions resume` to come (each resumes one)."""
    for _ in range(count):
        done = subprocess.run([*entry, "run", str(agent), *_REPLAY, "--json"], check=True, capture_output=True,
                              text=True, cwd=agent.parent)
        yield json.loads(done.stdout)["session"]


def _commands(agent: Path, sessions: Iterator[str]) -> dict[str, list[str] | Callable[[], list[str]]]:
    # The same agent without its gate, so the run completes and its tool-errors capture runs at the end.
    ungated = agent.with_name("ungated.agentuse")
    ungated.write_text(agent.read_text(encoding="utf-8").replace("approval: true", "approval: false"), encoding="utf-8")
    return {
        "version": ["--version"],
        "help": ["--help"],
        "learnings_path": ["learnings", str(agent), "--path"],
        "learnings_json": ["learnings", str(agent), "--json"],
        "doctor": ["doctor", str(agent)],
        # Each run saves the same note again: a repeat of the rule the first run saved, counted on it.
        "learnings_add": ["learnings", "add", str(agent), "Keep intros factual for informational posts"],
        "tidy_dry_run": ["learnings", "tidy", str(agent), "--dry-run"],
        "run_and_capture": ["run", str(ungated), *_REPLAY, "-q"],
        # The Learn checkbox: approve a gated run with a note, which saves it and captures the run.
        "resume_remember": lambda: ["sessions", "resume", next(sessions), "--approve",
                                    "--remember", "Always include source links before publishing."],
    }


# What any command that parses its arguments and validates one record pays before a line of ours runs:
# typer, pydantic (one model, built and used) and yaml. Printed beside the commands so a ratio can be read
# as "ours" on top of this floor.
_DEPENDENCY_FLOOR = (
    "import typer, yaml\n"
    "from pydantic import BaseModel\n"
    "class Rule(BaseModel):\n    id: str\n    injected: int = 0\n"
    "Rule.model_validate({'id': 'a1b2c3d4'})\n"
)


def _wall(argv: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    return time.perf_counter() - start


def _args(command: list[str] | Callable[[], list[str]]) -> list[str]:
    return command() if callable(command) else command


def _modules(args: list[str], cwd: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _COUNTING, *args], check=True, capture_output=True, text=True,
                          cwd=cwd)
    line = [row for row in done.stderr.splitlines() if row.startswith("MODULES ")][-1]
    return json.loads(line.removeprefix("MODULES "))


def _baseline_modules() -> int:
    done = subprocess.run([sys.executable, "-c", "import sys; print(len(sys.modules))"],
                          check=True, capture_output=True, text=True)
    return int(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with project() as agent:
        # A store of 15 rules in force, so --json and doctor have the usual amount of work.
        ih = agent_hash(load_agent(agent))
        location = store.locate(agent)
        store.save(location, StoreDoc(name=location.name, agent=location.key, learnings=make_rules(15, ih=ih)))
        entry = _entry_point()
        # One gated session per resume: the warm-up, each measured run, and the module count.
        commands = _commands(agent, _gated_sessions(entry, agent, runs + 2))
        here = agent.parent  # runs write the agent's files (posts/...) beside it
        baseline = [sys.executable, "-c", "pass"]
        floor = [sys.executable, "-c", _DEPENDENCY_FLOOR]
        samples: dict[str, list[float]] = {"python_pass": [], "dependency_floor": [],
                                           **{name: [] for name in commands}}
        for name, command in commands.items():  # warm the page cache and .pyc files once
            _wall([*entry, *_args(command)], here)
        for _ in range(runs):
            samples["python_pass"].append(_wall(baseline))
            samples["dependency_floor"].append(_wall(floor))
            for name, command in commands.items():
                samples[name].append(_wall([*entry, *_args(command)], here))
        medians = {name: statistics.median(values) for name, values in samples.items()}
        imported = {name: _modules(_args(command), here) for name, command in commands.items()}
    figures: dict[str, object] = {**machine(), "runs": runs,
                                  "python_pass_ms": medians["python_pass"] * 1000,
                                  "python_pass_modules": _baseline_modules(),
                                  "dependency_floor_time_ratio": medians["dependency_floor"] / medians["python_pass"]}
    for name in commands:
        mods = imported[name]
        figures[f"{name}_ms"] = medians[name] * 1000
        figures[f"{name}_time_ratio"] = medians[name] / medians["python_pass"]
        figures[f"{name}_modules"] = len(mods)
        figures[f"{name}_imports_prefect"] = int(any(m == "prefect" or m.startswith("prefect.") for m in mods))
        figures[f"{name}_imports_anthropic"] = int(any(m == "anthropic" or m.startswith("anthropic.") for m in mods))
    print_figures(figures)


if __name__ == "__main__":
    os.environ.pop("PREFECT_API_URL", None)
    # Bytecode cached, as a user runs the commands after `pip install` (which writes .pyc files): with
    # PYTHONDONTWRITEBYTECODE set (as in this project's sandboxes) an editable install would recompile every
    # module of ours on every run and the figures would measure the compiler. The cache goes to a temporary
    # folder, so the warm-up run fills it and the repository stays clean.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="agentuse-pyc-") as pycache:
        os.environ["PYTHONPYCACHEPREFIX"] = pycache
        main()
