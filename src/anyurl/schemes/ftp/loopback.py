"""A loopback FTP server for ``anyurl demo`` and users' tests: pyftpdlib in a thread.

pyftpdlib is an optional dependency (``pip install anyurl[demo]``); the integration
tests use vsftpd and pure-ftpd as well (tests/peers). Anonymous users read ``root``;
passive data ports come from the loopback interface.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from anyurl.testing._server import block_until_interrupted, command_line

__all__ = ["running_ftp_server"]


@contextmanager
def running_ftp_server(
    root: str | os.PathLike[str],
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    user: tuple[str, str] | None = None,
) -> Iterator[int]:
    """Serve ``root`` anonymously (and as ``user`` if given); yields the port."""
    import logging

    from pyftpdlib.authorizers import DummyAuthorizer
    from pyftpdlib.handlers import FTPHandler
    from pyftpdlib.servers import FTPServer

    logging.getLogger("pyftpdlib").setLevel(logging.WARNING)
    authorizer = DummyAuthorizer()
    authorizer.add_anonymous(os.fspath(root))
    if user is not None:
        authorizer.add_user(user[0], user[1], os.fspath(root), perm="elr")
    handler = type("DemoFTPHandler", (FTPHandler,), {"authorizer": authorizer,
                                                      "banner": "anyurl demo FTP"})
    server = FTPServer((host, port), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"handle_exit": False},
                              daemon=True)
    thread.start()
    try:
        yield server.address[1]
    finally:
        server.close_all()
        thread.join(timeout=5)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.ftp.loopback``: serve ``--root`` until interrupted."""
    parser = command_line("ftp", __doc__, 2121, backend=False)
    parser.add_argument("--root", default=".")
    args = parser.parse_args(argv)
    with running_ftp_server(args.root, args.host, args.port):
        return block_until_interrupted()


if __name__ == "__main__":
    raise SystemExit(main())
