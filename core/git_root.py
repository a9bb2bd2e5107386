"""The git work tree a path is in, found by reading `.git` entries instead of importing GitPython.

GitPython costs tens of milliseconds to import, and every read-only command needs the project root. The
walk here answers the cases it can tell for certain, each exactly as `git.Repo(start,
search_parent_directories=True).working_tree_dir` would: a `.git` directory, or a `.git` file pointing
(`gitdir: ...`) at a worktree's or submodule's git directory, makes that folder the work tree; no `.git`
anywhere up to `/` means no repository. Anything else (git environment variables, a folder that is itself
a git directory such as a bare repository, a `.git` entry that does not look valid) is left to GitPython,
so the answer never differs from it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# Any of these changes where git looks: GitPython reads them, this walk does not.
GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")
_HEAD = re.compile(rb"ref:\s*refs/|[0-9A-Fa-f]{40}")
UNDECIDED = object()  # the walk cannot tell: ask GitPython


def work_tree(start: Path) -> Path | None | object:
    """The unresolved work tree folder containing the directory `start` (absolute), None outside git, or
    UNDECIDED."""
    if any(name in os.environ for name in GIT_ENV) or not os.path.isdir(start):
        return UNDECIDED
    current = os.path.normpath(start)
    while True:
        if os.path.lexists(os.path.join(current, "HEAD")):
            return UNDECIDED  # perhaps a git directory itself (a bare repository, or inside .git)
        dotgit = os.path.join(current, ".git")
        if os.path.lexists(dotgit):
            return Path(current) if _points_at_git_dir(dotgit) else UNDECIDED
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _points_at_git_dir(dotgit: str) -> bool:
    if os.path.isdir(dotgit):
        return _is_git_dir(dotgit)
    if not os.path.isfile(dotgit):
        return False
    try:
        with open(dotgit, "rb") as handle:
            content = handle.read(4096)
    except OSError:
        return False
    if not content.startswith(b"gitdir: "):
        return False
    target = os.fsdecode(content[8:].strip())
    return _is_git_dir(os.path.normpath(os.path.join(os.path.dirname(dotgit), target)))


def _is_git_dir(folder: str) -> bool:
    """A plain, unmistakable git directory: a HEAD naming a ref or a commit, and objects and refs here or
    in the common directory a worktree's `commondir` names."""
    try:
        with open(os.path.join(folder, "HEAD"), "rb") as handle:
            head = handle.read(256)
    except OSError:
        return False
    if not _HEAD.match(head):
        return False
    common = folder
    if os.path.isfile(os.path.join(folder, "commondir")):
        try:
            with open(os.path.join(folder, "commondir"), encoding="utf-8") as handle:
                common = os.path.normpath(os.path.join(folder, handle.read().strip()))
        except (OSError, UnicodeDecodeError):
            return False
    return os.path.isdir(os.path.join(common, "objects")) and os.path.isdir(os.path.join(common, "refs"))
