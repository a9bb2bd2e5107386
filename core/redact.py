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

import os
import re
from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator

from agentuse.core.lazy_regex import lazy
from agentuse.core.location import DATA_DIR_VARIABLE
from agentuse.core.secret_looks import high_entropy, is_path, is_secret_name, random_segment

REDACTED = "***"
M = TypeVar("M")


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
        if "/" in token and _in_state_dir(m):
            return token
        if "/" in token and is_path(token):  # each segment judged alone: a token in a URL path is still one
            return "/".join(self.hide(part) if high_entropy(part) or random_segment(part) else part
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


_WORD_START = re.compile(r"[^\s\"'`(<]*$")


def _in_state_dir(m: re.Match) -> bool:
    """The long token is part of a path under the state directory the person named (`AGENTUSE_DATA_DIR`):
    `mktemp -d` and `agentuse demo` give it a random-looking name, which is theirs, not a credential, and
    below it are agentuse's own folders (`project/<hash>/...`). Without this, "Extracted ... → <learnings
    file>" lost its folder. Only that layout: a data dir of `/tmp` does not make all of /tmp a name."""
    root = os.environ.get(DATA_DIR_VARIABLE, "").rstrip("/")
    if len(root) < 2 or root not in m.string:
        return False
    word = m.string[m.start() - len(_WORD_START.search(m.string, 0, m.start()).group(0)):m.end()]
    return word.startswith(root + "/project/")


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


# The last environment read and what it held: the environment rarely changes within a command, and reading
# os.environ decodes every variable (~13 us), where comparing its raw items costs ~1 us.
_ENVIRONMENT_READ: list[tuple[object, frozenset[str]]] = []


def environment_secrets() -> set[str]:
    """The values of the process environment's secret-named variables (`MY_VLLM_API_KEY`, `DEPLOY_TOKEN`):
    a run that echoes one bare (`echo $DEPLOY_TOKEN`), or a model repeating it, has nothing around it to
    recognise it by, and a custom endpoint's key has no format. Paths, URLs, and values mask_known would
    not mask anyway (short, word-like) are left out. Seeds the found set of a trace and of every helper
    message, so each mention is masked as a value recognised elsewhere in the run would be."""
    raw = getattr(os.environ, "_data", None)  # CPython's undecoded mapping; without it, read every time
    key = tuple(raw.items()) if isinstance(raw, dict) else None
    if key is not None and _ENVIRONMENT_READ and _ENVIRONMENT_READ[0][0] == key:
        return set(_ENVIRONMENT_READ[0][1])
    found: set[str] = set()
    for name, value in os.environ.items():
        if len(value) < _MASK_MIN or value[0] in "/~." or "://" in value or any(c.isspace() for c in value):
            continue
        if is_secret_name(name) and not _placeholder(value) and _looks_like_a_credential(value):
            found.add(value)
    _ENVIRONMENT_READ[:] = [(key, frozenset(found))]
    return found


def redacted_together(validate: Callable[[], M]) -> M:
    """`validate()` (a pydantic model's validation) with one found set for all its `Redacted` fields, nested
    messages included: a value recognised in one (a title's `DB_PASSWORD=x`) is masked in every other (a
    body's bare `x`). Nested messages validate inside the outermost one, which does the masking."""
    if _FOUND.get() is not None:
        return validate()
    found = environment_secrets()
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


def redact_texts(*texts: str | None) -> list[str | None]:
    """Several texts of one origin (a reviewer's note, the comment beside it, the work it was left on), each
    redacted, with a value recognised in one masked in all."""
    found = environment_secrets()
    redacted = [redact_text(text, found) if text else text for text in texts]
    return [mask_known(text, found) if text and found else text for text in redacted]


def mask_known_value(value: Any, found: set[str]) -> Any:
    if isinstance(value, dict):
        return {k: mask_known_value(v, found) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_known_value(v, found) for v in value]
    return mask_known(value, found) if isinstance(value, str) else value
