"""FTP servers on 127.0.0.1 that fail a client's ``AUTH TLS`` (RFC 4217), and record
every command line they are sent.

A client that keeps anyurl's promises sends no ``USER`` (and so no password) to a server
that did not take it into TLS when TLS is required (``--ssl-reqd``): a refusal of
``AUTH TLS`` is curl's exit 64 (``TLSNotOffered``) before any login; a server that
accepts ``AUTH TLS`` and then sends something that is no TLS handshake (garbage, or its
close) is exit 35 (``TLSHandshakeFailed``), never a login in clear on a connection
whose bytes nobody can read any more. With ``--ssl`` (TLS if possible) a refusal is no
error: the login goes on in clear, as curl's does.

The ``data-*`` behaviours take the control connection into TLS for real (a self-signed
certificate made with ``openssl`` when none is given: a client needs ``-k``), take any
login, ``PBSZ 0`` and ``PROT P``, and then fail the TLS of the private data connection
(RFC 4217 10): closing it before the handshake, sending garbage instead of one, or, as
vsftpd does when a data connection does not resume the control connection's session,
completing the handshake and then closing it with ``522``. Each is curl's exit 35
(``TLSHandshakeFailed``), not a partial transfer (18). :attr:`HostileFTPSServer.commands`
holds the lines each connection sent, so a test sees what crossed, and in what order.

Use it from a test (any thread, any event loop: the server runs in threads of its own)::

    from anyurl.schemes.ftp.hostile_tls import BEHAVIOURS, HostileFTPSServer

    with HostileFTPSServer(BEHAVIOURS["refuse-auth"]) as server:
        run_client(f"ftp://user:pw@127.0.0.1:{server.port}/f")
        assert server.commands[0] == ["AUTH TLS"]

or from a shell: ``python -m anyurl.schemes.ftp.hostile_tls garbage-after-auth --port 2121``.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from anyurl.testing._server import ThreadedListener, serve_behaviour

__all__ = ["BEHAVIOURS", "Behaviour", "HostileFTPSServer", "main", "self_signed"]


@dataclass(frozen=True)
class Behaviour:
    """What the server answers to ``AUTH TLS`` (``auth``), and what it sends after that
    answer instead of a TLS handshake (``after``; None: it waits for the next command,
    as a server that refused does; ``b""``: it closes)."""

    name: str
    auth: bytes
    after: bytes | None
    description: str
    #: The exit code a client requiring TLS must end with.
    exit_code: int
    #: For a ``234`` with no ``after``: what the private data connection gets after the
    #: ``150`` (None: this behaviour fails at AUTH): ``"close"`` before any handshake,
    #: ``"garbage"`` instead of one, ``"522"`` a handshake, then the close and a 522.
    data: str | None = None


BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("refuse-auth", b"534 Request denied for policy reasons.\r\n", None,
              "refuses AUTH TLS as a server without TLS does", 64),
    Behaviour("unknown-auth", b"500 Unknown command.\r\n", None,
              "knows no AUTH command at all (RFC 959 only)", 64),
    Behaviour("garbage-after-auth", b"234 Proceed with negotiation.\r\n",
              b"garbage, not a TLS handshake\r\n" * 8,
              "accepts AUTH TLS, then sends garbage instead of a TLS handshake", 35),
    Behaviour("close-after-auth", b"234 Proceed with negotiation.\r\n", b"",
              "accepts AUTH TLS, then closes instead of a TLS handshake", 35),
    Behaviour("data-close", b"234 Proceed with negotiation.\r\n", None,
              "logs in over TLS, then closes the private data connection before its "
              "handshake", 35, data="close"),
    Behaviour("data-garbage", b"234 Proceed with negotiation.\r\n", None,
              "logs in over TLS, then sends garbage on the private data connection "
              "instead of a handshake", 35, data="garbage"),
    Behaviour("data-522", b"234 Proceed with negotiation.\r\n", None,
              "logs in over TLS, completes the data connection's handshake, then closes "
              "it and answers 522 (vsftpd's 'session reuse required')", 35, data="522"),
]}

#: The replies of the data-* behaviours' logged-in dialogue, by verb.
_REPLIES = {
    "USER": b"331 Please specify the password.\r\n",
    "PASS": b"230 Login successful.\r\n",
    "PBSZ": b"200 PBSZ set to 0.\r\n",
    "PROT": b"200 PROT now Private.\r\n",
    "TYPE": b"200 Switching mode.\r\n",
    "PWD": b'257 "/" is the current directory\r\n',
    "CWD": b"250 Directory successfully changed.\r\n",
    "SIZE": b"213 100\r\n",
    "MDTM": b"213 20000101000000\r\n",
}
_GARBAGE = b"garbage, not a TLS handshake\r\n" * 8


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made with ``openssl`` in ``directory``."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


class HostileFTPSServer:
    """Serves one :class:`Behaviour` on TCP 127.0.0.1 in threads; a context manager.
    :attr:`commands` holds the command lines each connection sent, in order of
    connection. A login is refused (530) whatever it is: nothing here serves files."""

    def __init__(self, behaviour: Behaviour, *, host: str = "127.0.0.1", port: int = 0,
                 certificate: tuple[Path, Path] | None = None):
        self.behaviour = behaviour
        self.host = host
        self._tempdir: str | None = None
        self._tls: ssl.SSLContext | None = None
        if behaviour.data is not None:
            if certificate is None:
                self._tempdir = tempfile.mkdtemp(prefix="anyurl-hostile-ftps-")
                certificate = self_signed(Path(self._tempdir))
            self._tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self._tls.load_cert_chain(*certificate)
        self._listener = ThreadedListener(self._serve, host, port,
                                          name=f"hostile-ftps-{behaviour.name}")
        self.port: int = self._listener.port
        self.commands: list[list[str]] = []
        #: Every byte each connection sent, to look for a password in.
        self.received: list[bytes] = []
        self._lock = threading.Lock()

    def start(self) -> HostileFTPSServer:
        """Start accepting connections."""
        self._listener.start()
        return self

    def _lines(self, sock: socket.socket, index: int) -> list[str]:
        """The next command lines (at least one), recorded; [] at the client's close."""
        data = b""
        while not data.endswith(b"\n"):
            more = sock.recv(4096)
            if not more:
                break
            data += more
        with self._lock:
            self.received[index] += data
            lines = [line.decode("latin-1").rstrip("\r") for line in data.split(b"\n")
                     if line.strip()]
            self.commands[index].extend(lines)
        return lines

    def _serve(self, sock: socket.socket) -> None:
        """The greeting, then each command's answer: AUTH as the behaviour says, a
        refused login (or, for the data-* behaviours, :meth:`_logged_in`), 221 to
        QUIT, 502 to anything else."""
        with self._lock:
            index = len(self.commands)
            self.commands.append([])
            self.received.append(b"")
        sock.settimeout(10)
        b = self.behaviour
        with sock:
            try:
                sock.sendall(b"220 hostile ftps server ready.\r\n")
                while lines := self._lines(sock, index):
                    for line in lines:
                        verb = line.split(" ", 1)[0].upper()
                        if verb == "AUTH":
                            sock.sendall(b.auth)
                            if b.after is not None:
                                sock.sendall(b.after)
                                return  # whatever the client does next, no TLS here
                            if self._tls is not None:
                                self._logged_in(self._tls.wrap_socket(sock, server_side=True),
                                                index)
                                return
                        elif verb in ("USER", "PASS"):
                            sock.sendall(b"530 Login incorrect.\r\n")
                        elif verb == "QUIT":
                            sock.sendall(b"221 Goodbye.\r\n")
                            return
                        else:
                            sock.sendall(b"502 Command not implemented.\r\n")
            except (OSError, ssl.SSLError):
                return

    def _logged_in(self, sock: ssl.SSLSocket, index: int) -> None:
        """The control connection in TLS: any login, PBSZ and PROT taken, and a passive
        data connection whose TLS fails as the behaviour says."""
        listener: socket.socket | None = None
        try:
            while lines := self._lines(sock, index):
                for line in lines:
                    verb = line.split(" ", 1)[0].upper()
                    if verb in _REPLIES:
                        sock.sendall(_REPLIES[verb])
                    elif verb in ("EPSV", "PASV"):
                        if listener is not None:
                            listener.close()
                        listener = socket.create_server((self.host, 0))
                        listener.settimeout(10)
                        port = listener.getsockname()[1]
                        sock.sendall(f"229 Entering Extended Passive Mode (|||{port}|)\r\n"
                                     .encode() if verb == "EPSV" else
                                     "227 Entering Passive Mode (127,0,0,1,"
                                     f"{port >> 8},{port & 255}).\r\n".encode())
                    elif verb in ("RETR", "LIST", "NLST", "MLSD") and listener is not None:
                        sock.sendall(b"150 Here comes the data.\r\n")
                        self._fail_data(listener)
                        listener.close()
                        listener = None
                        sock.sendall(b"522 SSL connection failed: session reuse required\r\n"
                                     if self.behaviour.data == "522" else
                                     b"426 Failure reading network stream.\r\n")
                    elif verb == "QUIT":
                        sock.sendall(b"221 Goodbye.\r\n")
                        return
                    else:
                        sock.sendall(b"502 Command not implemented.\r\n")
        finally:
            if listener is not None:
                listener.close()

    def _fail_data(self, listener: socket.socket) -> None:
        """Accept the data connection and fail its TLS as the behaviour says."""
        data, _ = listener.accept()
        with data:
            data.settimeout(10)
            if self.behaviour.data == "garbage":
                data.sendall(_GARBAGE)
            elif self.behaviour.data == "522":
                assert self._tls is not None
                with self._tls.wrap_socket(data, server_side=True):
                    pass  # the handshake done, then the close (no session check here)

    def close(self) -> None:
        """Stop accepting and end every connection."""
        self._listener.close()
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)

    def __enter__(self) -> HostileFTPSServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anyurl.schemes.ftp.hostile_tls NAME [--host H] [--port N]``."""
    return serve_behaviour(
        "anyurl.schemes.ftp.hostile_tls", __doc__, BEHAVIOURS,
        lambda behaviour, host, port: HostileFTPSServer(behaviour, host=host, port=port),
        lambda server: f"ftp://{server.host}:{server.port}/", argv)


if __name__ == "__main__":
    raise SystemExit(main())
