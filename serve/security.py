"""Who may talk to `agentuse serve`, and proof that a state-changing request came from its own pages.

- Token gate: when the server was started with a token (required for any non-loopback host), every
  request must carry it — the `agentuse_token` cookie, set once from `?token=...` on the first visit, or an
  `Authorization: Bearer` header for scripts. Without a token the server only listens on loopback, and
  the Host check (app.py) keeps a DNS-rebinding page from reading it.
- CSRF: a random per-browser cookie plus a form field that is an HMAC of that cookie under a secret that
  lives only in this process. A page on another site can neither read the cookie nor compute the field,
  and a planted cookie is useless without the secret. Every POST route is wrapped in `csrf_protected`.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Awaitable, Callable
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_COOKIE = "agentuse_token"
CSRF_COOKIE = "agentuse_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"

Endpoint = Callable[[Request], Awaitable[Response]]


def _cookies(scope: Scope) -> dict[str, str]:
    jar = SimpleCookie()
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            try:
                jar.load(value.decode("latin-1"))
            except Exception:  # noqa: BLE001 - a malformed cookie header is treated as no cookie
                continue
    return {key: morsel.value for key, morsel in jar.items()}


def _same(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(a.encode(), b.encode())  # type: ignore[union-attr]


class TokenGate:
    """Rejects every request that does not carry the server's token (no-op when there is none)."""

    def __init__(self, app: ASGIApp, *, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        if "token" in query and _same(query["token"], self.token):
            # Trade the token in the URL for a cookie, and drop it from the address bar and history.
            rest = urlencode({k: v for k, v in query.items() if k != "token"})
            response: Response = RedirectResponse(scope["path"] + (f"?{rest}" if rest else ""), status_code=303)
            response.set_cookie(TOKEN_COOKIE, self.token, httponly=True, samesite="strict")
            await response(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        bearer = headers.get(b"authorization", b"").decode("latin-1").removeprefix("Bearer ").strip()
        if _same(_cookies(scope).get(TOKEN_COOKIE), self.token) or _same(bearer, self.token):
            await self.app(scope, receive, send)
            return
        response = PlainTextResponse(
            "This agentuse serve needs its token: open the address it printed at start "
            "(…/?token=<AGENTUSE_SERVE_TOKEN>).\n",
            status_code=401,
        )
        await response(scope, receive, send)


class CsrfCookie:
    """Gives every browser a random CSRF cookie, available to the page being rendered in the same request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        existing = _cookies(scope).get(CSRF_COOKIE)
        value = existing or secrets.token_urlsafe(24)
        scope.setdefault("state", {})["csrf_cookie"] = value

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and not existing:
                cookie = f"{CSRF_COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict"
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie.encode("latin-1"))]
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def csrf_token(request: Request) -> str:
    """The value forms must send back: HMAC of this browser's cookie under the process secret."""
    secret: bytes = request.app.state.csrf_secret
    return hmac.new(secret, request.state.csrf_cookie.encode(), hashlib.sha256).hexdigest()


async def csrf_valid(request: Request) -> bool:
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and "form" in request.headers.get("content-type", ""):
        sent = (await request.form()).get(CSRF_FIELD)  # type: ignore[assignment]
    # The cookie must have come with the request: one minted by CsrfCookie just now proves nothing.
    if CSRF_COOKIE not in request.cookies:
        return False
    return _same(sent if isinstance(sent, str) else None, csrf_token(request))


def csrf_protected(endpoint: Endpoint) -> Endpoint:
    """Every state-changing route goes through this; tests check that no POST route escapes it."""

    @functools.wraps(endpoint)
    async def guarded(request: Request) -> Response:
        if not await csrf_valid(request):
            return HTMLResponse(
                "<!doctype html><title>Refused</title><p>This form has expired or did not come from this "
                "agentuse serve page (CSRF check failed). Go back, reload the page and try again.</p>",
                status_code=403,
            )
        return await endpoint(request)

    guarded.csrf_protected = True  # type: ignore[attr-defined]
    return guarded
