"""Local file names for remote resources (``-O``): scheme-aware and safe.

The name is the last segment of the URL's path *as the scheme splits it*, decoded:
an escaped slash (``%2F``) is data inside a segment (RFC 1738 3.3), so
``http://h/a/..%2F..%2Fetc%2Fpasswd`` names the one segment ``../../etc/passwd``,
never a path. Then the name is made harmless as a single component of the output
directory: ``/`` and ``\\`` and control characters become ``_``, leading dots and
blanks go (no ``..``, no hidden ``.bashrc`` planted by a URL), it is shortened to
250 bytes so that ``NAME.part`` fits the usual 255-byte limit of one name (keeping its
extension: ``...long-name.tar.gz`` stays a ``.gz``), and it is never empty (the host,
then the scheme, stand in).

Each scheme's descriptor says how its URLs name a file
(:attr:`~anyurl.registry.spec.SchemeSpec.local_name`): ``;type=`` is already gone (the
ftp view strips it); a gopher type character is not part of the selector; a Message-ID
loses its angle brackets and ``@`` becomes ``_at_``; an NNTP article is
``group.number``; a WAIS document is saved under its own file name (from its docid)
rather than the whole docid. A URL of a scheme without one is named after its host.
"""

from __future__ import annotations

import re

from anyurl.registry import spec_for
from anyurl.url import URL

__all__ = ["disposition_filename", "remote_name", "safe_name"]

_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\]")
#: Most file systems limit one name to 255 bytes; ``NAME.part`` must fit too.
MAX_NAME_BYTES = 255 - len(".part")
#: An extension longer than this is not kept apart when a name is shortened.
_MAX_EXTENSION_BYTES = 16


def safe_name(name: str, fallback: str = "index", *, dots: bool = False) -> str:
    """``name`` made safe as a single, visible path component; ``fallback`` if nothing is left.

    ``dots`` keeps a leading dot (a mirror's tree, where a remote ``.htaccess`` is kept
    by its name); a name of dots alone (``.``, ``..``) still goes, whatever is asked.

    >>> safe_name("../../etc/passwd")
    '_.._etc_passwd'
    >>> safe_name(".bashrc")
    'bashrc'
    >>> safe_name(".bashrc", dots=True)
    '.bashrc'
    """
    name = _UNSAFE.sub("_", name).strip()
    if not (dots and name.strip(". ") and not name.startswith(". ")):
        name = name.lstrip(". ")
    if not name:
        return fallback
    return _shorten(name)


def disposition_filename(value: str | None) -> str | None:
    """The file name a ``Content-Disposition`` value gives (curl's ``-J``), or None.

    Parsed by the standard library (:class:`email.message.Message`'s parameters, RFC
    2231's ``filename*=charset'lang'%XX`` decoded by :func:`email.utils.collapse_rfc2231_value`),
    so quoted ``;`` and escapes are data, not separators. ``filename*`` wins over
    ``filename`` (RFC 6266 4.3). Only the last segment is kept (``/`` and ``\\`` both
    separate, as curl cuts them): the name is still to be made safe (:func:`safe_name`).

    >>> disposition_filename("attachment; filename*=UTF-8''na%C3%AFve.txt; filename=n.txt")
    'naïve.txt'
    """
    if not value:
        return None
    import email.message  # only for a Content-Disposition: not paid by every start
    import email.utils

    message = email.message.Message()
    try:
        message["content-disposition"] = value
        params = message.get_params(header="content-disposition") or []
    except (ValueError, IndexError):  # a header the email parser cannot read
        return None
    plain: str | None = None
    extended: str | None = None
    for key, param in params[1:]:  # the first is the disposition type
        if key.lower() != "filename":
            continue
        if isinstance(param, tuple):
            try:
                extended = email.utils.collapse_rfc2231_value(param)
            except LookupError:  # an unknown charset
                continue
        elif plain is None:
            plain = param
    name = extended if extended is not None else plain
    if name is None:
        return None
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return name if name not in ("", ".", "..") else None


def _shorten(name: str) -> str:
    encoded = name.encode("utf-8", "surrogateescape")
    if len(encoded) <= MAX_NAME_BYTES:
        return name
    stem, dot, extension = name.rpartition(".")
    tail = (dot + extension).encode("utf-8", "surrogateescape")
    if not stem or len(tail) > _MAX_EXTENSION_BYTES:
        tail = b""
    head = encoded[: MAX_NAME_BYTES - len(tail)]
    # cut on a character boundary: drop a partial UTF-8 sequence at the end
    return head.decode("utf-8", "ignore") + tail.decode("utf-8", "surrogateescape")


def _last(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def remote_name(url: URL, suggested: str | None = None) -> str:
    """The file name ``-O`` saves ``url`` under (``suggested``: a name the server gave)."""
    if suggested:
        return safe_name(_last(suggested))
    spec = spec_for(url.scheme)
    name = spec.local_name(url) if spec is not None and spec.local_name is not None else ""
    return safe_name(name, fallback=safe_name(url.host or "", fallback=url.scheme))
