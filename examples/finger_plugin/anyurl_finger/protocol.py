"""The finger protocol (RFC 1288), sans I/O: the query line, and what the answer is.

A query is one line, ``{Q1}`` of RFC 1288 2.3: a user name (or nothing, for the list of
users) and CR LF; the server answers with text and closes the connection.
"""

from __future__ import annotations

from anyurl.errors import URLError
from anyurl.url import URL, decode

__all__ = ["query"]


def query(url: URL) -> bytes:
    """The line that asks ``url``'s question: ``/alice`` asks about alice, ``/`` or
    nothing for the users logged in. The URL parser has refused an encoded CR, LF or
    NUL already (RFC 1738 section 6); a space or a ``/`` inside the name is refused
    here: the query would ask something else (RFC 1288 2.5.5's forwarding)."""
    user = decode((url.path or "").rstrip("/"))
    if any(c in user for c in " /@\t"):
        raise URLError(f"{url.masked()}: {user!r} is not one user name", url=url,
                       hint="Write x-finger://host/USER.")
    return user.encode("utf-8", "surrogateescape") + b"\r\n"
