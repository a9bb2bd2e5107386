"""Small helpers every route module shares: rendering a template, one-shot messages, redirects."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from urllib.parse import quote

import jinja2
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from agentuse.core.status_text import PROVISIONAL_LINE

from agentuse.serve.project import Project
from agentuse.serve.security import CSRF_FIELD, csrf_token

TEMPLATES = Path(__file__).parent / "templates"


def make_templates() -> Jinja2Templates:
    # Autoescape everywhere: rule text, comments and model output are data, never markup.
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # The CLI's own wording, so the page and `agentuse learnings` say the same thing.
    env.globals["provisional_line"] = PROVISIONAL_LINE
    return Jinja2Templates(env=env, context_processors=[_common])


def _common(request: Request) -> dict:
    return {
        "csrf_field": CSRF_FIELD,
        "csrf": csrf_token(request),
        "project": request.app.state.project,
        "flash": take_flash(request),
    }


def project(request: Request) -> Project:
    return request.app.state.project


def agent_key(request: Request) -> tuple[str, Path]:
    """The agent file the URL names and its one key: `agents//x.agentuse` is `agents/x.agentuse`, and so is
    a symlink to it, so a running tidy-up, a link or a flash never depends on how the address was typed."""
    path = project(request).resolve(request.path_params["key"])
    return project(request).one_key(path), path


def render(request: Request, template: str, status_code: int = 200, headers: dict | None = None,
           **context) -> Response:
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, template, context, status_code=status_code, headers=headers)


class Flashes:
    """One-shot messages carried across a POST-redirect-GET by an opaque id, never by their text in the
    URL (a crafted link cannot make the page say something)."""

    LIMIT = 200

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[str, list[str]]] = OrderedDict()

    def put(self, kind: str, lines: list[str]) -> str:
        key = secrets.token_urlsafe(8)
        with self._lock:
            self._items[key] = (kind, lines)
            while len(self._items) > self.LIMIT:
                self._items.popitem(last=False)
        return key

    def take(self, key: str) -> tuple[str, list[str]] | None:
        with self._lock:
            return self._items.pop(key, None)


def take_flash(request: Request) -> dict | None:
    key = request.query_params.get("flash")
    found = request.app.state.flashes.take(key) if key else None
    return {"kind": found[0], "lines": found[1]} if found else None


def redirect(request: Request, url: str, *, kind: str = "ok", lines: list[str] | None = None) -> Response:
    """303 back to a page, with an optional message shown once there."""
    if lines:
        key = request.app.state.flashes.put(kind, lines)
        url, hash_, fragment = url.partition("#")  # the query goes before a #rule-<id> fragment
        url += ("&" if "?" in url else "?") + f"flash={key}" + hash_ + fragment
    return RedirectResponse(url, status_code=303)


def agent_url(key: str, suffix: str = "learnings") -> str:
    return f"/agents/{quote(key)}/{suffix}"
