"""multipart/form-data request bodies (RFC 7578), as curl's ``-F`` builds them.

A :class:`Form` is a list of :class:`Part` s: a value given as text, or a file whose
bytes are streamed from the disk in blocks when the request is sent (never read whole
into memory), and read afresh for a retry or a 307/308 redirect. Its length is known
before sending (``Content-Length``, as curl sends it): a file that changes size in
between fails the request rather than sending a body of another length.

The boundary is random and checked against every part, files included (read once
beforehand): it cannot occur in the body it separates, so no part can end early or
smuggle another part in.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass

import anyio

from anyurl.errors import OptionError

__all__ = ["BLOCK", "Form", "Part", "parse_form_option"]

#: Bytes read from a file at a time when a form is sent.
BLOCK = 64 * 1024


@dataclass(frozen=True)
class Part:
    """One field: ``value`` (text) or the file at ``path``, with curl's ``;type=`` and
    ``;filename=`` (a file's name defaults to its base name)."""

    name: str
    value: bytes | None = None
    path: str | None = None
    content_type: str | None = None
    filename: str | None = None

    def head(self, boundary: str) -> bytes:
        """The part's delimiter line and headers, ending with the empty line."""
        disposition = f'form-data; name="{_quoted(self.name)}"'
        if self.path is not None:
            filename = self.filename if self.filename is not None else os.path.basename(self.path)
            disposition += f'; filename="{_quoted(filename)}"'
        elif self.filename is not None:
            disposition += f'; filename="{_quoted(self.filename)}"'
        lines = [f"--{boundary}", f"Content-Disposition: {disposition}"]
        content_type = self.content_type
        if content_type is None and self.path is not None:
            import mimetypes  # a file part's type only: not paid by every start

            content_type = mimetypes.guess_type(self.path)[0] or "application/octet-stream"
        if content_type is not None:
            lines.append(f"Content-Type: {content_type}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


def _quoted(text: str) -> str:
    """A name in a quoted-string, as curl writes it (``"`` escaped; CR and LF refused)."""
    if any(c in text for c in "\r\n\0"):
        raise OptionError(f"-F: a field or file name may not contain CR, LF or NUL: {text!r}")
    return text.replace("\\", "\\\\").replace('"', '\\"')


class Form:
    """A multipart/form-data body: ``len()`` is its length, :meth:`chunks` its bytes."""

    def __init__(self, parts: Iterable[Part]):
        self.parts = tuple(parts)
        if not self.parts:
            raise OptionError("a form needs at least one part")
        self.sizes: dict[str, int] = {}
        for part in self.parts:
            if part.path is not None:
                try:
                    self.sizes[part.path] = os.stat(part.path).st_size
                except OSError as exc:
                    raise OptionError(f"-F {part.name}=@{part.path}: cannot read the file: "
                                      f"{exc.strerror or exc}") from None
        self.boundary = self._boundary()
        self.heads = [part.head(self.boundary) for part in self.parts]
        self.tail = f"--{self.boundary}--\r\n".encode("ascii")
        self.length = len(self.tail) + sum(len(h) + 2 for h in self.heads) + sum(
            len(p.value or b"") if p.path is None else self.sizes[p.path] for p in self.parts)

    @property
    def content_type(self) -> str:
        """The request's ``Content-Type``, boundary included."""
        return f"multipart/form-data; boundary={self.boundary}"

    def __len__(self) -> int:
        return self.length

    def __repr__(self) -> str:
        return f"Form({len(self.parts)} parts, {self.length} bytes)"

    def _boundary(self) -> str:
        """curl's shape (dashes and hex digits), drawn again in the rare case that it
        occurs in a part (files are scanned in blocks, overlapping by its length)."""
        import secrets  # imported when a form is sent, not by every start

        while True:
            boundary = "-" * 24 + secrets.token_hex(8)
            marker = boundary.encode("ascii")
            if not any(self._contains(part, marker) for part in self.parts):
                return boundary

    @staticmethod
    def _contains(part: Part, marker: bytes) -> bool:
        if part.path is None:
            return marker in (part.value or b"") or marker in part.name.encode("utf-8")
        carry = b""
        with open(part.path, "rb") as f:
            while block := f.read(BLOCK):
                if marker in carry + block:
                    return True
                carry = block[-len(marker):]
        return False

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body in blocks: each part's head, its value or the file's bytes."""
        for part, head in zip(self.parts, self.heads, strict=True):
            yield head
            if part.path is None:
                if part.value:
                    yield part.value
            else:
                left = self.sizes[part.path]
                async with await anyio.open_file(part.path, "rb") as f:
                    while left:
                        block = await f.read(min(BLOCK, left))
                        if not block:
                            break
                        left -= len(block)
                        yield block
                if left:
                    raise OptionError(f"-F {part.name}=@{part.path}: the file shrank while "
                                      "it was sent; not sending a body of another length")
            yield b"\r\n"
        yield self.tail


def parse_form_option(text: str) -> Part:
    """curl's ``-F`` syntax: ``name=value``, ``name=@file`` (a file upload),
    ``name=<file`` (the file's content as the value), each followed by ``;type=TYPE``
    and, for files, ``;filename=NAME``. A value that starts with ``@`` or ``<`` must be
    quoted as curl wants: ``name="@text"``."""
    name, eq, rest = text.partition("=")
    if not eq or not name:
        raise OptionError(f"-F {text!r}: a form field is NAME=VALUE, NAME=@FILE or NAME=<FILE")
    kind = rest[:1] if rest[:1] in ("@", "<") else ""
    body = rest[1:] if kind else rest
    if body.startswith('"'):  # a quoted value: the quotes go, ';' inside stays
        end = body.find('"', 1)
        if end < 0:
            raise OptionError(f"-F {text!r}: a quote is not closed")
        main, params = body[1:end], body[end + 1:]
    else:
        main, _, params = body.partition(";")
        params = ";" + params if params else ""
    content_type = filename = None
    for param in filter(None, (p.strip() for p in params.split(";"))):
        key, _, value = param.partition("=")
        if key == "type":
            content_type = value
        elif key == "filename":
            filename = value.strip('"')
        elif key in ("headers", "encoder"):
            raise OptionError(f"-F {text!r}: ;{key}= is not supported")
        elif not kind:  # curl: in a plain value, what follows ';' is part of the value
            return Part(name, value=rest.encode("utf-8"))
        else:
            raise OptionError(f"-F {text!r}: unknown field parameter {key!r}")
    if content_type is not None and any(c in content_type for c in "\r\n\0"):
        raise OptionError(f"-F {text!r}: a type may not contain CR, LF or NUL")
    if kind == "@":
        return Part(name, path=main, content_type=content_type, filename=filename)
    if kind == "<":
        try:
            with open(main, "rb") as f:
                content = f.read()
        except OSError as exc:
            raise OptionError(f"-F {text!r}: cannot read {main!r}: {exc.strerror or exc}") \
                from None
        return Part(name, value=content, content_type=content_type)
    return Part(name, value=main.encode("utf-8"), content_type=content_type,
                filename=filename)
