"""Start-up cost of the commands, as a ratio to `python -c pass` measured in the same run.

    python benchmarks/startup.py [--runs N] [--baseline REV]

Also the dependency floor: a process that imports typer, pydantic and yaml and validates one pydantic
model, the least any command that reads a record pays.

For `agentuse --version`, `agentuse --help`, `agentuse learnings <file> --path`, `--json`, `agentuse doctor <file>`, and the write commands that
run a pipeline inline (`learnings add`, `learnings tidy --dry-run`, a `run` of the bundled recording through
to its capture, and `sessions resume --approve --remember` on a run stopped at its gate, which saves the
note and captures the run): the median whole-process wall time
over N runs (the commands are interleaved round-robin with the baseline, so noise from the shared machine
falls on all of them alike), and how many modules the process imported, with whether prefect or anthropic
were among them (with no Prefect API configured, none of them imports either).

--baseline REV measures REV's tree side by side in the same run: `git archive` exports it into a temporary
folder as the package `agentuse`, which PYTHONPATH puts ahead of this checkout's editable install (same
interpreter, same dependencies), and each of its commands runs right after this tree's in every round. Both
are then started as `python -c "...main()"` (not the console script), so they start the same way.
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


def _gated_sessions(entry: list[str], agent: Path, count: int, env: dict[str, str] | None = None) -> Iterator[str]:
    """Sessions stopped at the agent's approval gate, one per `sessions resume` to come (each resumes one)."""
    for _ in range(count):
        done = subprocess.run([*entry, "run", str(agent), *_REPLAY, "--json"], check=True, capture_output=True,
                              text=True, cwd=agent.parent, env=env)
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


def _wall(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    return time.perf_counter() - start


_REPO = Path(__file__).resolve().parent.parent
_MAIN = "from agentuse.cli.app import main; main()"


def _export(rev: str, folder: Path) -> dict[str, str]:
    """REV's tree as the package `agentuse` under `folder`, and the environment that imports it instead."""
    package = folder / "agentuse"
    package.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], check=True, capture_output=True, cwd=_REPO).stdout
    subprocess.run(["tar", "-x", "-C", str(package)], input=archive, check=True)
    return {**os.environ, "PYTHONPATH": str(folder)}


def _args(command: list[str] | Callable[[], list[str]]) -> list[str]:
    return command() if callable(command) else command


def _modules(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> list[str]:
    done = subprocess.run([sys.executable, "-c", _COUNTING, *args], check=True, capture_output=True, text=True,
                          cwd=cwd, env=env)
    line = [row for row in done.stderr.splitlines() if row.startswith("MODULES ")][-1]
    return json.loads(line.removeprefix("MODULES "))


def _baseline_modules() -> int:
    done = subprocess.run([sys.executable, "-c", "import sys; print(len(sys.modules))"],
                          check=True, capture_output=True, text=True)
    return int(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", metavar="REV", help="measure this commit side by side (e.g. main)")
    args = parser.parse_args()
    runs = args.runs
    with project() as agent, tempfile.TemporaryDirectory(prefix="agentuse-baseline-") as exported:
        # A store of 15 rules in force, so --json and doctor have the usual amount of work.
        ih = agent_hash(load_agent(agent))
        location = store.locate(agent)
        store.save(location, StoreDoc(name=location.name, agent=location.key, learnings=make_rules(15, ih=ih)))
        # (entry point, environment) per tree: this checkout, and REV's tree with --baseline.
        trees: dict[str, tuple[list[str], dict[str, str] | None]] = {"": (_entry_point(), None)}
        if args.baseline:
            trees = {"": ([sys.executable, "-c", _MAIN], None),
                     "baseline_": ([sys.executable, "-c", _MAIN], _export(args.baseline, Path(exported)))}
        # One gated session per resume: the warm-up, each measured run, and the module count.
        commands = {tree: _commands(agent, _gated_sessions(entry, agent, runs + 2, env))
                    for tree, (entry, env) in trees.items()}
        here = agent.parent  # runs write the agent's files (posts/...) beside it
        bare = [sys.executable, "-c", "pass"]
        floor = [sys.executable, "-c", _DEPENDENCY_FLOOR]
        samples: dict[str, list[float]] = {"python_pass": [], "dependency_floor": [],
                                           **{tree + name: [] for tree in trees for name in commands[""]}}
        for tree, (entry, env) in trees.items():  # warm the page cache and .pyc files once
            for command in commands[tree].values():
                _wall([*entry, *_args(command)], here, env)
        for _ in range(runs):
            samples["python_pass"].append(_wall(bare))
            samples["dependency_floor"].append(_wall(floor))
            for name in commands[""]:
                for tree, (entry, env) in trees.items():
                    samples[tree + name].append(_wall([*entry, *_args(commands[tree][name])], here, env))
        medians = {name: statistics.median(values) for name, values in samples.items()}
        imported = {tree + name: _modules(_args(command), here, env)
                    for tree, (_, env) in trees.items() for name, command in commands[tree].items()}
    figures: dict[str, object] = {**machine(), "runs": runs, **({"baseline": args.baseline} if args.baseline else {}),
                                  "python_pass_ms": medians["python_pass"] * 1000,
                                  "python_pass_modules": _baseline_modules(),
                                  "dependency_floor_time_ratio": medians["dependency_floor"] / medians["python_pass"]}
    for name in commands[""]:
        for tree in trees:
            mods = imported[tree + name]
            label = f"{name}_{tree}" if tree else f"{name}_"
            figures[f"{label}ms"] = medians[tree + name] * 1000
            figures[f"{label}time_ratio"] = medians[tree + name] / medians["python_pass"]
            figures[f"{label}modules"] = len(mods)
            figures[f"{label}imports_prefect"] = int(any(m == "prefect" or m.startswith("prefect.") for m in mods))
            figures[f"{label}imports_anthropic"] = int(any(m == "anthropic" or m.startswith("anthropic.") for m in mods))
        if args.baseline:
            figures[f"{name}_over_baseline"] = medians[name] / medians["baseline_" + name]
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
