"""Rule text is data everywhere it goes, and no agent path can make agentuse write outside its state dir.

A rule that tries to forge metadata, close the learned block or inject a heading is followed through every
file and prompt it reaches: the store, the run's `## Relevant Learnings` section, the agent file's learned
block, and the instruction hash that stamps every other rule.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentuse.cli.app import app
from agentuse.core import snapshots, store
from agentuse.core.agent_file import END, START, load_agent, read_block, write_block
from agentuse.core.contract import agent_hash
from agentuse.core.inject import RELEVANT_HEADING, credit_approval, record_injection, select_for_run
from agentuse.core.learned_block import BlockRule, find_block
from agentuse.core.learning import Category, Learning
from agentuse.core.store_format import StoreDoc

from .stores import AGENT_TEXT, FORGERIES


def _hostile(forgery: str, rule_id: str = "f0f0f0f0") -> Learning:
    return Learning(id=rule_id, category=Category.warning, title=f"Mind {forgery} here",
                    body=f"{forgery}\nKeep the hook short.\n{forgery}", date="2026-08-01", injected=2, ok=1)


@pytest.mark.parametrize("forgery", FORGERIES)
def test_forged_structure_stays_text_in_store_prompt_block_and_hash(project, forgery):
    ih = project.ih
    plain = Learning(id="a0a0a0a0", title="Cite sources", body="Link the study itself.", date="2026-08-01", ih=ih)
    rule = _hostile(forgery).model_copy(update={"ih": ih})
    store.save(project.location, StoreDoc(name="blog-writer", learnings=[rule, plain]))

    # The store: still two entries, the hostile one with its own metadata and its text intact.
    loaded = store.load(project.location).learnings
    assert [r.id for r in loaded] == ["f0f0f0f0", "a0a0a0a0"]
    assert loaded[0] == rule

    # The run's prompt: one heading of our own; every rule line is a bullet or an indented continuation.
    agent = load_agent(project.agent)
    injection = select_for_run(agent, store.load(project.location), ih)
    assert sorted(injection.ids) == ["a0a0a0a0", "f0f0f0f0"]
    lines = injection.text.splitlines()
    assert lines[0] == RELEVANT_HEADING and lines[1] == ""  # then the caveat paragraph and a blank line
    rule_lines = lines[4:]
    assert all(line == "" or line.startswith(("- [", "  ")) for line in rule_lines), rule_lines
    assert sum(line.startswith("- [") for line in rule_lines) == 2

    # The learned block: graduating it changes only the block, reads back equal, and the hash that
    # stamps every other rule does not move (the text cannot leak out of the excised block).
    before = project.agent.read_text()
    block = [BlockRule(category=rule.category, text=rule.text), BlockRule(category=Category.tip, text="Cite sources")]
    edited = write_block(before, block)
    project.agent.write_text(edited)
    assert read_block(edited) == block
    assert edited.count(START) == 1 and edited.count(END) == 1
    span = find_block(edited)
    assert edited[:span.start_line].rstrip("\n") == before.rstrip("\n")
    assert agent_hash(load_agent(project.agent)) == ih


# --- paths -------------------------------------------------------------------------------------------------


def _files(root: Path) -> dict[str, float]:
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            found[str(path)] = path.lstat().st_mtime_ns
    return found


def _agent(folder: Path, name: str = "write.agentuse") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(AGENT_TEXT, encoding="utf-8")
    return path


def _layouts(tmp: Path) -> dict[str, Path]:
    project = tmp / "proj"
    (project / ".git").mkdir(parents=True)  # a git root is found by its .git folder
    outside = _agent(tmp / "elsewhere")
    (project / "agents").mkdir()
    (project / "agents" / "linked.agentuse").symlink_to(outside)
    (project / "linkdir").symlink_to(tmp / "elsewhere")
    dots = _agent(project / "agents" / ".." / "agents" / "sub", "..agentuse")
    return {
        "symlink to an agent outside the project": project / "agents" / "linked.agentuse",
        "symlinked folder leading outside": project / "linkdir" / "write.agentuse",
        "dot-dot path climbing out of the project": project / "agents" / ".." / ".." / "elsewhere" / "write.agentuse",
        "agent named ..agentuse": dots,
        "hostile name": _agent(project / "x", "<!-- agent: ..%2f..%2fetc -->.agentuse"),
        "no git at all": _agent(tmp / "loose" / "deep"),
    }


def test_no_agent_path_makes_agentuse_write_outside_the_state_dir(tmp_path, data_dir, monkeypatch):
    work = tmp_path / "work"
    layouts = _layouts(work)
    before = _files(work)
    monkeypatch.setenv("EDITOR", "true")
    for name, agent in layouts.items():
        location = store.locate(agent)
        ih = agent_hash(load_agent(agent))
        rules = [Learning(id=f"{i:08x}", title=f"Rule {i}", date="2026-08-01", ih=ih) for i in range(3)]
        store.save(location, StoreDoc(name=location.name, agent=location.breadcrumb, learnings=rules))
        record_injection(location, ["00000000"])
        credit_approval(location, ["00000001"])
        store.archive(location, [rules[2]], reason="test")
        snapshots.take(location, agent_before=agent.read_bytes(), store_before=None, agent_after=agent.read_bytes(),
                       store_after=location.store_path.read_bytes(), block_after=[])
        assert CliRunner().invoke(app, ["learnings", str(agent), "--edit"]).exit_code == 0, name
        assert CliRunner().invoke(app, ["doctor", str(agent)]).exit_code == 0, name
        for path in (location.store_path, location.archive_path, location.consolidations_dir, location.session_dir):
            assert Path(os.path.realpath(path)).is_relative_to(data_dir.resolve()), (name, path)
    assert _files(work) == before  # nothing created or changed anywhere outside the state dir
