"""Whether a name or a token looks like a secret, where no credential format says so (core/redact.py).

Names: judged by their words (`DB_PASS`, `apiKey`, `X-Api-Key`, `--client-secret`, `session_id`) and by
the secret words inside a one-case run, which has no word boundary to split at (`PGPASSWORD`,
`NPM_AUTHTOKEN`, `GITHUBTOKEN`). Measured on the 232,065 identifiers of the installed packages' Python
source, the runs add 74 secret names to the words' count, nearly all named for one (`accesstoken`,
`sslpassword`, `setcookie`); ordinary words with the same letters (`BYPASS`, `COMPASS`, `TOKENIZER`,
`KEYBOARD`, `MONKEY`, `AUTHOR`) are not secret names (tests/reliability/test_secrets.py lists both sides).

Tokens: a long token of the base64 alphabet is a secret unless it is hex (SHAs, digests) or made of words
(identifiers, file names, slugs); a path is judged segment by segment, so a token in a URL's path is
still found and the folders around it are shown as they are.
"""

from __future__ import annotations

import math
from collections import Counter

from agentuse.core.lazy_regex import lazy

_WORD_RUNS = lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")  # a name's words: `DB`, `Pass`, `word`, `42`
_HEX = lazy(r"[0-9a-fA-F-]+")
_ULID = lazy(r"[0-9A-HJKMNP-TV-Z]{26}")  # a session id: Crockford base32
_RANDOM_SEGMENT_CHARS = 12  # letters and digits
_RANDOM_LETTERS_CHARS = 16  # letters alone, of both cases
_ROOTS = frozenset({"tmp", "usr", "var", "opt", "srv", "mnt", "nix", "etc", "run", "proc"})  # not words, still roots
_CONSONANTS = lazy(r"[^aeiouy]{4}")
_WORDY = 0.55  # share of a token in word-like runs above which it is a name, not a secret
_JOINERS = lazy(r"[-_]")
_JOINED_PART = lazy(r"\d?(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)\d{0,4}|\d{1,4}")  # one case; `3d`, `review18`, `2026`
_SHORT_PART = 3  # letters: `q3`, `v2`, `db`, `XML` need not read as words, a longer part must
_PIECES = lazy(r"[/=.+]")
_CONSONANT_RUN = lazy(r"[^aeiouy]{5}")  # `strengths` has 5


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _wordlike(part: str) -> bool:
    """A run of letters that reads like a word: 3+ letters, vowels, no 4 consonants in a row."""
    lower = part.lower()
    return (len(part) >= 3 and part.isalpha() and not (part.isupper() and len(part) > 1)
            and sum(c in "aeiouy" for c in lower) * 4 >= len(lower) and not _CONSONANTS.search(lower))


def _readable(letters: str) -> bool:
    """The letters of one part of a joined name: short, or with a vowel and no 5 consonants in a row
    (`scratch`, `strength` and `HELPER` read; `xqzvbt` does not)."""
    lower = letters.lower()
    return len(letters) <= _SHORT_PART or (any(c in "aeiouy" for c in lower) and not _CONSONANT_RUN.search(lower))


def _joined_words(piece: str) -> bool:
    """Words of one case joined by `-` or `_`, with short digit runs, mostly words longer than 3 letters:
    `sprint18-review`, `release-2026_q3-hotfix4`, `AGENTUSE_HELPER_TIMEOUT_SECONDS`. A url-safe random token
    splits into parts too, but of mixed case or short."""
    parts = _JOINERS.split(piece)
    if len(parts) < 2 or not all(_JOINED_PART.fullmatch(part) for part in parts):
        return False
    words = [part.strip("0123456789") for part in parts]
    if "-" in piece and any(w.isupper() and len(w) > _SHORT_PART for w in words):
        return False  # capitals join with `_` (`TIMEOUT_SECONDS`); `XIEKD-JQIOX` is a licence key's shape
    return all(_readable(w) for w in words) and sum(len(w) for w in words if len(w) > _SHORT_PART) >= _WORDY * len(piece)


def _word_chars(token: str) -> int:
    """How much of a token reads as words: its joined names whole, elsewhere its word-like runs."""
    return sum(len(piece) if _joined_words(piece) else sum(len(w) for w in _WORD_RUNS.findall(piece) if _wordlike(w))
               for piece in _PIECES.split(token))


def high_entropy(token: str) -> bool:
    """A random-looking token: hex (SHAs, digests) and names made of words (identifiers, file names,
    slugs) do not count. Measured on random tokens of 32 characters, this finds 99% of base62/base64
    ones and 97% of lowercase base36 ones; every identifier tried has over 60% of its letters in words."""
    if len(token.rstrip("=")) < 32 or _HEX.fullmatch(token) or not any(c.isdigit() for c in token):
        return False
    return _word_chars(token) < _WORDY * len(token) and _entropy(token) >= 3.5


def _name_like(segment: str) -> bool | None:
    """One segment of a path: a name (words, a number, a hex digest, a ULID), not one, or too short to tell."""
    if len(segment) < 3:
        return None
    if segment.isdigit() or (len(segment) >= 6 and _HEX.fullmatch(segment)) or _ULID.fullmatch(segment):
        return True
    return _word_chars(segment) >= _WORDY * len(segment)


def is_path(token: str) -> bool:
    """A long token that is a path of names (`/home/me/.local/share/agentuse/project/9f8e7d6c5b4a/...`),
    not a base64 secret that holds slashes: at least two segments are names, and every judged one is (a
    relative path, a URL's `//host/...`) or, in an absolute path that starts with a name, half of them are
    (`/var/folders/q1w2.../T`); the others are judged one by one (`random_segment`). Measured on 100,000
    random base64 tokens with a slash: 0.006% read as paths."""
    segments = [part for part in token.split("/") if part]
    if len(segments) < 3:
        return False
    verdicts = [_name_like(part) for part in segments]
    judged = [verdict for verdict in verdicts if verdict is not None]
    named = sum(judged)
    if named < 2:
        return False
    if token.startswith("/") and not token.startswith("//") and (verdicts[0] or segments[0] in _ROOTS):
        return 2 * named >= len(judged)
    return named == len(judged)


def random_segment(segment: str) -> bool:
    """A path segment that is no name and reads as random: an invite code or a token in a URL's path
    (`/api/v1/invites/Xk3dP9qLm2Vt8sYw4ZbN/accept`), hidden though shorter than a free-standing secret."""
    if len(segment) < _RANDOM_SEGMENT_CHARS or _name_like(segment) is not False or _entropy(segment) < 3.0:
        return False
    digits, upper, lower = (any(test(c) for c in segment) for test in (str.isdigit, str.isupper, str.islower))
    return (digits and (upper or lower)) or (upper and lower and len(segment) >= _RANDOM_LETTERS_CHARS)


# ---------------------------------------------------------------- names

_SECRET_WORDS = frozenset({
    "password", "passwords", "passwd", "passphrase", "pass", "pwd", "secret", "secrets", "token", "apikey",
    "credential", "credentials", "cookie", "auth", "authorization", "privatekey", "accesskey", "secretkey",
    "sessionid", "sessiontoken",
})
_SECRET_PAIRS = frozenset({
    ("api", "key"), ("access", "key"), ("private", "key"), ("signing", "key"), ("encryption", "key"),
    ("master", "key"), ("license", "key"), ("client", "key"), ("app", "key"), ("account", "key"),
    ("session", "id"), ("session", "key"),
})
# A name ending in one of these names something about the secret, not the secret itself.
_ABOUT_A_SECRET = frozenset({
    "type", "method", "mode", "url", "uri", "endpoint", "file", "path", "dir", "name", "header", "scheme",
    "provider", "enabled", "required", "count", "length", "len", "size", "ttl", "expiry", "expires",
    "timeout", "policy", "format", "kind", "field", "env", "var", "hint", "prompt", "stdin", "limit", "id",
})


# A run of one case holds no word boundary (`PGPASSWORD`, `NPM_AUTHTOKEN`, `githubtoken`): these words are
# secret anywhere in a run unless what follows says it is about one (`PASSWORDFILE`, `PASSWORDLESS`) ...
_SECRET_INFIXES = ("password", "passwd", "passphrase")
# ... and these at a run's end after a qualifier (`DBPASS`, `APITOKEN`, `STRIPEAPIKEY`), except in ordinary
# words that end so. Never at a run's start: `TOKENIZER`, `PASSENGER`, `KEYBOARD`, `SECRETARY`, `AUTHOR`.
_SECRET_SUFFIXES = tuple(sorted(_SECRET_WORDS - {"auth"} | {a + b for a, b in _SECRET_PAIRS}, key=len, reverse=True))
_ENDS_LIKE_A_SECRET = frozenset({
    "bypass", "compass", "encompass", "surpass", "trespass", "overpass", "underpass", "repass", "prepass",
    "multipass", "lowpass", "highpass", "bandpass", "getpass", "oldpwd", "nmtoken",
})


def _secret_run(run: str) -> bool:
    """One lower-cased run of a name: a secret word, or one inside it (see `_SECRET_INFIXES`)."""
    if run in _SECRET_WORDS:
        return True
    for word in _SECRET_INFIXES:
        at = run.find(word)
        if at >= 0:
            rest = run[at + len(word):].removeprefix("s")
            return rest not in _ABOUT_A_SECRET and rest != "less"
    return run not in _ENDS_LIKE_A_SECRET and run.endswith(_SECRET_SUFFIXES)


def is_secret_name(name: str) -> bool:
    """`DB_PASS`, `apiKey`, `X-Api-Key`, `--client-secret`, `session_id`, `PGPASSWORD`: judged by the
    name's words, and by the secret words inside a run that has no word boundary."""
    words = [w.lower() for w in _WORD_RUNS.findall(name)]
    if not words or words == ["pwd"]:  # $PWD is the working directory
        return False
    if any(pair in _SECRET_PAIRS for pair in zip(words, words[1:])):
        return True
    if words[-1] in _ABOUT_A_SECRET:
        return False
    return any(_secret_run(w) for w in words)
