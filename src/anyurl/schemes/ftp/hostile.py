"""FTP servers that misbehave on purpose (:mod:`anyurl.testing.hostile` serves them).

A greeting that never ends, a line without an end, a ``SIZE`` of 5000 digits, a passive
port the client must refuse, and refusals carrying terminal escape sequences::

    from anyurl.schemes.ftp.hostile import BEHAVIOURS
    from anyurl.testing.hostile import HostileServer

    with HostileServer(BEHAVIOURS["ftp-endless-reply"]) as server:
        run_client(server.url)
"""

from __future__ import annotations

from anyurl.testing.hostile import ESCAPES, Behaviour, Peer, repeat

__all__ = ["BEHAVIOURS"]


def _ftp_login(peer: Peer) -> bool:
    """Greet and accept any login; True when the client is past PASS."""
    if not peer.send(b"220 hostile ftp\r\n"):
        return False
    while (line := peer.line()) is not None:
        verb = line.split(b" ", 1)[0].upper()
        if verb == b"USER":
            peer.send(b"331 password please\r\n")
        elif verb == b"PASS":
            peer.send(b"230 in\r\n")
            return True
        else:
            peer.send(b"530 log in first\r\n")
    return False


def _ftp_commands(peer: Peer, answers: dict[bytes, bytes]) -> None:
    """Answer each command from ``answers`` by verb (``*`` for the rest)."""
    if not _ftp_login(peer):
        return
    while (line := peer.line()) is not None:
        verb = line.split(b" ", 1)[0].upper()
        reply = answers.get(verb, answers.get(b"*", b"200 ok\r\n"))
        if not peer.send(reply):
            return
        if verb == b"QUIT":
            return


def ftp_endless_reply(peer: Peer) -> None:
    """A multi-line greeting whose end never comes: ``220-`` lines without a ``220 ``."""
    peer.send(b"220-welcome\r\n")
    peer.stream(repeat((b"220-" + b"x" * 1000 + b"\r\n") * 64))


def ftp_endless_line(peer: Peer) -> None:
    """A greeting line that never ends (no CR LF at all)."""
    peer.send(b"220 ")
    peer.stream(repeat(b"y" * 65536))


def ftp_size_digits(peer: Peer) -> None:
    """``SIZE`` answered with a 5000-digit number (Python refuses to convert it)."""
    _ftp_commands(peer, {b"SIZE": b"213 " + b"9" * 5000 + b"\r\n",
                         b"EPSV": b"500 no\r\n", b"PASV": b"500 no\r\n",
                         b"PWD": b'257 "/"\r\n', b"*": b"200 ok\r\n"})


def ftp_pasv_to_refused_port(peer: Peer) -> None:
    """``EPSV``/``PASV`` name port 25 (SMTP): a data connection there is refused."""
    _ftp_commands(peer, {b"EPSV": b"229 Entering Extended Passive Mode (|||25|)\r\n",
                         b"PASV": b"227 Entering Passive Mode (127,0,0,1,0,25)\r\n",
                         b"SIZE": b"213 10\r\n", b"PWD": b'257 "/"\r\n',
                         b"*": b"200 ok\r\n"})


def ftp_escape_sequences(peer: Peer) -> None:
    """A refusal whose text carries terminal escape sequences."""
    _ftp_commands(peer, {b"RETR": f"550 no such file {ESCAPES}\r\n".encode(),
                         b"SIZE": f"550 {ESCAPES}\r\n".encode(),
                         b"CWD": f"550 {ESCAPES}\r\n".encode(),
                         b"PWD": b'257 "/"\r\n', b"EPSV": b"500 no\r\n",
                         b"PASV": b"500 no\r\n", b"*": b"200 ok\r\n"})


BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("ftp-endless-reply", "ftp", ftp_endless_reply,
              description=ftp_endless_reply.__doc__ or ""),
    Behaviour("ftp-endless-line", "ftp", ftp_endless_line,
              description=ftp_endless_line.__doc__ or ""),
    Behaviour("ftp-size-digits", "ftp", ftp_size_digits,
              description=ftp_size_digits.__doc__ or ""),
    Behaviour("ftp-pasv-refused-port", "ftp", ftp_pasv_to_refused_port,
              description=ftp_pasv_to_refused_port.__doc__ or ""),
    Behaviour("ftp-escapes", "ftp", ftp_escape_sequences, path="/dir/file",
              description=ftp_escape_sequences.__doc__ or ""),
]}
