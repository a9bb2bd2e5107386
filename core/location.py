"""Where an agent's learnings live: the project root, and the store, archive and session paths under it.

    $AGENTUSE_DATA_DIR/project/<12 hex of sha256(git root)>/learnings/<agent path minus .agentuse>.learnings.md

Its own module, apart from reading and writing stores (core/store.py), so a command that only needs a
path (`learnings --path`) imports neither pydantic's models nor GitPython.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from agentuse.core import git_root
from agentuse.core.discovery import AGENT_SUFFIX
from agentuse.core.errors import AgentuseError

STORE_SUFFIX = ".learnings.md"


@dataclass(frozen=True)
class AgentLocation:
    agent_path: Path  # absolute, as given (a symlink stays a symlink; its writes go through it on purpose)
    root: Path  # resolved git root, or the agent's resolved directory outside git
    key: str  # posix path of the agent file relative to root, e.g. "agents/blog/write.agentuse"
    project_dir: Path
    store_path: Path
    session_dir: Path
    consolidations_dir: Path
    archive_path: Path
    legacy_path: Path  # the pre-v0.17 sibling file: only its existence is ever checked
    breadcrumb: str = ""  # what `<!-- agent: ... -->` says: the key, or the absolute path outside the root

    @property
    def name(self) -> str:
        """The agent's name as the file header gives it: `# Learnings for write`."""
        return PurePosixPath(self.key).name.removesuffix(AGENT_SUFFIX)


class DataDirError(AgentuseError):
    """The state directory's setting cannot be used: relative, or a file where a folder must be."""


DATA_DIR_VARIABLE = "AGENTUSE_DATA_DIR"


def home() -> Path | None:
    """The user's home folder, or None where there is none: a container started as a user id its image's
    /etc/passwd does not list (docker run --user 1001, a pod with a random uid) with HOME unset, where
    `Path.home()` raises RuntimeError (a traceback from anything that printed or looked under `~`)."""
    try:
        return Path.home()
    except RuntimeError:
        return None


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if explicit := env.get(DATA_DIR_VARIABLE):
        try:
            path = Path(explicit).expanduser()
        except RuntimeError:  # ~user for a user there is not
            raise DataDirError(f"{DATA_DIR_VARIABLE}={explicit}: could not expand '~' there; give an absolute "
                               "path") from None
        if not path.is_absolute():
            # Spec: one agent resolves to one file whichever directory you run it from. Resolved against the
            # cwd, a relative setting would give it one store per folder.
            raise DataDirError(f"{DATA_DIR_VARIABLE} must be an absolute path, not {explicit!r}: a relative one "
                               "would give an agent a different store in each folder it is run from")
        return _a_folder(path, DATA_DIR_VARIABLE)
    xdg = env.get("XDG_DATA_HOME")
    if xdg and Path(xdg).is_absolute():  # the XDG spec says to ignore relative values
        return _a_folder(Path(xdg) / "agentuse", "XDG_DATA_HOME", shown=Path(xdg))
    folder = home()
    if folder is None:
        raise DataDirError("there is no home folder to keep the state directory in (HOME is not set, and this user "
                           f"id has no entry in the password database): set {DATA_DIR_VARIABLE} to an absolute "
                           "folder")
    return _a_folder(folder / ".local" / "share" / "agentuse", "HOME", shown=folder)


def _a_folder(path: Path, variable: str, *, shown: Path | None = None) -> Path:
    """`path`, unless it or a folder above it is a file: then every read and write under it would fail
    with "Not a directory", naming some file deep inside and not the setting to change. One stat per level
    that exists, so it stays cheap for every lookup."""
    shown = shown or path
    fix = DATA_DIR_VARIABLE if variable == "HOME" else variable  # a home folder is not for us to move
    for level in (path, *path.parents):
        try:
            mode = os.stat(level).st_mode
        except (FileNotFoundError, NotADirectoryError):  # not there (yet), or a file above it: look higher
            if os.path.islink(level):  # a link to a folder not there (a cache not restored yet): no folder
                # can be made through it, and every write would name some folder deep inside instead
                raise DataDirError(f"{variable}: {level} is a symbolic link to {os.readlink(level)}, which does "
                                   f"not exist: create that folder, or point {fix} at a folder") from None
            continue
        except OSError:
            return path  # cannot look: the read or write that needs it says what the system refused
        if stat.S_ISDIR(mode):
            return path
        if level in (path, shown):
            raise DataDirError(f"{variable} names a file, not a folder: {level}; point {fix} at a folder")
        raise DataDirError(f"the state directory {path} (from {variable}) is inside a file, {level}; point {fix} "
                           "at a folder")
    return path


def project_root(start: Path) -> Path:
    """The resolved git work tree containing `start`, or `start`'s resolved directory outside git."""
    start = Path(os.path.abspath(start))
    if start.is_file():
        start = start.parent
    found = git_root.work_tree(start)  # reads .git entries: no GitPython import in the common case
    if found is git_root.UNDECIDED:
        return _gitpython_root(start)
    return (found or start).resolve()


def _gitpython_root(start: Path) -> Path:
    # Imported here: gitpython costs ~60 ms to import. Quiet refresh lets repo discovery (which only
    # reads .git) work even where the git executable is missing.
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
    import git

    try:
        repo = git.Repo(start, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return start.resolve()
    try:
        tree = repo.working_tree_dir
    finally:
        repo.close()
    return Path(tree).resolve() if tree else start.resolve()  # a bare repository has no work tree


def project_hash(root: Path) -> str:
    return hashlib.sha256(os.fsencode(root)).hexdigest()[:12]


def _agent_key(real: Path, root: Path) -> tuple[str, bool]:
    """(key, inside_root). Outside the root, a name plus a digest that cannot climb out of learnings/."""
    try:
        relative = real.relative_to(root)
    except ValueError:
        relative = None
    if relative is not None and relative.parts and ".." not in relative.parts:
        return relative.as_posix(), True
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:8]
    return f"{real.name.removesuffix(AGENT_SUFFIX)}-{digest}{AGENT_SUFFIX}", False


def locate(agent_path: Path, *, env: Mapping[str, str] | None = None) -> AgentLocation:
    given = Path(os.path.abspath(os.path.expanduser(agent_path)))
    # The project is where the agent file sits; its key is where it really is. A symlink that points
    # out of the project therefore gets a digest key instead of a path that could escape learnings/.
    root = project_root(given.parent)
    real = given.resolve()
    key, inside = _agent_key(real, root)
    project_dir = data_dir(env) / "project" / project_hash(root)
    stem = key.removesuffix(AGENT_SUFFIX)
    learnings_dir = project_dir / "learnings"
    store_path = learnings_dir / f"{stem}{STORE_SUFFIX}"
    if PurePosixPath(stem).is_absolute() or ".." in PurePosixPath(stem).parts:
        raise ValueError(f"refusing learnings key {key!r}: it would leave {learnings_dir}")
    return AgentLocation(
        agent_path=given, root=root, key=key, project_dir=project_dir, store_path=store_path,
        session_dir=project_dir / "session", consolidations_dir=project_dir / "consolidations",
        archive_path=project_dir / "archive" / f"{stem}{STORE_SUFFIX}",
        legacy_path=given.with_name(given.name + STORE_SUFFIX),
        breadcrumb=key if inside else str(real),
    )
