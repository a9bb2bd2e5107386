"""Agent discovery: one walk and one skip list for the project tidy-up, the serve pages and migrate."""

from __future__ import annotations

import pytest

from agentuse.core.discovery import find_agent_files
from agentuse.serve.project import Project, UnknownAgent

SKIPPED = (".git", ".hidden", ".venv", "venv", "node_modules", "__pycache__", ".tox", "build", "dist")


def test_agents_are_found_everywhere_but_in_skipped_folders(tmp_path):
    for folder in ("", "agents", "agents/sub", *SKIPPED, *(f"agents/{s}" for s in SKIPPED)):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "a.agentuse").write_text("---\nmodel: anthropic:x\n---\n")
    (tmp_path / "agents" / "a.agentuse.learnings.md").write_text("")  # not an agent file
    found = ["a.agentuse", "agents/a.agentuse", "agents/sub/a.agentuse"]
    assert [p.relative_to(tmp_path).as_posix() for p in find_agent_files(tmp_path)] == found
    # The serve pages list the same files, and a URL cannot name one the walk skips.
    project = Project(root=tmp_path)
    assert [project.key_of(p) for p in project.agent_files()] == found
    for skipped in SKIPPED:
        with pytest.raises(UnknownAgent):
            project.resolve(f"{skipped}/a.agentuse")
