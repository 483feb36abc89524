"""NNTP servers that misbehave on purpose (:mod:`anyurl.testing.hostile` serves them).

:data:`BEHAVIOURS`: an article without end. :data:`NUMBERS`: a greeting whose code is
not ASCII digits. The pipelines' (issue 29): :func:`nntp_extra_article`, a server
whose article after one ``ARTICLE`` is followed by a second ``220`` (by default ``220 0
<...>``, a number no numbered ``ARTICLE`` is answered with); every body is ``article
N``, so an answer given to the wrong URL shows, and the extra body is
:data:`~anyurl.testing.hostile.EXTRA`::

    from anyurl.schemes.news.hostile import nntp_extra_article
    from anyurl.testing.hostile import HostileServer

    with HostileServer(nntp_extra_article(3)) as server: ...
"""

from __future__ import annotations

from anyurl.testing.hostile import EXTRA, Asked, Behaviour, Peer, repeat
from anyurl.testing.hostile_numbers import SUPERSCRIPT_TWO

__all__ = ["BEHAVIOURS", "NNTP_GROUP", "NUMBERS", "nntp_article", "nntp_extra_article"]


def nntp_endless_article(peer: Peer) -> None:
    """An article body that never ends with ``.``."""
    if not peer.send(b"200 hostile news\r\n"):
        return
    while (line := peer.line()) is not None:
        verb = line.split(b" ", 1)[0].upper()
        if verb == b"GROUP":
            peer.send(b"211 1 1 1 test\r\n")
        elif verb in (b"ARTICLE", b"BODY"):
            peer.send(b"220 1 <a@b> article\r\nSubject: x\r\n\r\n")
            peer.stream(repeat(b"line of the endless article\r\n" * 1000))
            return
        elif verb == b"QUIT":
            peer.send(b"205 bye\r\n")
            return
        else:
            peer.send(b"500 what\r\n")

BEHAVIOURS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("nntp-endless-article", "nntp", nntp_endless_article, path="/test/1",
              description=nntp_endless_article.__doc__ or ""),
]}


def nntp_code_superscript(peer: Peer) -> None:
    """Greets with ``2²0 news`` instead of ``200``."""
    peer.send(f"2{SUPERSCRIPT_TWO}0 news\r\n".encode())
    peer.wait_closed(2)


NUMBERS: dict[str, Behaviour] = {b.name: b for b in [
    Behaviour("nntp-code-superscript", "nntp", nntp_code_superscript, path="/test/1",
              description=nntp_code_superscript.__doc__ or ""),
]}


#: The group :func:`nntp_extra_article` serves, and its articles' message-ids.
NNTP_GROUP = "test.pipe"


def _message_id(number: int) -> str:
    return f"<{number}@pipe.test>"


def nntp_article(number: int) -> bytes:
    """The text of article ``number`` as the server sends it (head, blank, body)."""
    return (f"Message-ID: {_message_id(number)}\r\nSubject: {number}\r\n\r\n"
            f"article {number}\r\n").encode()


def _nntp_answer(verb: bytes, args: list[bytes], count: int) -> bytes:
    """The answer to one command (not QUIT)."""
    if verb == b"GROUP":
        return f"211 {count} 1 {count} {NNTP_GROUP}\r\n".encode()
    if verb == b"MODE":
        return b"200 reader\r\n"
    if verb != b"ARTICLE" or not args:
        return b"500 what\r\n"
    arg = args[0].decode("latin-1")
    by_id = arg.startswith("<")
    number = int(arg.strip("<>").split("@")[0]) if by_id else int(arg)
    if not 1 <= number <= count or (by_id and arg != _message_id(number)):
        return b"430 no such article\r\n" if by_id else b"423 no such article\r\n"
    shown = 0 if by_id else number
    return (f"220 {shown} {_message_id(number)}\r\n".encode() + nntp_article(number)
            + b".\r\n")


def nntp_extra_article(after: int | None, count: int = 8, asked: Asked | None = None,
                       *, extra_line: bytes | None = b"220 0 <extra@pipe.test>",
                       ) -> Behaviour:
    """An NNTP server of ``count`` articles in :data:`NNTP_GROUP` whose answer to the
    ARTICLE for article ``after`` (None: for every article) is followed, in the same
    write, by ``extra_line`` (None: the same ``220`` line again, an article answered
    twice) and an article of :data:`EXTRA`. Commands that arrived together are
    answered in one write."""
    asked = asked if asked is not None else Asked()
    wanted = None if after is None else (str(after).encode(), _message_id(after).encode())

    def run(peer: Peer) -> None:
        asked.connected()
        if not peer.send(b"200 pipelines\r\n"):
            return
        out = bytearray()
        while (line := peer.line()) is not None:
            asked.asked(line)
            verb, *args = line.split()
            verb = verb.upper()
            if verb == b"QUIT":
                peer.send(bytes(out) + b"205 bye\r\n")
                return
            answer = _nntp_answer(verb, args, count)
            out += answer
            if answer.startswith(b"220") and (wanted is None or args[0] in wanted):
                first = answer[:answer.index(b"\r\n")] if extra_line is None else extra_line
                out += first + b"\r\nSubject: extra\r\n\r\n" + EXTRA + b"\r\n.\r\n"
            if b"\n" not in peer.buffered:
                if not peer.send(bytes(out)):
                    return
                out.clear()

    return Behaviour("nntp-extra-article", "nntp", run, path=f"/{NNTP_GROUP}/{after or 1}",
                     description=nntp_extra_article.__doc__ or "")
