"""The `agentuse serve` application: one Starlette app, server-rendered pages, one small script.

Route modules (agents, sessions, tidy) each export `ROUTES`; this module wires them with the security
layers. Order of the layers, outermost first: hardened headers (on every answer, refusals too), Host check
(DNS rebinding), same-origin redirects, token gate, CSRF cookie, body limit.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from agentuse.core.errors import AgentuseError
from agentuse.core.store_format import StoreFormatError
from agentuse.serve import agents, sessions, tidy
from agentuse.serve.jobs import TidyJobs
from agentuse.serve.limits import TOO_LARGE, BodyLimit
from agentuse.serve.project import Project
from agentuse.serve.security import HARDENED_HEADERS, CsrfCookie, HardenedHeaders, SameOriginRedirects, TokenGate
from agentuse.serve.web import Flashes, make_templates, render

STATIC = Path(__file__).parent / "static"
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


def loopback_hosts(bind: str) -> list[str]:
    """The Host names a loopback bind answers to: the usual ones and the address it was given (any of
    127.0.0.0/8 is loopback). An address literal is never a name DNS could rebind."""
    given = bind.strip("[]").lower()
    return LOOPBACK_HOSTS if given in LOOPBACK_HOSTS else [*LOOPBACK_HOSTS, given]


def create_app(project_root: Path, *, token: str | None, allowed_hosts: list[str] | None = None) -> Starlette:
    """The app for one project. Every request must carry `token` (None only for an explicit `--no-token`).
    Unless `allowed_hosts` widens it (a remote bind), only loopback Host headers are accepted, so a page on
    another site cannot reach it by rebinding DNS."""
    hosts = allowed_hosts or LOOPBACK_HOSTS
    secret = secrets.token_bytes(32)  # CSRF key: lives and dies with this process
    app = Starlette(
        routes=[*agents.ROUTES, *sessions.ROUTES, *tidy.ROUTES, Route("/favicon.ico", _favicon),
                Mount("/static", StaticFiles(directory=STATIC), name="static")],
        middleware=[
            Middleware(HardenedHeaders),
            Middleware(TrustedHostMiddleware, allowed_hosts=hosts, www_redirect=False),
            Middleware(SameOriginRedirects),
            Middleware(TokenGate, token=token),
            Middleware(CsrfCookie),
            Middleware(BodyLimit),
        ],
        exception_handlers={AgentuseError: _problem, StoreFormatError: _problem, HTTPException: _http_problem,
                            Exception: _crash},
    )
    app.state.project = Project.at(project_root)
    app.state.templates = make_templates()
    app.state.flashes = Flashes()
    app.state.csrf_secret = secret
    app.state.jobs = TidyJobs()
    return app


async def _problem(request: Request, error: Exception) -> Response:
    """The project's errors already say what to do; show that one message on a page, not a traceback."""
    status = getattr(error, "http_status", 400)  # 404 for an agent or job this server does not know
    return render(request, "problem.html", status_code=status, status=status, message=str(error))


# Starlette's own refusals (no such route, wrong method), written for a person in a browser.
HTTP_WORDS = {
    404: "There is no page at this address. The Agents and Sessions pages link to everything this server shows.",
    405: "This address only takes a form sent from one of this server's pages. Go back and use its button.",
    TOO_LARGE: "That form carried more than this server takes (a megabyte of text, no files). Shorten what you "
               "wrote and send it again.",
}


async def _http_problem(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    message = HTTP_WORDS.get(error.status_code, error.detail)
    return render(request, "problem.html", status_code=error.status_code, status=error.status_code, message=message,
                  headers=getattr(error, "headers", None))


CRASHED = ("The server hit an unexpected error ({kind}) and did not finish. The terminal running agentuse serve "
           "shows what happened; reload the page to try again.")


async def _crash(request: Request, error: Exception) -> Response:
    """A bug's page: styled, in a person's words, and without the traceback or the error's text (paths,
    whatever the failing call held); Starlette still re-raises, so uvicorn prints the whole story to the
    terminal. This answer leaves outside every middleware, so it carries the hardened headers itself."""
    headers = {key.decode(): value.decode() for key, value in HARDENED_HEADERS}
    message = CRASHED.format(kind=type(error).__name__)
    if "csrf_cookie" not in request.scope.get("state", {}):  # it failed before the page context exists
        return HTMLResponse(f"<!doctype html><title>Server error</title><p>{message}</p>", 500, headers=headers)
    return render(request, "problem.html", status_code=500, status=500, message=message, headers=headers)


async def _favicon(request: Request) -> Response:
    """Browsers ask for /favicon.ico whatever the page says: answer, so no page logs a 404."""
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")
