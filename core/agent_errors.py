"""Errors about an agent file. They live apart so the frontmatter parser and the learned-block editor can
both raise them without importing each other."""

from __future__ import annotations

from agentuse.core.errors import AgentuseError


class AgentFileError(AgentuseError, ValueError):
    """An agent file that cannot be used as written. `str()` is `file:line: message`, one line per problem,
    so the user can jump straight to it; `line` is 1-based in the file (the opening `---` is line 1)."""

    def __init__(self, file: str, message: str, *, line: int | None = None,
                 more: list[tuple[int | None, str]] | None = None) -> None:
        self.file = str(file)
        self.line = line
        self.message = message
        # Further problems found in the same pass: reporting them together saves an edit-run-edit loop.
        self.problems: list[tuple[int | None, str]] = [(line, message), *(more or [])]
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(
            f"{self.file}:{line}: {message}" if line else f"{self.file}: {message}"
            for line, message in self.problems
        )


class BlockMarkerError(AgentFileError):
    """The learned block cannot be edited safely (unbalanced markers, or content that is not a rule list).
    Editing anyway could swallow the user's own text, so the caller must refuse and say why."""
