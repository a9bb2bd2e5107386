"""Issue 12's small items, each through the CLI: what the listing, the store and the capture report say
must be true of what actually happened."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def invoke(*args: str | Path, code: int = 0):
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result


@pytest.fixture
def seeded(tmp_path) -> Path:
    """The example agent with the spec's seed store: one rule in it (e5f6a7b8) is stale and eligible."""
    agent = tmp_path / "blog-writer.agentuse"
    shutil.copy(EXAMPLES / "blog-writer.agentuse", agent)
    location = store.locate(agent)
    location.store_path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(EXAMPLES / "seeds" / "blog-writer.learnings.md", location.store_path)
    return agent


def test_a_stale_rule_is_not_listed_ready_to_make_permanent(seeded):
    # injected:12 is past the 10-run mark, but the rule awaits re-vet: the spec's example lists it bare.
    out = invoke("learnings", seeded).stdout
    assert "  dormant  [tip] Cite the primary source, never a summary\n" \
           "    src:approval · injected:12 · ch:corrections  ·  2026-07-19  ·  id:e5f6a7b8\n" in out
    assert "approved:4 · ready to make permanent" in out  # an applied, proven rule still says it
    entries = {e["record"]["id"]: e for e in json.loads(invoke("learnings", seeded, "--json").stdout)["entries"]}
    assert entries["e5f6a7b8"]["stale"] and not entries["e5f6a7b8"]["ready_to_graduate"]
    assert entries["a1b2c3d4"]["ready_to_graduate"]
