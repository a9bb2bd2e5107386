"""What run_shell adds to a command: its environment, ending what it started, and masking its output.

    python benchmarks/shell_command.py [--runs N]

The tool (`ToolBox.run("run_shell", {"command": "true"})`: a filtered environment, its own session, the
process table read for what the command left behind, the output masked of the environment's credentials)
against the cheapest honest baseline on the same machine in the same run: `subprocess.run("true",
shell=True, capture_output=True)`. The two alternate, so a burst of load on the shared machine falls on
both. `processes` is how many entries /proc listed, which the ending reads.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
from pathlib import Path

from _common import machine, median_seconds, print_figures

from agentuse.runtime.tools import ToolBox


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as root:
        box = ToolBox(Path(root))
        tool, bare = [], []
        for _ in range(runs):
            tool.append(median_seconds(lambda: box.run("run_shell", {"command": "true"}), runs=1, warmup=0))
            bare.append(median_seconds(lambda: subprocess.run("true", shell=True, capture_output=True, cwd=root),
                                       runs=1, warmup=0))
    tool.sort(), bare.sort()
    processes = sum(1 for e in os.listdir("/proc") if e.isdigit()) if os.path.isdir("/proc") else 0
    print_figures({**machine(), "runs": runs, "processes": processes,
                   "run_shell_ms": tool[runs // 2] * 1000, "bare_subprocess_ms": bare[runs // 2] * 1000,
                   "run_shell_over_bare_subprocess": tool[runs // 2] / bare[runs // 2]})


if __name__ == "__main__":
    main()
