"""The project a server shows: its agent files, found by walking the project root, and the way a URL's
agent key maps back to one of them (only files that walk found, so a URL can never name a path outside)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

from agentuse.core import snapshots, store
from agentuse.core.discovery import AGENT_SUFFIX, find_agent_files, skipped
from agentuse.core.describe import Report, describe
from agentuse.core.errors import AgentuseError



class UnknownAgent(AgentuseError):
    """A URL named an agent that is not one of this project's agent files."""

    http_status = 404


@dataclass
class AgentCard:
    """One row of the Agents page: the report, or why it could not be built."""

    key: str
    path: Path
    report: Report | None = None
    error: str | None = None


@dataclass
class LastTidy:
    folder: str  # the snapshot folder: names the tidy-up
    when: str  # ISO time of the snapshot
    ago: str  # "5m ago"
    summary: str
    undoable: bool
    headline: str = "Tidied up"  # or the capture pass it was: "Capture re-vet", "Capture drain"

    @property
    def name(self) -> str:
        """What the Undo button sends: undo refuses when another pass is the newest by then."""
        return Path(self.folder).name


@dataclass
class Project:
    root: Path

    @classmethod
    def at(cls, path: Path) -> "Project":
        return cls(root=store.project_root(path))

    @property
    def name(self) -> str:
        return self.root.name

    def agent_files(self) -> list[Path]:
        return find_agent_files(self.root)

    def key_of(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def resolve(self, key: str) -> Path:
        """The agent file a URL names: exactly a file the walk would list (under the root, not through a
        skipped or hidden folder, no `..`), checked without walking the whole tree on every request."""
        parts = PurePosixPath(key).parts
        path = self.root.joinpath(*parts)
        listed = (
            bool(parts) and key.endswith(AGENT_SUFFIX) and not PurePosixPath(key).is_absolute()
            and all(p not in ("..", ".") and not skipped(p) for p in parts[:-1])
        )
        try:
            listed = listed and path.is_file() and os.path.realpath(path).startswith(str(self.root) + os.sep)
        except OSError:  # a name the file system refuses (too long, say) names no file it holds
            listed = False
        if not listed:
            raise UnknownAgent(f"no agent file {key!r} in {self.root}: see the Agents page for the ones it has")
        return path

    def location(self, key: str) -> store.AgentLocation:
        return store.locate(self.resolve(key))

    def cards(self) -> list[AgentCard]:
        cards = []
        for path in self.agent_files():
            card = AgentCard(key=self.key_of(path), path=path)
            try:
                _, _, card.report = describe(path)
            except (AgentuseError, ValueError, OSError) as problem:  # a broken file is shown, not fatal
                card.error = str(problem)
            cards.append(card)
        return cards

    def session_dirs(self) -> list[Path]:
        """Where this project's runs are logged. In a git repository that is one folder; outside git each
        agent's folder is its own project (store.project_root), so every agent's folder is searched."""
        own = store.data_dir() / "project" / store.project_hash(self.root) / "session"
        found = {own, *(store.locate(path).session_dir for path in self.agent_files())}
        return sorted(found)

    def key_for(self, agent_path: str | None) -> str | None:
        """The serve key of the agent a session ran, when it is still one of this project's agent files."""
        if not agent_path:
            return None
        given = Path(agent_path)
        for candidate in (given, Path(os.path.realpath(given.parent)) / given.name):  # root is resolved
            try:
                key = candidate.relative_to(self.root).as_posix()
                self.resolve(key)
            except (ValueError, UnknownAgent):
                continue
            return key
        return None


def ago(iso: str, now: datetime | None = None) -> str:
    """`5m ago` style, as the spec's "Tidied up 5m ago" writes it."""
    try:
        then = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    if then.tzinfo is None:
        then = then.replace(tzinfo=timezone.utc)
    seconds = max(0, int(((now or datetime.now(timezone.utc)) - then).total_seconds()))
    if seconds < 60:
        return "just now"
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            return f"{seconds // size}{unit} ago"
    return "just now"  # pragma: no cover - the loop always returns for seconds >= 60


def last_tidy(location: store.AgentLocation) -> LastTidy | None:
    """The newest tidy-up snapshot, and whether undo would still accept it (nothing changed since that it
    would throw away: the check undo itself makes)."""
    snapshot = snapshots.latest(location)
    if snapshot is None:
        return None
    manifest = snapshot.manifest
    undoable = not snapshots.blockers(location, snapshot)
    headline = "Tidied up" if manifest.kind == snapshots.TIDY_UP else manifest.kind.capitalize()
    return LastTidy(folder=str(snapshot.folder), when=manifest.created, ago=ago(manifest.created),
                    summary=manifest.summary, undoable=undoable, headline=headline)


