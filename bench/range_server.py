"""A static file server on 127.0.0.1 that answers `Range: bytes=a-b` with 206 (http.server ignores Range),
HTTP/1.1 with keep-alive, for the web benchmarks: run in its own process so that its work does not take a
core from the fetch it serves.

    python bench/range_server.py ROOT        # prints "http://127.0.0.1:PORT" on its first line, serves until killed
"""

from __future__ import annotations

import http.server
import sys
from pathlib import Path


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, with `Range: bytes=a-b` answered 206; HTTP/1.1, so a client may keep its connection."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else a kept connection's body waits for the ACK of its headers (40 ms)

    def do_GET(self):
        spec = self.headers.get("Range")
        if not spec:
            return super().do_GET()
        path = Path(self.directory) / self.path.lstrip("/")
        if not path.is_file():
            return self.send_error(404)
        a, b = (int(x) for x in spec.removeprefix("bytes=").split("-"))
        with open(path, "rb") as f:
            f.seek(a)
            data = f.read(b - a + 1)
        self.send_response(206)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def main() -> int:
    root = sys.argv[1]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: RangeHandler(*a, directory=root))
    httpd.daemon_threads = True
    print(f"http://127.0.0.1:{httpd.server_address[1]}", flush=True)
    httpd.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
