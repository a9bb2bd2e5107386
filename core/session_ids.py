"""Session ids: 26-character ULIDs (`01K8Z...`), so a folder listing sorts sessions by start time.

48 bits of milliseconds then 80 random bits, in Crockford base32. The clock and the random source are
injectable so tests (and recorded examples) get repeatable ids.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_LENGTH = 26
_TIME_CHARS = 10  # 48 bits of milliseconds fit in 10 base32 characters


def _encode(value: int, length: int) -> str:
    chars = []
    for _ in range(length):
        value, digit = divmod(value, 32)
        chars.append(CROCKFORD[digit])
    return "".join(reversed(chars))


def new_session_id(
    *,
    clock: Callable[[], float] = time.time,
    randbytes: Callable[[int], bytes] = os.urandom,
) -> str:
    """A new sortable id; `clock` returns seconds since the epoch, `randbytes(n)` returns n bytes."""
    millis = int(clock() * 1000) & ((1 << 48) - 1)
    randomness = int.from_bytes(randbytes(10), "big")
    return _encode(millis, _TIME_CHARS) + _encode(randomness, ID_LENGTH - _TIME_CHARS)


def is_session_id(text: str) -> bool:
    return len(text) == ID_LENGTH and all(c in CROCKFORD for c in text.upper())


def timestamp_ms(session_id: str) -> int:
    """The creation time encoded in an id, in milliseconds since the epoch."""
    value = 0
    for char in session_id[:_TIME_CHARS].upper():
        value = value * 32 + CROCKFORD.index(char)
    return value


def id_time(session_id: str) -> float | None:
    """Seconds since the epoch that a session id was made at (its first 10 characters); None if not an id."""
    return timestamp_ms(session_id) / 1000 if is_session_id(session_id) else None


def first_id_at(seconds: float) -> str:
    """The smallest id made at `seconds` (its randomness all zeros): every id made later sorts after it."""
    return _encode(int(seconds * 1000) & ((1 << 48) - 1), _TIME_CHARS) + "0" * (ID_LENGTH - _TIME_CHARS)
