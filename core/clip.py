"""Text cut to a length, saying how much was left out: evidence, quarantine reasons, trace fields.

Its own module so a command that only words a reason (`learnings add`) does not import the trace's models.
"""

from __future__ import annotations


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" [... {len(text) - limit} more characters]"
