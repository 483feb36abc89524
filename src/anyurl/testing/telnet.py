"""A loopback Telnet server (RFC 854) with a login prompt and a tiny shell.

Enough of a remote host for ``telnet:`` URLs in tests and ``anyurl demo``: it offers
ECHO (and echoes what is typed, but a password) and SUPPRESS-GO-AHEAD, asks for
TERMINAL-TYPE, refuses every other option, prompts
``login:`` and ``Password:`` and, once logged in, answers ``echo TEXT`` with ``TEXT``,
``whoami`` with the user, ``exit`` by closing; anything else is "command not found".
With ``user`` set only that user and ``password`` log in ("Login incorrect" otherwise);
with ``user=None`` anyone does. Threads, not an event loop, so one instance serves tests
on asyncio and trio alike::

    with TelnetServer(user="joe", password="secret") as server:
        url = f"telnet://joe:secret@127.0.0.1:{server.port}/"

``python -m anyurl.testing.telnet --port N`` runs it standalone.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from types import TracebackType

__all__ = ["TelnetServer"]

IAC, DONT, DO, WONT, WILL, SB, SE = 255, 254, 253, 252, 251, 250, 240
ECHO, SGA, TTYPE = 1, 3, 24


class _Session:
    """One connection: option negotiation stripped from input, lines out."""

    def __init__(self, sock: socket.socket, server: TelnetServer):
        self.sock = sock
        self.server = server
        self.buffer = bytearray()
        self.terminal_type: str | None = None
        self._agreed: set[int] = set()  # options we said WILL/DO to, answered once

    def send(self, data: bytes) -> None:
        self.sock.sendall(data.replace(b"\xff", b"\xff\xff"))

    def _negotiate(self, verb: int, option: int) -> None:
        if verb == DO:
            answer = WILL if option in (ECHO, SGA) else WONT
        elif verb == WILL:
            answer = DO if option in (SGA, TTYPE) else DONT
            if option == TTYPE:
                self.sock.sendall(bytes([IAC, SB, TTYPE, 1, IAC, SE]))  # SEND
        else:
            return
        if answer in (WILL, DO):
            if option in self._agreed:
                return  # an acknowledgement of what we offered: no answer (RFC 854)
            self._agreed.add(option)
        self.sock.sendall(bytes([IAC, answer, option]))

    def _feed(self, data: bytes) -> None:
        i = 0
        while i < len(data):
            b = data[i]
            if b != IAC:
                self.buffer.append(b)
                i += 1
                continue
            if i + 1 >= len(data):
                break
            verb = data[i + 1]
            if verb in (DO, DONT, WILL, WONT) and i + 2 < len(data):
                self._negotiate(verb, data[i + 2])
                i += 3
            elif verb == SB:
                end = data.find(bytes([IAC, SE]), i)
                if end < 0:
                    break
                sub = data[i + 2 : end]
                if sub[:2] == bytes([TTYPE, 0]):  # IS
                    self.terminal_type = sub[2:].decode("ascii", "replace")
                i = end + 2
            elif verb == IAC:
                self.buffer.append(IAC)
                i += 2
            else:
                i += 2

    def line(self, timeout: float = 30.0) -> str | None:
        """The next line typed (CR LF, CR NUL or LF ended), or None when the client left."""
        self.sock.settimeout(timeout)
        while True:
            for end in (b"\r\n", b"\r\0", b"\n", b"\r"):
                at = self.buffer.find(end)
                if at >= 0 and (end != b"\r" or at + 1 < len(self.buffer)):
                    text = bytes(self.buffer[:at]).decode("utf-8", "replace")
                    del self.buffer[: at + len(end)]
                    return text
            try:
                data = self.sock.recv(4096)
            except OSError:
                return None
            if not data:
                return None
            self._feed(data)

    def run(self) -> None:
        self._agreed |= {ECHO, SGA, TTYPE}
        self.sock.sendall(bytes([IAC, WILL, ECHO, IAC, WILL, SGA, IAC, DO, TTYPE]))
        self.send(b"\r\nanyurl test host\r\n\r\n")
        for _ in range(3):
            self.send(b"login: ")
            user = self.line()
            if user is None:
                return
            self.send(user.encode() + b"\r\n")  # we said WILL ECHO: typed text comes back
            self.send(b"Password: ")
            password = self.line()
            if password is None:
                return
            self.send(b"\r\n")
            if self.server.accepts(user, password):
                break
            self.send(b"Login incorrect\r\n")
        else:
            return
        self.server.logins.append(user)
        self.send(f"Welcome, {user}.\r\n$ ".encode())
        while (command := self.line()) is not None:
            self.server.commands.append(command)
            self.send(command.encode() + b"\r\n")
            word, _, rest = command.strip().partition(" ")
            if word == "exit":
                self.send(b"logout\r\n")
                return
            if word == "echo":
                reply = rest
            elif word == "whoami":
                reply = user
            elif word == "":
                reply = None
            else:
                reply = f"{word}: command not found"
            if reply is not None:
                self.send(reply.encode() + b"\r\n")
            self.send(b"$ ")


class TelnetServer:
    """A Telnet server on 127.0.0.1 in a thread; a context manager.

    ``logins`` and ``commands`` record what clients typed, for a test to assert.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, user: str | None = None,
                 password: str | None = None):
        self.user = user
        self.password = password
        self.logins: list[str] = []
        self.commands: list[str] = []
        self._sock = socket.create_server((host, port))
        self._sock.settimeout(0.2)
        self.host = host
        self.port: int = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    def accepts(self, user: str, password: str) -> bool:
        """Whether this login is let in."""
        if self.user is None:
            return bool(user)
        return user == self.user and (self.password is None or password == self.password)

    def url(self, user: str | None = None, password: str | None = None) -> str:
        """A telnet: URL for this server, with a login if given."""
        login = ""
        if user is not None:
            login = user + (f":{password}" if password is not None else "") + "@"
        return f"telnet://{login}{self.host}:{self.port}/"

    def start(self) -> TelnetServer:
        """Start accepting connections."""
        self._acceptor.start()
        return self

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                sock, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            t = threading.Thread(target=self._serve, args=(sock,), daemon=True)
            self._threads.append(t)
            t.start()

    def _serve(self, sock: socket.socket) -> None:
        with sock:
            try:
                _Session(sock, self).run()
            except OSError:
                pass

    def close(self) -> None:
        """Stop accepting; sessions end when their clients do."""
        self._stop.set()
        self._sock.close()
        if self._acceptor.is_alive():
            self._acceptor.join(5)

    def __enter__(self) -> TelnetServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def main() -> None:
    """``python -m anyurl.testing.telnet [--host H] [--port N] [--user U --password P]``."""
    parser = argparse.ArgumentParser(prog="python -m anyurl.testing.telnet")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2323)
    parser.add_argument("--user")
    parser.add_argument("--password")
    args = parser.parse_args()
    with TelnetServer(args.host, args.port, user=args.user, password=args.password) as server:
        print(f"telnet server on {server.host}:{server.port}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
