"""Local HTTP servers for the tests: a webhook receiver and a fault-injecting proxy in front of the gateway."""

from __future__ import annotations

import http.client
import socket
import struct
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import List, Tuple
from urllib.parse import urlsplit


class _QuietHandler(BaseHTTPRequestHandler):
    """A request handler that writes no access log (the test output stays the tests')."""

    def log_message(self, *args) -> None:
        pass


class _LoopbackServer:
    """A threaded HTTP server on a free 127.0.0.1 port, serving in a daemon thread until close()."""

    server: ThreadingHTTPServer
    url: str

    def _serve(self, handler: type) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Receiver(_LoopbackServer):
    """Records every POST (path, headers, raw body) and answers 200."""

    def __init__(self) -> None:
        self.requests: List[Tuple[str, dict, bytes]] = []
        receiver = self

        class Handler(_QuietHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "11")
                self.end_headers()
                self.wfile.write(b'{"ok":true}')

        self._serve(Handler)


class FaultProxy(_LoopbackServer):
    """Answers the next requests with the queued faults ("reset", or (status, retry_after)) and forwards the rest to the gateway."""

    def __init__(self, target: str) -> None:
        self.faults: list = []
        self.seen: List[str] = []
        self.signatures: List[Tuple[str, str]] = []
        upstream = urlsplit(target)
        proxy = self

        class Handler(_QuietHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length) if length else None
                proxy.seen.append(f"{self.command} {self.path}")
                proxy.signatures.append((self.headers.get("X-Timestamp", ""), self.headers.get("X-Signature", "")))
                fault = proxy.faults.pop(0) if proxy.faults else None
                if fault == "reset":
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                if fault is not None:
                    status, retry_after = fault
                    payload = b'{"error_code":"service_unavailable","message":"injected","request_id":"proxy"}'
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    if retry_after is not None:
                        self.send_header("Retry-After", retry_after)
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                connection.request(self.command, self.path, body=body, headers=headers)
                answer = connection.getresponse()
                data = answer.read()
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in ("transfer-encoding", "connection", "content-length", "date", "server"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                connection.close()

            do_GET = do_POST = do_DELETE = _handle

        self._serve(Handler)
