"""What a request may carry into `agentuse serve`. Its forms hold a note, a comment or a rule's new wording:
text, a few fields, never a file. A page on another port of 127.0.0.1 is the same site, so the browser
sends our cookies with whatever it posts; a huge upload must be refused before it is read into memory or
spooled to disk, not after."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 1024 * 1024  # a megabyte of text: far past any note (a rule is at most 800 characters)
MAX_FORM_FIELDS = 16  # the review form, the busiest, sends four
TOO_LARGE = 413


def header(scope: Scope, name: bytes) -> str:
    """One request header's value, as text ("" when absent)."""
    return next((value.decode("latin-1") for key, value in scope.get("headers", []) if key == name), "")


def too_large() -> HTTPException:
    return HTTPException(TOO_LARGE)  # the page's words: app.HTTP_WORDS


class BodyLimit:
    """Cuts a request body at MAX_BODY_BYTES: one that says it is longer is refused at its first read, one
    streamed without a length when it gets there. Raised where the route reads the body, so the answer is
    the server's own 413 page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = header(scope, b"content-length")
        received = 0

        async def counted() -> Message:
            nonlocal received
            if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
                raise too_large()
            message = await receive()
            received += len(message.get("body", b""))
            if received > MAX_BODY_BYTES:
                raise too_large()
            return message

        await self.app(scope, counted, send)


async def read_form(request: Request) -> FormData:
    """The request's form, text fields only (a file part is a 400): every route reads its form here."""
    return await request.form(max_files=0, max_fields=MAX_FORM_FIELDS)
