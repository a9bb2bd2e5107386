"""The project root is found without GitPython (issue 17: its import is tens of milliseconds of every
read-only command), and it is the root GitPython gives, on every layout a project can have."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import git
import pytest

from agentuse.core import location, store


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "protocol.file.allow=always", "-c", "user.name=t", "-c", "user.email=t@t",
                    "-c", "init.defaultBranch=main", *args], cwd=cwd, check=True, capture_output=True)


def _repo(path: Path) -> Path:
    path.mkdir(parents=True)
    _git("init", "-q", cwd=path)
    (path / "a.agentuse").write_text("# A\n")
    _git("add", ".", cwd=path)
    _git("commit", "-q", "-m", "init", cwd=path)
    return path


def _gitpython(start: Path) -> Path:
    try:
        repo = git.Repo(start, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return start.resolve()
    with repo:
        return Path(repo.working_tree_dir).resolve() if repo.working_tree_dir else start.resolve()


@pytest.fixture
def layouts(tmp_path):
    main = _repo(tmp_path / "main")
    (main / "agents" / "blog").mkdir(parents=True)
    _git("worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side", cwd=main)
    (tmp_path / "wt" / "deep").mkdir()
    lib = _repo(tmp_path / "lib")
    _git("submodule", "add", "-q", str(lib), "vendor/lib", cwd=main)
    (main / "vendor" / "lib" / "inner").mkdir()
    (tmp_path / "plain" / "sub").mkdir(parents=True)
    return {
        "repo": main, "subdirectory": main / "agents" / "blog", "worktree": tmp_path / "wt",
        "worktree-subdirectory": tmp_path / "wt" / "deep", "submodule": main / "vendor" / "lib",
        "submodule-subdirectory": main / "vendor" / "lib" / "inner", "outside": tmp_path / "plain" / "sub",
    }


NAMES = ["repo", "subdirectory", "worktree", "worktree-subdirectory", "submodule", "submodule-subdirectory",
         "outside"]


@pytest.mark.parametrize("name", NAMES)
def test_the_walk_gives_gitpythons_root_without_gitpython(name, layouts, monkeypatch, tmp_path):
    if name == "outside" and _gitpython(tmp_path) != tmp_path.resolve():
        pytest.skip("the temp dir is itself inside a git work tree")
    start = layouts[name]
    expected = _gitpython(start)
    monkeypatch.setattr(location, "_gitpython_root", lambda start: pytest.fail(f"GitPython asked for {start}"))
    assert store.project_root(start) == expected
    (start / "x.agentuse").write_text("# X\n")
    assert store.project_root(start / "x.agentuse") == expected  # a file: its folder's root


def test_outside_any_repository_the_root_is_the_folder_itself(layouts, tmp_path):
    if _gitpython(tmp_path) != tmp_path.resolve():
        pytest.skip("the temp dir is itself inside a git work tree")
    assert store.project_root(layouts["outside"]) == layouts["outside"].resolve()


def test_a_symlinked_agent_file_belongs_to_the_project_the_link_is_in(layouts, tmp_path, monkeypatch):
    """locate() takes the root from where the link sits, as before: GitPython's answer for that folder."""
    monkeypatch.setattr(location, "_gitpython_root", lambda start: pytest.fail(f"GitPython asked for {start}"))
    target = layouts["worktree"] / "real.agentuse"
    target.write_text("# Real\n")
    link = layouts["subdirectory"] / "linked.agentuse"
    link.symlink_to(target)
    found = store.locate(link)
    assert found.root == _gitpython(link.parent) == layouts["repo"].resolve()
    linked_folder = tmp_path / "linked-folder"
    linked_folder.symlink_to(layouts["worktree-subdirectory"], target_is_directory=True)
    # The walk climbs the path as given, like GitPython: a linked folder outside the repo finds no .git.
    assert store.project_root(linked_folder) == _gitpython(linked_folder) == layouts["worktree-subdirectory"].resolve()


@pytest.mark.parametrize("case", ["inside-dot-git", "git-dir-env", "broken-gitfile"])
def test_what_the_walk_cannot_tell_is_gitpythons_answer(case, layouts, monkeypatch):
    asked = []
    real = location._gitpython_root
    monkeypatch.setattr(location, "_gitpython_root", lambda start: asked.append(start) or real(start))
    start = layouts["repo"]
    if case == "inside-dot-git":
        start = start / ".git" / "refs"
    elif case == "git-dir-env":
        monkeypatch.setenv("GIT_WORK_TREE", str(layouts["subdirectory"]))
    else:
        start = layouts["outside"]
        (start / ".git").write_text("not a pointer\n")
    expected = _gitpython(start)
    assert store.project_root(start) == expected
    assert asked == [start]
