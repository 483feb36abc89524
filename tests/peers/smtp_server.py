"""aiosmtpd as a test peer: every message it accepts is saved to a maildir (new/ holds them).

    python -m tests.peers.smtp_server --port N --maildir DIR
"""

from __future__ import annotations

import argparse
import signal
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--maildir", required=True)
    args = parser.parse_args()
    # server_hostname avoids socket.getfqdn(), which waits for DNS on machines without one.
    controller = Controller(Mailbox(args.maildir), hostname=args.host, port=args.port,
                            server_hostname="anyurl-peers.smtp", ready_timeout=30)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    controller.start()
    try:
        stop.wait()
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
