"""pyftpdlib as a test peer: anonymous and one local user, and a log of every command received.

The command log has one line per command line the server received, in order, as
`<session> <command line>` (PASS arguments included: the password is a test fixture), so that
FTP tests can assert exact USER/CWD/TYPE/RETR sequences. `<session>` is a counter per connection.

    python -m tests.peers.pyftpd_server --port N --root DIR --command-log FILE ...
"""

from __future__ import annotations

import argparse
import itertools
import threading

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler
from pyftpdlib.servers import FTPServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--passive", default="", help="LO-HI")
    parser.add_argument("--masquerade", default=None)
    parser.add_argument("--command-log", required=True)
    args = parser.parse_args()

    # Open for the life of the server; line-buffered so tests read every command at once.
    log = open(args.command_log, "a", buffering=1, encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
    lock = threading.Lock()
    sessions = itertools.count(1)

    class LoggingHandler(FTPHandler):
        def on_connect(self) -> None:
            self.anyurl_session = next(sessions)

        def pre_process_command(self, line: str, cmd: str, arg: str) -> None:
            with lock:
                log.write(f"{getattr(self, 'anyurl_session', 0)} {line}\n")
            super().pre_process_command(line, cmd, arg)

    authorizer = DummyAuthorizer()
    authorizer.add_anonymous(args.root)
    authorizer.add_user(args.user, args.password, args.root, perm="elr")
    LoggingHandler.authorizer = authorizer
    LoggingHandler.banner = "anyurl test peer pyftpdlib ready."
    LoggingHandler.auth_failed_timeout = 0.5  # tests of refused logins need not wait 3 s
    if args.passive:
        lo, hi = (int(x) for x in args.passive.split("-"))
        LoggingHandler.passive_ports = range(lo, hi + 1)
    if args.masquerade:
        LoggingHandler.masquerade_address = args.masquerade
    server = FTPServer((args.host, args.port), LoggingHandler)
    server.max_cons = 256
    server.max_cons_per_ip = 256
    server.serve_forever()


if __name__ == "__main__":
    main()
