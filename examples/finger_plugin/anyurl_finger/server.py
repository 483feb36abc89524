"""A loopback finger server for the demo and the tests: ``python -m anyurl_finger.server
--host 127.0.0.1 --port PORT``; it prints ``PORT`` once listening."""

from __future__ import annotations

import argparse
import socketserver

USERS = {
    b"alice": b"Login: alice\r\nName: Alice Liddell\r\nPlan: follow the white rabbit.\r\n",
    b"bob": b"Login: bob\r\nName: Bob\r\nNo plan.\r\n",
}


class _Finger(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        user = self.rfile.readline(512).strip()
        if not user:
            self.wfile.write(b"".join(name + b"\r\n" for name in USERS))
        else:
            self.wfile.write(USERS.get(user, b"finger: " + user + b": no such user.\r\n"))


def main() -> None:
    """Serve until interrupted."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args()
    with socketserver.ThreadingTCPServer((args.host, args.port), _Finger) as server:
        print(server.server_address[1], flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
