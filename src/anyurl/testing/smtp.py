"""A loopback SMTP server (RFC 5321) that records the messages it receives.

For ``mailto:`` URLs in tests and ``anyurl demo``: EHLO/HELO, MAIL, RCPT, DATA (the
body dot-unstuffed), RSET, NOOP and QUIT, with the multi-line EHLO reply. Each
accepted message is kept in :attr:`SMTPServer.messages` (sender, recipients, the
message bytes). A recipient in ``refuse`` gets ``550``. Threads, not an event loop::

    with SMTPServer() as server:
        config = Config(smtp_relay=f"127.0.0.1:{server.port}")
        ...
        assert server.messages[0].recipients == ["bob@example.org"]

``python -m anyurl.testing.smtp --port N`` runs it standalone.
"""

from __future__ import annotations

import argparse
import socket
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType

__all__ = ["Message", "SMTPServer"]

#: The longest message accepted (RFC 5321's SIZE is advertised with it).
MAX_MESSAGE = 10 << 20


@dataclass
class Message:
    """One message as received: the envelope and the content."""

    sender: str
    recipients: list[str] = field(default_factory=list)
    data: bytes = b""


class SMTPServer:
    """An SMTP server on 127.0.0.1 in a thread; a context manager."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *,
                 refuse: frozenset[str] = frozenset()):
        self.messages: list[Message] = []
        self.refuse = refuse
        self._sock = socket.create_server((host, port))
        self._sock.settimeout(0.2)
        self.host = host
        self.port: int = self._sock.getsockname()[1]
        self._stop = threading.Event()
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    @property
    def relay(self) -> str:
        """``host:port``, as ``Config.smtp_relay`` wants it."""
        return f"{self.host}:{self.port}"

    def start(self) -> SMTPServer:
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
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        with sock:
            try:
                self._session(sock)
            except OSError:
                pass

    def _session(self, sock: socket.socket) -> None:
        sock.settimeout(30)
        reader = sock.makefile("rb")

        def reply(text: str) -> None:
            sock.sendall(text.encode() + b"\r\n")

        reply("220 anyurl.test ESMTP ready")
        current: Message | None = None
        while True:
            raw = reader.readline(4096)
            if not raw:
                return
            line = raw.rstrip(b"\r\n").decode("utf-8", "replace")
            verb, _, arg = line.partition(" ")
            verb = verb.upper()
            if verb == "EHLO":
                reply(f"250-anyurl.test greets {arg}")
                reply("250-8BITMIME")
                reply(f"250 SIZE {MAX_MESSAGE}")
            elif verb == "HELO":
                reply("250 anyurl.test")
            elif verb == "MAIL" and arg.upper().startswith("FROM:"):
                current = Message(sender=_address(arg[5:]))
                reply("250 OK")
            elif verb == "RCPT" and arg.upper().startswith("TO:"):
                if current is None:
                    reply("503 MAIL first")
                    continue
                recipient = _address(arg[3:])
                if recipient in self.refuse:
                    reply(f"550 no mailbox {recipient}")
                    continue
                current.recipients.append(recipient)
                reply("250 OK")
            elif verb == "DATA":
                if current is None or not current.recipients:
                    reply("503 RCPT first")
                    continue
                reply("354 end with <CRLF>.<CRLF>")
                lines: list[bytes] = []
                size = 0
                while True:
                    data = reader.readline(65536)
                    if not data:
                        return
                    if data in (b".\r\n", b".\n"):
                        break
                    if data.startswith(b"."):
                        data = data[1:]
                    size += len(data)
                    if size > MAX_MESSAGE:
                        reply("552 message too large")
                        return
                    lines.append(data)
                current.data = b"".join(lines)
                self.messages.append(current)
                current = None
                reply(f"250 OK queued as {len(self.messages)}")
            elif verb == "RSET":
                current = None
                reply("250 OK")
            elif verb == "NOOP":
                reply("250 OK")
            elif verb == "QUIT":
                reply("221 bye")
                return
            else:
                reply("500 command not recognized")

    def close(self) -> None:
        """Stop accepting connections."""
        self._stop.set()
        self._sock.close()
        if self._acceptor.is_alive():
            self._acceptor.join(5)

    def __enter__(self) -> SMTPServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _address(text: str) -> str:
    text = text.strip()
    if text.startswith("<"):
        text = text[1 : text.find(">") if ">" in text else None]
    return text.split(" ", 1)[0]


def main() -> None:
    """``python -m anyurl.testing.smtp [--host H] [--port N]``: prints each message."""
    parser = argparse.ArgumentParser(prog="python -m anyurl.testing.smtp")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2525)
    args = parser.parse_args()
    with SMTPServer(args.host, args.port) as server:
        print(f"smtp server on {server.relay}", flush=True)
        seen = 0
        try:
            while True:
                time.sleep(0.5)
                for message in server.messages[seen:]:
                    print(f"from {message.sender} to {', '.join(message.recipients)}: "
                          f"{len(message.data)} bytes", flush=True)
                seen = len(server.messages)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
