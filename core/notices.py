"""Warn once per agent, not every run (spec: Upgrading an existing agent — "Warns once, continues").

Which notices an agent has been shown is kept in one small JSON file per project in the state directory,
beside the learnings, keyed by the agent's project-relative path. The text is stored too, so `doctor` can
echo what was said long after the run that said it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agentuse.core.agent_config import NOTICE_KEYS
from agentuse.core.store import AgentLocation, atomic_write, lock_for

NOTICES_FILE = "notices.json"


def notices_path(location: AgentLocation) -> Path:
    return location.project_dir / NOTICES_FILE


def once(location: AgentLocation, key: str, text: str) -> bool:
    """True the first time this agent meets `key` (the caller then shows `text`), False afterwards."""
    path = notices_path(location)
    with lock_for(path):  # two runs of one agent at once must not both decide they were first (it makes the folder)
        seen = _read(path)
        if seen is None:
            # Unreadable: show the notice again rather than never, and leave the file for a human.
            return True
        agent = seen.setdefault(location.key, {})
        if key in agent:
            return False
        agent[key] = text
        try:
            atomic_write(path, json.dumps(seen, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        except OSError:
            pass  # a state dir we cannot write must not stop the run; the notice just comes back next time
    return True


def announce(location: AgentLocation, notices: list[str]) -> list[str]:
    """The notices (an `AgentFile.notices` list) this agent has not been shown yet, now marked shown."""
    return [text for text in notices if once(location, notice_key(text), text)]


def shown(location: AgentLocation) -> dict[str, str]:
    """Every notice this agent has been shown, by key."""
    return dict((_read(notices_path(location)) or {}).get(location.key, {}))


def notice_key(text: str) -> str:
    # Named keys for the notices agent_file knows; any other text is keyed by its content, so a
    # reworded notice counts as new and is shown once more.
    return NOTICE_KEYS.get(text) or "text-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _read(path: Path) -> dict[str, dict[str, str]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        return None
    return data
