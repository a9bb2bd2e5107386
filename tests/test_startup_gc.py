"""What a command leaves for the collector (cli/app.py `main`): the objects start-up made are frozen once the
command is done, so interpreter shutdown does not walk them all in a last full collection, and the collector
stays on for the length of a command (serve and an agent's loop keep collecting cycles)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

PROBE = """
import atexit, gc, json, sys
def report():
    sys.stderr.write('GC ' + json.dumps({'tracked': len(gc.get_objects()), 'enabled': gc.isenabled(),
                                         'frozen': gc.get_freeze_count()}) + '\\n')
atexit.register(report)
from agentuse.cli.app import main
sys.argv = ['agentuse', *sys.argv[1:]]
main()
"""


def _collector_at_exit(argv: list[str], cwd: Path) -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True,
                            env=os.environ.copy(), cwd=cwd, timeout=120)
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stderr.splitlines() if line.startswith("GC "))
    return json.loads(line.removeprefix("GC "))


def test_shutdown_walks_none_of_what_start_up_made(tmp_path):
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    seen = _collector_at_exit(["learnings", str(agent), "--json"], tmp_path)
    assert seen["enabled"]
    # Left to the last collection: only what the exit handlers themselves made (tens of thousands before).
    assert seen["tracked"] < 1_000 < seen["frozen"], seen
