"""The built-in tools: read_file, write_file, list_dir, run_shell — confined to the project root.

A tool never raises into the loop. Every failure (a refused path, a missing file, an exception, a
non-zero exit, a timeout) comes back as an error outcome: the model sees it as an error tool_result and
can correct itself, and the session records it — which is exactly what the tool-errors channel learns from.
"""

from __future__ import annotations

import math
import os
import select
import subprocess
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agentuse.core.redact import REDACTED, mask_known
from agentuse.core.shell_env import ShellEnvironment, shell_environment
from agentuse.core.stop_signals import deferred, stopping_like_ctrl_c
from agentuse.runtime import shell_process
from agentuse.runtime.messages import ToolSpec, utf8_safe

DEFAULT_SHELL_TIMEOUT = 60.0
MAX_SHELL_TIMEOUT = 600.0  # a model asking for more than this is capped, not trusted
MAX_OUTPUT_CHARS = 20_000  # a runaway command must not fill the model's context window
# ... nor this process's memory: at most this much is read and kept (UTF-8 takes up to 4 bytes a character).
MAX_OUTPUT_BYTES = 4 * MAX_OUTPUT_CHARS + 4
_CHUNK = 65_536
_READ_POLL_SECONDS = 0.1  # how soon a reader told to stop notices
# Once a command's processes are ended, its output pipe closes at once unless a process out of reach holds it.
_OUTPUT_GRACE_SECONDS = 1.0
MAX_LIST_ENTRIES = 500

_PATH = {"type": "string", "description": "path relative to the project root"}

TOOL_SPECS = [
    ToolSpec(
        name="read_file",
        description="Read a UTF-8 text file inside the project.",
        input_schema={"type": "object", "properties": {"path": _PATH}, "required": ["path"]},
    ),
    ToolSpec(
        name="write_file",
        description="Write (create or replace) a UTF-8 text file inside the project; missing folders are created.",
        input_schema={
            "type": "object",
            "properties": {"path": _PATH, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    ),
    ToolSpec(
        name="list_dir",
        description="List the entries of a folder inside the project (folders end with '/').",
        input_schema={"type": "object", "properties": {"path": {**_PATH, "default": "."}}},
    ),
    ToolSpec(
        name="run_shell",
        description="Run a shell command with the project root as working directory; returns its output.",
        input_schema={
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "timeout": {"type": "number", "description": "seconds (default 60)"},
            },
            "required": ["command"],
        },
    ),
]


class ToolOutcome(BaseModel):
    output: str = ""
    error: str | None = None

    @property
    def is_error(self) -> bool:
        return self.error is not None


class ToolFailure(Exception):
    """Raised inside a tool; becomes an error outcome with this message."""


def _clip(text: str, *, total_bytes: int | None = None) -> str:
    """The text within MAX_OUTPUT_CHARS. `total_bytes`: the size of the whole when only its start was read."""
    if total_bytes is not None and (len(text) > MAX_OUTPUT_CHARS or len(text.encode("utf-8")) < total_bytes):
        return text[:MAX_OUTPUT_CHARS] + f"\n[... cut at {MAX_OUTPUT_CHARS:,} characters: {total_bytes:,} bytes in all]"
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS} more characters cut]"


def _shell_limit(asked: Any, default: float) -> float:
    """The model's timeout when it is a positive finite number of seconds (at most MAX_SHELL_TIMEOUT), else
    the default: a NaN (JSON parsers read it) never times out, a negative one kills the command at once."""
    try:
        seconds = float(asked)
    except (TypeError, ValueError):
        return default
    return min(seconds, MAX_SHELL_TIMEOUT) if math.isfinite(seconds) and seconds > 0 else default


class _Drain:
    """Reads a pipe to its end on a thread, keeping only its first MAX_OUTPUT_BYTES: the command is never
    blocked on a full pipe, and what it prints beyond that is counted, not held. `finish` stops reading a
    pipe a process out of reach still holds open (runtime/shell_process.py), rather than wait for it."""

    def __init__(self, pipe) -> None:
        self.kept = bytearray()
        self.total = 0
        self._pipe = pipe
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with self._pipe:
            fd = self._pipe.fileno()
            while not self._stop.is_set():
                if not select.select([fd], [], [], _READ_POLL_SECONDS)[0]:
                    continue
                if not (chunk := os.read(fd, _CHUNK)):
                    return
                self.total += len(chunk)
                if len(self.kept) < MAX_OUTPUT_BYTES:
                    self.kept += chunk[:MAX_OUTPUT_BYTES - len(self.kept)]

    def finish(self, grace: float | None) -> None:
        """Wait for the end of the output, at most `grace` seconds once the command's processes are ended."""
        self.thread.join(timeout=grace)
        self._stop.set()
        self.thread.join()

    def text(self) -> str:
        output = self.kept.decode("utf-8", errors="replace")
        return _clip(output, total_bytes=self.total) if self.total > len(self.kept) else _clip(output)


class ToolBox:
    def __init__(self, root: Path, *, shell_timeout: float = DEFAULT_SHELL_TIMEOUT,
                 environment: ShellEnvironment | None = None) -> None:
        self.root = root.resolve()
        self.shell_timeout = shell_timeout
        # Commands get the environment less its credentials (core/shell_env.py), and what any tool returns
        # is masked of their values: a command or a file can still hold one.
        self.environment = environment if environment is not None else shell_environment(os.environ)
        self._secrets = set(self.environment.secrets)

    @property
    def specs(self) -> list[ToolSpec]:
        return list(TOOL_SPECS)

    def run(self, name: str, arguments: Any) -> ToolOutcome:
        handler = getattr(self, f"_tool_{name}", None)
        if handler is None or name not in {spec.name for spec in TOOL_SPECS}:
            return ToolOutcome(error=f"unknown tool {name!r}; available: {', '.join(s.name for s in TOOL_SPECS)}")
        if not isinstance(arguments, dict):
            return ToolOutcome(error=f"{name} expects an object of arguments, got {type(arguments).__name__}")
        try:
            return ToolOutcome(output=self._shown_text(handler(**arguments)))  # each tool bounds what it returns
        except ToolFailure as failure:
            return ToolOutcome(error=self._shown_text(str(failure)))
        except TypeError as problem:  # missing or unexpected arguments
            return ToolOutcome(error=self._shown_text(f"{name}: bad arguments: {problem}"))
        except Exception as problem:  # noqa: BLE001 - reported to the model and the log, never swallowed
            return ToolOutcome(error=self._shown_text(f"{name}: {type(problem).__name__}: {problem}"))

    def _masks(self, target: Path) -> bool:
        """Whether what the tools showed of a file (its first MAX_OUTPUT_BYTES) hides a credential."""
        if not self._secrets or not target.is_file():
            return False
        with open(target, "rb") as handle:
            shown = handle.read(MAX_OUTPUT_BYTES).decode("utf-8", errors="replace")
        return mask_known(shown, self._secrets) != shown

    def _shown_text(self, text: str) -> str:
        return utf8_safe(mask_known(text, self._secrets) if self._secrets else text)

    def resolve(self, path: str) -> Path:
        """The real path inside the root; symlinks are followed first, so a link out is refused too."""
        if not isinstance(path, str) or not path.strip():
            raise ToolFailure("path must be a non-empty string")
        target = (self.root / os.path.expanduser(path)).resolve()
        if target != self.root and not target.is_relative_to(self.root):
            raise ToolFailure(f"path {path!r} is outside the project root; use a path relative to the project root")
        return target

    def _shown(self, target: Path) -> str:
        return target.relative_to(self.root).as_posix() or "."

    # -- the tools -----------------------------------------------------------------------------------

    def _tool_read_file(self, path: str) -> str:
        target = self.resolve(path)
        if not target.is_file():
            raise ToolFailure(f"no such file: {path}")
        with open(target, encoding="utf-8") as handle:  # only what can be shown is read
            text = handle.read(MAX_OUTPUT_CHARS + 1)
            size = os.fstat(handle.fileno()).st_size
        return _clip(text, total_bytes=size) if len(text) > MAX_OUTPUT_CHARS else text

    def _tool_write_file(self, path: str, content: str) -> str:
        target = self.resolve(path)
        if target.is_dir():
            raise ToolFailure(f"{path} is a folder, not a file")
        if target.exists() and not target.is_file():  # a FIFO would wait for a reader for ever
            raise ToolFailure(f"{path} is not a regular file; write_file writes regular files")
        if REDACTED in content and self._masks(target):
            raise ToolFailure(f"{path} holds a credential the tools show as {REDACTED}: writing back what was read "
                              f"would replace it with {REDACTED}. Change only the lines you mean to, with a command "
                              "that leaves the others as they are (sed -i, or appending with >>)")
        # resolve() already placed every missing folder inside the root, so creating them cannot escape it.
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"wrote {len(content.encode('utf-8'))} bytes to {self._shown(target)}"

    def _tool_list_dir(self, path: str = ".") -> str:
        target = self.resolve(path)
        if not target.is_dir():
            raise ToolFailure(f"no such folder: {path}")
        entries = sorted(target.iterdir(), key=lambda p: p.name)
        shown = [p.name + ("/" if p.is_dir() else "") for p in entries[:MAX_LIST_ENTRIES]]
        if len(entries) > MAX_LIST_ENTRIES:
            shown.append(f"[... {len(entries) - MAX_LIST_ENTRIES} more]")
        return _clip("\n".join(shown)) if shown else "(empty folder)"

    def _tool_run_shell(self, command: str, timeout: float | None = None) -> str:
        # Paths a shell command touches cannot be checked; confinement here is the working directory.
        limit = _shell_limit(timeout, self.shell_timeout)
        with stopping_like_ctrl_c():
            started = None
            try:
                # A SIGTERM between the child starting and `started` naming it would leave the child running:
                # one that arrives in between is raised here, once the command can be ended.
                with deferred():
                    started = shell_process.Command(command, cwd=self.root, env=self.environment.env)
                    process = started.process
                    drain = _Drain(process.stdout)
            except BaseException:
                if started is not None:
                    started.end()
                raise
            try:
                process.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                started.end()
                drain.finish(_OUTPUT_GRACE_SECONDS)
                raise ToolFailure(f"command timed out after {limit:g} s: {command}\n{drain.text()}".rstrip())
            except BaseException:
                # Ctrl-C, a SIGTERM or any other way out: the command has its own session, so the signal did not
                # reach it; left alone it would outlive us.
                started.end()
                raise
            # The command returned: what it left running in the background ends with it.
            started.end()
        drain.finish(_OUTPUT_GRACE_SECONDS)
        output = drain.text()
        if process.returncode != 0:
            raise ToolFailure(f"command exited with status {process.returncode}: {command}\n{output}".rstrip())
        return output
