"""A tool's output reaches the model clipped (MAX_OUTPUT_CHARS); reading it must be bounded too. run_shell
held everything a command printed (and read_file a whole file) in memory before clipping, so `cat` of a
large log or a command printing in a loop until its timeout took gigabytes. Measured in a child process
by its peak resident memory, against the size of what the tool was given."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kilobytes on Linux")

SIZE = 300_000_000  # bytes the tool is given: far more than it may keep

CHILD = """
import json, resource, sys
from pathlib import Path
from agentuse.runtime.tools import ToolBox
box = ToolBox(Path(sys.argv[1]))
outcome = box.run(sys.argv[2], json.loads(sys.argv[3]))
print(json.dumps({"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "output": outcome.output, "error": outcome.error}))
"""


def in_child(root, tool, arguments):
    done = subprocess.run([sys.executable, "-c", CHILD, str(root), tool, json.dumps(arguments)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def baseline(root):
    return in_child(root, "list_dir", {})["peak_mb"]


def test_a_command_printing_hundreds_of_megabytes_is_read_in_bounded_memory(tmp_path):
    result = in_child(tmp_path, "run_shell", {"command": f"head -c {SIZE} /dev/zero | tr '\\0' a"})
    assert result["peak_mb"] < baseline(tmp_path) + 50  # was about 890 MB for this command
    assert result["error"] is None and result["output"].startswith("a" * 1000)
    assert len(result["output"]) < 21_000 and f"{SIZE:,} bytes in all" in result["output"]


def test_a_huge_file_is_read_in_bounded_memory(tmp_path):
    with open(tmp_path / "big.log", "wb") as handle:
        handle.truncate(SIZE)  # sparse: costs no disk
    result = in_child(tmp_path, "read_file", {"path": "big.log"})
    assert result["peak_mb"] < baseline(tmp_path) + 50
    assert result["error"] is None and len(result["output"]) < 21_000
    assert f"{SIZE:,} bytes in all" in result["output"]
