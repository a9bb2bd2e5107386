"""`agentuse serve [--host 127.0.0.1] [--port N] [-C <project>]`: the local web UI.

It binds loopback by default. Any other address exposes every learning action of the project to the
network, so it takes two deliberate steps: `--allow-remote`, and a token in AGENTUSE_SERVE_TOKEN that
every request must carry. uvicorn and Starlette are imported inside the command only.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Annotated

import typer

from agentuse.cli.common import friendly_errors, say
from agentuse.core.errors import AgentuseError

TOKEN_ENV = "AGENTUSE_SERVE_TOKEN"
DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a hostname other than localhost may resolve anywhere


def check_bind(host: str, *, allow_remote: bool, token: str | None) -> None:
    """Refuse a non-loopback bind unless both the flag and the token are given."""
    if is_loopback(host):
        return
    if not allow_remote:
        raise AgentuseError(
            f"refusing to listen on {host}: agentuse serve binds 127.0.0.1 unless you pass --allow-remote "
            f"(and set {TOKEN_ENV}), because anyone who reaches it can change this project's learnings")
    if not token:
        raise AgentuseError(
            f"--allow-remote needs a token: set {TOKEN_ENV} to a long random value; every request must carry "
            "it (open the printed address once and the browser keeps it in a cookie)")


@friendly_errors
def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on (loopback unless --allow-remote).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = DEFAULT_PORT,
    project: Annotated[
        Path, typer.Option("-C", "--project", help="The project (any folder in it; its git root is used).", show_default=False)
    ] = Path("."),
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help=f"Allow a non-loopback --host; requires {TOKEN_ENV}.")
    ] = False,
) -> None:
    """Open a local web UI: agents, learnings by status, sessions and review, Tidy up and Undo."""
    token = os.environ.get(TOKEN_ENV, "").strip() or None
    check_bind(host, allow_remote=allow_remote, token=token)
    if not project.is_dir():
        raise AgentuseError(f"{project}: no such folder (give -C the project folder)")

    import uvicorn

    from agentuse.serve.app import create_app

    app = create_app(project.resolve(), token=token)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    say(f"agentuse serve: {app.state.project.root}")
    say(f"  open {url}")
    uvicorn.run(app, host=host, port=port, log_level="warning")
