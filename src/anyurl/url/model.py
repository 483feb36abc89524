"""The URL value: RFC 1738's common Internet scheme syntax (3.1) plus the generic form.

A :class:`URL` is immutable and compares by value. It holds

* ``scheme`` lowercased (section 2.1 asks interpreters to ignore case);
* for URLs written ``scheme://...``: ``user`` and ``password`` *decoded* (``None`` when
  absent, ``""`` when present but empty: ``ftp://@host/`` is not ``ftp://host/``),
  ``host`` as written, ``port`` when written, and ``path``, the url-path *as written*
  (still %-encoded; ``None`` when there is no ``/`` after the host);
* for the others (``mailto:``, ``news:``, unknown schemes): ``opaque``, the schemepart
  as written;
* ``fragment``, the raw text after ``#``, which is not part of the URL proper.

``str(url)`` serialises it; parsing that string gives an equal value. ``url.parts``
is the typed, decoded view of the scheme-specific part (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from anyurl.registry import DEFAULT_PORTS, spec_for
from anyurl.url.charset import UCHAR_PLAIN, display, quote
from anyurl.url.views import GenericPart

if TYPE_CHECKING:
    from anyurl.url.views import View

__all__ = ["DEFAULT_PORTS", "URL", "mask"]

#: Characters a user or password may carry unescaped (section 5: uchar | ";?&=").
_LOGIN_SAFE = UCHAR_PLAIN | frozenset(";?&=")
PASSWORD_MASK = "****"


@dataclass(frozen=True)
class URL:
    """An RFC 1738 URL. Build one with :func:`anyurl.url.parse`, not by hand."""

    scheme: str
    user: str | None = None
    password: str | None = None
    host: str | None = None
    port: int | None = None
    path: str | None = None
    opaque: str | None = None
    fragment: str | None = None

    # -- derived ---------------------------------------------------------------

    @property
    def has_authority(self) -> bool:
        """True for URLs written ``scheme://...`` (section 3.1's common syntax)."""
        return self.host is not None

    @property
    def effective_port(self) -> int | None:
        """The port written, else the scheme's default; ``None`` without a host."""
        if self.port is not None:
            return self.port
        if self.host is None:
            return None
        return DEFAULT_PORTS.get(self.scheme)

    @property
    def connect_host(self) -> str:
        """The host to connect to (``[::1]`` written becomes ``::1``)."""
        host = self.host or ""
        if host.startswith("[") and host.endswith("]"):
            return host[1:-1]
        return host

    @cached_property
    def parts(self) -> View:
        """The typed, decoded scheme-specific view (ftp cwd/name/typecode, ...): its
        scheme's descriptor makes it (:class:`~anyurl.registry.spec.SchemeSpec`), the
        generic one for a scheme that has none."""
        spec = spec_for(self.scheme)
        if spec is None or spec.view is None:
            return GenericPart(self.schemepart)
        view: View = spec.view(self)
        return view

    @property
    def schemepart(self) -> str:
        """Everything between ``scheme:`` and ``#``, as serialised."""
        text = str(self.without_fragment())
        return text[len(self.scheme) + 1 :]

    # -- serialising -----------------------------------------------------------

    def _authority(self, password: str | None) -> str:
        login = ""
        if self.user is not None:
            login = quote(self.user, _LOGIN_SAFE)
            if password is not None:
                login += ":" + password
            login += "@"
        hostport = self.host or ""
        if self.port is not None:
            hostport += f":{self.port}"
        return login + hostport

    def _serialise(self, password: str | None, fragment: bool = True) -> str:
        if self.host is not None:
            text = f"{self.scheme}://{self._authority(password)}"
            if self.path is not None:
                text += "/" + self.path
        else:
            text = f"{self.scheme}:{self.opaque or ''}"
        if fragment and self.fragment is not None:
            text += "#" + self.fragment
        return text

    # The value is immutable, so its text is made once: a mirror's file is named by
    # its URL's text a dozen times on its way (keys, traces, messages, the manifest).
    @cached_property
    def _text(self) -> str:
        password = None if self.password is None else quote(self.password, _LOGIN_SAFE)
        return self._serialise(password)

    @cached_property
    def _masked_text(self) -> str:
        return self._serialise(None if self.password is None else PASSWORD_MASK)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"URL({self.masked()!r})"

    def masked(self) -> str:
        """The URL as text with any password replaced by ``****``: safe to print."""
        return self._masked_text

    def without_fragment(self) -> URL:
        """This URL without its ``#fragment`` (the same object when it has none)."""
        return dataclasses.replace(self, fragment=None) if self.fragment is not None else self

    def replace(self, **changes: Any) -> URL:
        """A copy with fields changed (not re-validated: pass values of the same form)."""
        return dataclasses.replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        """The object ``anyurl parse --json`` prints (a stable contract)."""
        return {
            "url": str(self),
            "scheme": self.scheme,
            "user": display(self.user),
            "password": display(self.password),
            "host": self.host,
            "port": self.effective_port,
            "path": self.path,
            "fragment": self.fragment,
            "parts": self.parts.to_json(),
        }


def mask(url: URL | str) -> str:
    """Mask the password of a URL, or of URL text that may not even parse; every other
    part is kept as written."""
    if isinstance(url, URL):
        return url.masked()
    text = str(url)
    span = _password_span(text)
    return text if span is None else text[: span[0]] + PASSWORD_MASK + text[span[1] :]


def masked_position(text: str, position: int) -> int:
    """``position`` (an index into ``text``, as :class:`~anyurl.errors.URLSyntaxError`
    gives it) as an index into ``mask(text)``, the text a message shows: after the
    password it moves by the mask's length against the password's; inside it, it is the
    mask's first character."""
    span = _password_span(text)
    if span is None or position < span[0]:
        return position
    if position < span[1]:
        return span[0]
    return position + len(PASSWORD_MASK) - (span[1] - span[0])


def _password_span(text: str) -> tuple[int, int] | None:
    """Where the password of URL text is (start, end), or None when it has none.

    RFC 1738 3.1: the login follows ``//`` and ends at the first ``/``; within it, the
    user and password end at its last ``@`` (as the parser reads it: a password may hold
    an unescaped ``@``), and the password starts after the user's ``:``. An ``@`` in the
    path is the path's (``/~a@b``). A login with no ``@`` before the first ``/`` but a
    ``:`` may still be a password holding an unescaped ``/`` (``ftp://u:pa/ss@h/``, or
    ``u:8080/@h``, which reads as a port too): then the text to the first ``@`` after
    it is masked, as what may be a password is never shown.
    """
    scheme_end = text.find("://")
    if scheme_end < 0:
        return None
    start = scheme_end + 3
    slash = text.find("/", start)
    login_end = len(text) if slash < 0 else slash
    at = text.rfind("@", start, login_end)
    if at >= 0:
        colon = text.find(":", start, at)
        return None if colon < 0 else (colon + 1, at)
    colon = text.find(":", start, login_end)
    if colon < 0 or text.startswith("[", start):  # an IPv6 host: no login before it
        return None
    at = text.find("@", login_end)
    return None if at < 0 else (colon + 1, at)
