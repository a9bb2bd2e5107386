"""Finding a project's agent files: one walk, one list of folders it never enters.

`agentuse learnings tidy --all` (the project tidy-up), the serve pages and `migrate` all walk the project
for files; they must agree on what counts, or a page would show an agent the tidy-up never touches.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

AGENT_SUFFIX = ".agentuse"
# Folders that never hold a project's own agents and can be huge: tool caches, environments, build output.
# Hidden folders (.git, .venv, .tox, .mypy_cache, ...) are skipped as a class.
SKIP_DIRS = frozenset({"venv", "node_modules", "__pycache__", "build", "dist"})


def skipped(folder_name: str) -> bool:
    return folder_name.startswith(".") or folder_name in SKIP_DIRS


def walk(root: Path, *, folders: bool = False) -> Iterator[Path]:
    """Every file under `root`, never descending into a skipped folder; with `folders`, every folder it
    enters too (a folder with a file's name is something to report, not to pass over in silence)."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not skipped(d))
        names = sorted([*files, *dirs]) if folders else sorted(files)
        for name in names:
            yield Path(folder) / name


def find_agent_files(root: Path) -> list[Path]:
    """Every `.agentuse` file under `root`, sorted by path."""
    return sorted(path for path in walk(root) if path.name.endswith(AGENT_SUFFIX))
