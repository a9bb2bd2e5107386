"""`agentuse serve [--host 127.0.0.1] [--port N] [-C <project>] [--no-token]`: the local web UI.

Every launch has a token, as Jupyter does: random (`secrets.token_urlsafe(32)`) unless pinned in
AGENTUSE_SERVE_TOKEN, printed in the address to open, and required on every request — loopback is shared
by every account on the machine. `--no-token` turns that off, explicitly and with a warning. Any other
address than loopback exposes the project to the network, so it takes `--allow-remote` and a token of at
least 32 characters. uvicorn and Starlette are imported inside the command only.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from pathlib import Path
from typing import Annotated

import typer

from agentuse.cli.common import say
from agentuse.core.errors import AgentuseError

TOKEN_ENV = "AGENTUSE_SERVE_TOKEN"
DEFAULT_PORT = 8765
MIN_REMOTE_TOKEN = 32  # 32 URL-safe characters carry 192 bits: out of reach of guessing over a network
MAX_PORT = 65535


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a hostname other than localhost may resolve anywhere


def launch_token(*, no_token: bool) -> str | None:
    """This launch's token: the pinned one (scripts), else a fresh random one; None only for --no-token."""
    if no_token:
        return None
    return os.environ.get(TOKEN_ENV, "").strip() or secrets.token_urlsafe(32)


def check_bind(host: str, *, allow_remote: bool, token: str | None) -> None:
    """Refuse a non-loopback bind unless --allow-remote is given and the token is long enough to stand."""
    if is_loopback(host):
        return
    if not allow_remote:
        raise AgentuseError(
            f"refusing to listen on {host}: agentuse serve binds 127.0.0.1 unless you pass --allow-remote, "
            "because anyone who reaches it can change this project's learnings")
    if token is None:
        raise AgentuseError("--allow-remote needs a token: drop --no-token (every request must then carry the "
                            "token in the printed address)")
    if len(token) < MIN_REMOTE_TOKEN:
        raise AgentuseError(
            f"--allow-remote needs a token of at least {MIN_REMOTE_TOKEN} characters, and {TOKEN_ENV} has "
            f"{len(token)}: unset it for a random one, or set a longer one")


def serve(
    host: Annotated[str, typer.Option("--host", help="Address to listen on (loopback unless --allow-remote).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = DEFAULT_PORT,
    project: Annotated[
        Path, typer.Option("-C", "--project", help="The project (any folder in it; its git root is used).", show_default=False)
    ] = Path("."),
    allow_remote: Annotated[
        bool, typer.Option("--allow-remote", help=f"Allow a non-loopback --host (token: {MIN_REMOTE_TOKEN}+ characters).")
    ] = False,
    no_token: Annotated[
        bool, typer.Option("--no-token", help="Serve without a token: any local account can then use it.")
    ] = False,
) -> None:
    """Open a local web UI: agents, learnings by status, sessions and review, Tidy up and Undo."""
    if not 0 <= port <= MAX_PORT:  # 0 lets the system pick a free port
        raise AgentuseError(f"--port {port} is not a port: give a number from 1 to {MAX_PORT} (default {DEFAULT_PORT})")
    token = launch_token(no_token=no_token)
    check_bind(host, allow_remote=allow_remote, token=token)
    if not project.is_dir():
        raise AgentuseError(f"{project}: no such folder (give -C the project folder)")

    import uvicorn

    from agentuse.serve.app import create_app, loopback_hosts

    app = create_app(project.resolve(), token=token, allowed_hosts=loopback_hosts(host) if is_loopback(host) else ["*"])
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    say(f"agentuse serve: {app.state.project.root}")
    if token is None:
        say("  warning: --no-token: every account on this machine can read and change this project's learnings")
    say(f"  open {url}")
    # uvicorn shuts down on SIGTERM itself, then raises it again: under the default handler the process ends
    # there, rather than (as core/stop_signals would) waiting for a Tidy up job's queued model calls.
    from agentuse.core.stop_signals import leave_to_default

    leave_to_default()
    uvicorn.run(app, host=host, port=port, log_level="warning")
