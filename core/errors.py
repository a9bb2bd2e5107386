"""The one exception family every surface turns into a clear message and a non-zero exit."""

from __future__ import annotations


class AgentuseError(Exception):
    """A problem the user can act on. Its message says what is wrong and what to do."""

    exit_code = 1
