"""Who may talk to `agentuse serve`, and proof that a state-changing request came from its own pages.

- Token gate (Jupyter's model): every launch has a token, random unless pinned in AGENTUSE_SERVE_TOKEN,
  and every request must carry it — `?token=...` in the address the command printed (traded at once for
  an HttpOnly cookie), that cookie, or an `Authorization: token ...`/`Bearer ...` header for scripts. On
  loopback this is what keeps the machine's other accounts out; `--no-token` turns it off explicitly.
- CSRF: a random per-browser cookie plus a form field that is an HMAC of that cookie under a secret that
  lives only in this process. A page on another site can neither read the cookie nor compute the field,
  and a planted cookie is useless without the secret. Every POST route is wrapped in `csrf_protected`.
- Redirects: every Location this server sends is a path on this server (`same_origin_path`).
- Headers on every answer (`HardenedHeaders`): never framed, since a page on another port of 127.0.0.1 is
  the same site and gets our SameSite cookies sent along, so a frame of ours under its decoy would be live
  (clickjacking); scripts and styles only from this server (the pages have no inline ones); no MIME
  sniffing; no Referer to the sites an agent's output links to.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import html
import re
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from starlette.requests import Request, cookie_parser
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agentuse.serve.limits import header, read_form

TOKEN_COOKIE = "agentuse_token"
CSRF_COOKIE = "agentuse_csrf"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
AUTH_SCHEMES = ("token", "bearer")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")

CONTINUE = ('<!doctype html><meta http-equiv="refresh" content="0;url={url}"><title>agentuse serve</title>'
            '<p><a href="{url}">Continue to agentuse serve</a></p>\n')

Endpoint = Callable[[Request], Awaitable[Response]]

REFUSED = (
    "<!doctype html><title>agentuse serve: token needed</title>"
    "<p>This agentuse serve needs its token. Open the address <code>agentuse serve</code> printed when it "
    "started (<code>http://&lt;host&gt;:&lt;port&gt;/?token=…</code>); the browser keeps it from then on. "
    "Scripts send <code>Authorization: token &lt;token&gt;</code>.</p>\n"
)


# The pages load /static/*.js and style.css and nothing else; forms post back here; inline SVG needs nothing.
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                           "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
HARDENED_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),  # frame-ancestors for browsers that predate it
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),  # a page that opened ours keeps no handle on its window
]


def cookie_name(scope: Scope, base: str) -> str:
    """Cookies ignore ports, so two servers on one host would overwrite each other's: name them per port."""
    server = scope.get("server")
    return f"{base}_{server[1]}" if server and server[1] else base


def _cookies(scope: Scope) -> dict[str, str]:
    """The request's cookies, read as browsers write them: the parser `request.cookies` uses. Cookies are
    per host, not per port, so every app the browser opened on 127.0.0.1 sends its own here too, and
    SimpleCookie drops the whole header at the first value it dislikes (JSON, a space, a bare name), which
    locked the browser out right after it opened the printed address."""
    found: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        if name == b"cookie":
            found.update(cookie_parser(value.decode("latin-1")))
    return found


def _same(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(a.encode(), b.encode())  # type: ignore[union-attr]


def same_origin_path(target: str) -> str:
    """`target` as a path on this server. Browsers read `//host/x` and `/\\host/x` as another site and drop
    tabs and newlines inside a URL first; here those are doubled slashes in a path (`/host/x`), and an
    absolute URL keeps only its path, whatever host it named."""
    cleaned = "".join(ch for ch in target if ch > " " and ch != "\x7f")
    if not _SCHEME.match(cleaned):
        cleaned = "/" + cleaned.lstrip("/\\")
    parts = urlsplit(cleaned)
    return urlunsplit(("", "", "/" + parts.path.lstrip("/\\"), parts.query, parts.fragment))


def _same_origin(location: bytes) -> bytes:
    return same_origin_path(location.decode("latin-1")).encode("latin-1")


class SameOriginRedirects:
    """Passes every Location header through `same_origin_path`, whoever wrote it: our redirects, the token
    exchange, and Starlette's own (a trailing slash dropped from whatever path was asked for)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_same_origin(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [(key, _same_origin(value) if key.lower() == b"location" else value)
                                      for key, value in message.get("headers", [])]
            await send(message)

        await self.app(scope, receive, send_same_origin if scope["type"] == "http" else send)


class HardenedHeaders:
    """Adds HARDENED_HEADERS to every HTTP answer, refusals included (it is the outermost layer)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_hardened(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {key.lower() for key, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *((key, value) for key, value in HARDENED_HEADERS if key not in names)]
            await send(message)

        await self.app(scope, receive, send_hardened if scope["type"] == "http" else send)


class TokenGate:
    """Answers 403, with how to get in, to every request without the server's token (none: `--no-token`)."""

    def __init__(self, app: ASGIApp, *, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.token is None or scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        name = cookie_name(scope, TOKEN_COOKIE)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        sent = dict(query).get("token")
        if sent is not None and _same(sent, self.token):
            # Trade the token in the URL for a cookie, and drop it from the address bar and history.
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            path = scope.get("raw_path", b"").decode("latin-1") or scope["path"]
            target = same_origin_path(path + (f"?{rest}" if rest else ""))
            response: Response = RedirectResponse(target, status_code=303)
            if _cross_site_navigation(scope):
                # Followed from another site's page (the address pasted into a web chat): SameSite=Strict
                # keeps the new cookie off a redirect of that navigation, so the next page would ask for
                # the token again. A navigation this page starts is our own, and carries it.
                response = HTMLResponse(CONTINUE.format(url=html.escape(target)))
            response.set_cookie(name, self.token, httponly=True, samesite="strict")
            await response(scope, receive, send)
            return
        scheme, _, credential = header(scope, b"authorization").partition(" ")
        header_token = credential.strip() if scheme.lower() in AUTH_SCHEMES else None
        if _same(_cookies(scope).get(name), self.token) or _same(header_token, self.token):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # none are served; refuse before any route sees it
            await send({"type": "websocket.close", "code": 1008})
            return
        if _cross_site_navigation(scope):
            # A link on another site's page (a bookmark, a shared session link): SameSite=Strict kept the
            # cookie off this navigation, not out of the browser. Asking again from this page, a navigation
            # of our own, carries it if the browser has it; one that has none is refused then. Pages are
            # only read, never changed, by a GET, and nothing here can be framed: no more than Lax allows.
            path = same_origin_path(scope.get("raw_path", b"").decode("latin-1") or scope["path"])
            query = scope.get("query_string", b"").decode("latin-1")
            target = path + (f"?{query}" if query else "")
            await HTMLResponse(CONTINUE.format(url=html.escape(target)))(scope, receive, send)
            return
        await HTMLResponse(REFUSED, status_code=403)(scope, receive, send)


def _cross_site_navigation(scope: Scope) -> bool:
    return (scope.get("method") == "GET" and header(scope, b"sec-fetch-site") == "cross-site"
            and header(scope, b"sec-fetch-mode") == "navigate")


class CsrfCookie:
    """Gives every browser a random CSRF cookie, available to the page being rendered in the same request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        name = cookie_name(scope, CSRF_COOKIE)
        existing = _cookies(scope).get(name)
        value = existing or secrets.token_urlsafe(24)
        scope.setdefault("state", {})["csrf_cookie"] = value

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and not existing:
                cookie = f"{name}={value}; Path=/; HttpOnly; SameSite=Strict"
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie.encode("latin-1"))]
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def csrf_token(request: Request) -> str:
    """The value forms must send back: HMAC of this browser's cookie under the process secret."""
    secret: bytes = request.app.state.csrf_secret
    return hmac.new(secret, request.state.csrf_cookie.encode(), hashlib.sha256).hexdigest()


async def csrf_valid(request: Request) -> bool:
    # The cookie must have come with the request: one minted by CsrfCookie just now proves nothing. Checked
    # first, so a request without it is refused on its headers, its body unread.
    if cookie_name(request.scope, CSRF_COOKIE) not in request.cookies:
        return False
    sent = request.headers.get(CSRF_HEADER)
    if sent is None and "form" in request.headers.get("content-type", ""):
        sent = (await read_form(request)).get(CSRF_FIELD)  # type: ignore[assignment]
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
