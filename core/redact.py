"""Credentials out of everything learning keeps or sends (issue 13): one redaction, by key name and by value.

A run's trace, a reviewer's note and a model's answer can all carry credentials: a `run_shell` command
with `--password hunter2`, a token pasted into a prompt, a URL with `user:password@`. What the capture
pipeline reads of a run (`core/trace.py`), what a helper is asked (`core/helper/protocol.py`), what a
record is stamped with (`core/capture.py`), what a run's prompt is given (`core/inject.py`) and the
session log's learning lines (`runtime/events.py`) all pass through here, so a credential never becomes
a rule that the next run's system prompt repeats. Key-name redaction alone missed every credential that
sat inside a value (a shell command is one string).

Recognised, and replaced by `***` (keeping what says what it was: the flag, the variable, the header
scheme, the URL's user):
- credential formats: GitHub (`ghp_ gho_ ghu_ ghs_ ghr_`, `github_pat_`), Anthropic (`sk-ant-`),
  OpenAI/Stripe style (`sk-`, `sk-proj-`, `sk-live-`, `sk_live_`, `rk_`/`pk_` live/test), AWS access key
  ids (`AKIA`, `ASIA`, ...), Slack (`xox?-`), Google API keys (`AIza`), GitLab (`glpat-`), npm (`npm_`),
  Hugging Face (`hf_`), SendGrid (`SG.`), JWTs (`eyJ...`), PEM private key blocks;
- `Authorization:` headers (any scheme) and `Bearer <token>`;
- `scheme://user:password@` in URLs, and `-u`/`--user user:password`;
- long flags with a secret-looking name: `--password x`, `--token=x`, `--api-key x`, `--client-secret x`;
- assignments to secret-looking names: `PASSWORD=x`, `export DB_PASS='x'`, `"api_key": "x"`, and
  `password: x` when x looks like a credential (so "invalid token: expired" stays as it is);
- long high-entropy strings: 32+ characters of the base64/url-safe alphabet with a digit, not hex, not
  made of words, at least 3.5 bits of entropy per character.
Left alone: variable references and placeholders (`$TOKEN`, `${X}`, `<key>`, `***`), paths (judged segment
by segment, see `is_path`; words joined by `-`/`_` such as `sprint18-review` are names), words, hex
hashes and git SHAs, uuids, ULIDs, dates, numbers. Names are secret-looking by their words
(`DB_PASS`, `apiKey`, `X-Api-Key`, `session_id`) and by the secret words inside a one-case run
(`PGPASSWORD`, `NPM_AUTHTOKEN`), not by any substring: `author`, `max_tokens`, `PWD`, `BYPASS`,
`TOKENIZER_PATH`, `--token-file` and `--auth-type` are not credentials.

A message with several redacted fields (a draft's title and body) shares one found set across them
(`redacted_together`): a value recognised in one is masked in all.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator

from agentuse.core.lazy_regex import lazy

REDACTED = "***"
M = TypeVar("M")

# ---------------------------------------------------------------- names

_NAME_WORDS = lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
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
    words = [w.lower() for w in _NAME_WORDS.findall(name)]
    if not words or words == ["pwd"]:  # $PWD is the working directory
        return False
    if any(pair in _SECRET_PAIRS for pair in zip(words, words[1:])):
        return True
    if words[-1] in _ABOUT_A_SECRET:
        return False
    return any(_secret_run(w) for w in words)


# ---------------------------------------------------------------- values

# A value after a flag, `=` or `:`: JSON-escaped quotes (a transcript holds JSON), quotes, or a bare word.
_VALUE = r"""(?:\\"(?:[^"\\]|\\[^"])*\\"|"[^"]*"|'[^']*'|\$\{[^}\s]*\}|[^\s"'`;&|,)}\]\\]+)"""
_PLACEHOLDER = lazy(
    r"""^(?:\*+|\$\w+|\$\{[^}]*\}|\$\([^)]*\)|%\w+%|<[^<>]*>|\{\{.*\}\}|x{3,}|\.{3}|…|\[?redacted\]?|null|none)$""",
    re.I)


def _unquoted(value: str) -> str:
    for quote in ('\\"', '"', "'"):
        if len(value) >= 2 * len(quote) and value.startswith(quote) and value.endswith(quote):
            return value[len(quote):-len(quote)]
    return value


def _placeholder(value: str) -> bool:
    inner = _unquoted(value).strip()
    return not inner or bool(_PLACEHOLDER.match(inner))


def _looks_like_a_credential(value: str) -> bool:
    """For `name: value`, where prose uses the same shape ("token: expired")."""
    v = _unquoted(value)
    return (any(c.isdigit() for c in v) or (any(c.isupper() for c in v) and any(c.islower() for c in v))
            or any(not c.isalnum() for c in v) or len(v) >= 16)


_TOKENS = lazy("|".join([
    r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b",
    r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b",
    r"\bsk-ant-[A-Za-z0-9_-]{16,}",
    r"\b(?:sk|rk|pk)[-_](?:live|test|proj|svcacct|admin)[-_][A-Za-z0-9_-]{8,}",
    r"\bsk-[A-Za-z0-9]{20,}\b",
    r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[A-Z0-9]{16}\b",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\bAIza[0-9A-Za-z_-]{35}\b",
    r"\bglpat-[A-Za-z0-9_-]{20,}",
    r"\bnpm_[A-Za-z0-9]{36}\b",
    r"\bhf_[A-Za-z0-9]{30,}\b",
    r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}",
    r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
]), re.S)
# Cheap substring tests that skip a pattern when the text cannot hold its match: the patterns are tried at
# every position, and most text (rule text, a quiet trace) holds none of them.
_TOKEN_PREFIXES = ("-----BEGIN", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-", "sk_", "rk-", "rk_",
                   "pk-", "pk_", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA",
                   "AIDA", "AIPA", "ANPA", "ANVA", "APKA", "AROA", "xox", "AIza", "glpat-", "npm_", "hf_", "SG.",
                   "eyJ")
_NAME_STEMS = ("pass", "pwd", "secret", "token", "key", "credential", "cookie", "auth", "session")
_URL_USERINFO = lazy(r"""(?i)\b([a-z][a-z0-9+.-]{0,30}://[^\s/@:'"]*:)([^\s/@'"]+)@""")
_USER_FLAG = lazy(r"""(?<![\w-])((?:-u|--user|--proxy-user)(?:[ \t]+|=)[^\s:'"]+:)([^\s'"\\]+)""")
_AUTH_HEADER = lazy(
    rf"(?i)(\b(?:proxy-)?authorization\\?\"?\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate|bot)\s+)?)({_VALUE})")
_BEARER = lazy(r"(?i)(?<![\w-])(bearer\s+)((?=[\w.~+/=-]*[\d.~+/=-])[\w.~+/=-]{8,})")
_FLAG = lazy(rf"(?<![\w-])(--[A-Za-z][\w-]{{0,63}})(=|[ \t]+)({_VALUE})")
_QUOTED_KEY = lazy(r"""(\\?["'])([A-Za-z_][\w.-]{0,63})\1(\s*:\s*)(\\?["'])((?:(?!\4).)*)\4""")
_ASSIGN = lazy(rf"(?<![\w$.-])([A-Za-z_][\w.-]{{0,63}})(\s*=\s*)(?!=)({_VALUE})")
_COLON = lazy(rf"(?<![\w$.-])([A-Za-z_][\w.-]{{0,63}})(:[ \t]*)({_VALUE})")
_LONG = lazy(r"(?<![\w+/=-])[A-Za-z0-9+/=_-]{32,}(?![\w+/=-])")
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
    return sum(len(piece) if _joined_words(piece) else sum(len(w) for w in _NAME_WORDS.findall(piece) if _wordlike(w))
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
    (`/var/folders/q1w2.../T`); the others are judged one by one (`_random_segment`). Measured on 100,000
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


def _random_segment(segment: str) -> bool:
    """A path segment that is no name and reads as random: an invite code or a token in a URL's path
    (`/api/v1/invites/Xk3dP9qLm2Vt8sYw4ZbN/accept`), hidden though shorter than a free-standing secret."""
    if len(segment) < _RANDOM_SEGMENT_CHARS or _name_like(segment) is not False or _entropy(segment) < 3.0:
        return False
    digits, upper, lower = (any(test(c) for c in segment) for test in (str.isdigit, str.isupper, str.islower))
    return (digits and (upper or lower)) or (upper and lower and len(segment) >= _RANDOM_LETTERS_CHARS)


class _Redaction:
    """One pass over a text; `found` collects the values it removed (a trace masks them everywhere)."""

    def __init__(self, found: set[str] | None) -> None:
        self.found = found

    def hide(self, value: str) -> str:
        if self.found is not None:
            self.found.add(_unquoted(value))
        return REDACTED

    def run(self, text: str) -> str:
        if any(prefix in text for prefix in _TOKEN_PREFIXES):
            text = _TOKENS.sub(lambda m: self.hide(m.group(0)), text)
        if "@" in text:
            text = _URL_USERINFO.sub(lambda m: m.group(0) if _placeholder(m.group(2))
                                     else m.group(1) + self.hide(m.group(2)) + "@", text)
        if "-u" in text or "--user" in text or "--proxy-user" in text:
            text = _USER_FLAG.sub(lambda m: m.group(0) if _placeholder(m.group(2))
                                  else m.group(1) + self.hide(m.group(2)), text)
        lower = text.lower()
        if "bearer" in lower:
            text = _BEARER.sub(lambda m: m.group(1) + self.hide(m.group(2)), text)
        if any(stem in lower for stem in _NAME_STEMS):
            text = _AUTH_HEADER.sub(lambda m: m.group(0) if _placeholder(m.group(2))
                                    else m.group(1) + self.hide(m.group(2)), text)
            text = _FLAG.sub(self._flag, text)
            text = _QUOTED_KEY.sub(self._quoted, text)
            text = _ASSIGN.sub(self._assign, text)
            text = _COLON.sub(self._colon, text)
        if len(text) >= 32:
            text = _LONG.sub(self._long, text)
        return text

    def _long(self, m: re.Match) -> str:
        token = m.group(0)
        if "/" in token and is_path(token):  # each segment judged alone: a token in a URL path is still one
            return "/".join(self.hide(part) if high_entropy(part) or _random_segment(part) else part
                            for part in token.split("/"))
        return self.hide(token) if high_entropy(token) else token

    def _flag(self, m: re.Match) -> str:
        flag, sep, value = m.groups()
        if not is_secret_name(flag) or value.startswith("-") or _placeholder(value):
            return m.group(0)
        return flag + sep + self.hide(value)

    def _quoted(self, m: re.Match) -> str:
        quote, name, sep, vquote, value = m.groups()
        if not is_secret_name(name) or _placeholder(value):
            return m.group(0)
        return f"{quote}{name}{quote}{sep}{vquote}{self.hide(value)}{vquote}"

    def _assign(self, m: re.Match) -> str:
        name, sep, value = m.groups()
        if not is_secret_name(name) or _placeholder(value):
            return m.group(0)
        return name + sep + self.hide(value)

    def _colon(self, m: re.Match) -> str:
        name, sep, value = m.groups()
        if name.lower().endswith("authorization"):  # `_AUTH_HEADER` kept its scheme word; it is not the value
            return m.group(0)
        if not is_secret_name(name) or _placeholder(value) or not _looks_like_a_credential(value):
            return m.group(0)
        return name + sep + self.hide(value)


def redact_text(text: str, found: set[str] | None = None) -> str:
    """`text` with every credential it shows replaced by `***`; idempotent. `found`, when given, collects
    the removed values so a caller holding more text from the same run can mask their other mentions."""
    if not text:
        return text
    return _Redaction(found).run(text)


# The values removed while one message is validated (`redacted_together`), so its other fields mask them.
_FOUND: ContextVar[set[str] | None] = ContextVar("agentuse_redacted_found", default=None)


def _redact_field(text: str) -> str:
    return redact_text(text, _FOUND.get())


# A string field that never holds a credential: what a helper is asked, a learning line of the session log.
Redacted = Annotated[str, AfterValidator(_redact_field)]


def redacted_together(validate: Callable[[], M]) -> M:
    """`validate()` (a pydantic model's validation) with one found set for all its `Redacted` fields, nested
    messages included: a value recognised in one (a title's `DB_PASSWORD=x`) is masked in every other (a
    body's bare `x`). Nested messages validate inside the outermost one, which does the masking."""
    if _FOUND.get() is not None:
        return validate()
    found: set[str] = set()
    token = _FOUND.set(found)
    try:
        model = validate()
    finally:
        _FOUND.reset(token)
    if found:
        _mask_fields(model, found)
    return model


def _mask_fields(value: Any, found: set[str]) -> None:
    if isinstance(value, list):
        for item in value:
            _mask_fields(item, found)
        return
    fields = getattr(type(value), "model_fields", None)
    for name, info in (fields or {}).items():
        current = getattr(value, name)
        if isinstance(current, str):
            if any(getattr(m, "func", None) is _redact_field for m in info.metadata):
                setattr(value, name, mask_known(current, found))
        elif current is not None:
            _mask_fields(current, found)


def redact_value(value: Any, found: set[str] | None = None, *, _secret: bool = False) -> Any:
    """A JSON-like value (a tool call's input) with credentials removed: every string under a key with a
    secret-looking name, and every credential inside any other string."""
    if isinstance(value, dict):
        return {k: redact_value(v, found, _secret=_secret or is_secret_name(str(k))) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v, found, _secret=_secret) for v in value]
    if isinstance(value, str):
        if _secret and not _placeholder(value):
            if found is not None:
                found.add(value)
            return REDACTED
        return redact_text(value, found)
    return value


# A removed value is masked elsewhere in the run only when it is long enough and looks like a credential:
# a 3-letter password, or `--token production`, would otherwise erase every ordinary mention of a word.
_MASK_MIN = 6


def mask_known(text: str, found: set[str]) -> str:
    """Other mentions of values already removed from the same run (a command's `--password hunter2`,
    then an error that echoes `hunter2` with nothing around it to recognise it by)."""
    for value in sorted((v for v in found if len(v) >= _MASK_MIN and _looks_like_a_credential(v)), key=len,
                        reverse=True):
        text = text.replace(value, REDACTED)
    return text


def mask_known_value(value: Any, found: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: mask_known_value(v, found) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_known_value(v, found) for v in value]
    return mask_known(value, found) if isinstance(value, str) else value
