"""A fake EC2 instance metadata service (IMDSv2) on 127.0.0.1, over real HTTP: what botocore asks for an
instance role's credentials when no variable and no ~/.aws file names any. Point botocore at it with
`server.env()` (AWS_EC2_METADATA_SERVICE_ENDPOINT):

    PUT /latest/api/token                                   -> a session token
    GET /latest/meta-data/iam/security-credentials/         -> the role name
    GET /latest/meta-data/iam/security-credentials/<role>   -> temporary credentials (JSON)
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROLE = "agentuse-test-role"
ACCESS_KEY = "ASIAFAKEROLEFAKEROLE"
_TOKEN = "fake-imds-token"
_CREDENTIALS = "/latest/meta-data/iam/security-credentials/"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "FakeIMDSServer"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, *_: object) -> None:
        pass

    def _send(self, status: int, body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_PUT(self) -> None:  # noqa: N802
        self.server.paths.append(("PUT", self.path))
        self._send(200, _TOKEN) if self.path == "/latest/api/token" else self._send(404, "")

    def do_GET(self) -> None:  # noqa: N802
        self.server.paths.append(("GET", self.path))
        if self.headers.get("x-aws-ec2-metadata-token") != _TOKEN:
            return self._send(401, "")
        if self.path == _CREDENTIALS and self.server.role:
            return self._send(200, ROLE)
        if self.path == _CREDENTIALS + ROLE and self.server.role:
            return self._send(200, json.dumps({
                "Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": ACCESS_KEY,
                "SecretAccessKey": "fake-role-secret", "Token": "fake-role-session-token",
                "Expiration": "2099-01-01T00:00:00Z", "LastUpdated": "2026-12-01T00:00:00Z"}))
        return self._send(404, "")


class FakeIMDSServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *, role: bool = True) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.role = role  # False: a machine with a metadata service but no role attached
        self.paths: list[tuple[str, str]] = []
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"

    def env(self) -> dict[str, str]:
        return {"AWS_EC2_METADATA_SERVICE_ENDPOINT": self.url, "AWS_EC2_METADATA_DISABLED": "false"}

    def start(self) -> "FakeIMDSServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join()
