"""The one exception tree of anyurl, with curl-compatible exit codes.

Every error a user can meet is an :class:`AnyURLError`; its ``exit_code`` is what
``anyurl`` exits with, chosen to match curl's so scripts written for curl keep working::

    AnyURLError                      1  (base; also "something else went wrong")
    ├── OptionError                  2  an option of the wrong type or value (API or CLI)
    ├── URLError                     3  the URL is malformed or not allowed as written
    │   ├── URLSyntaxError           3    ... with the 0-based position of the problem
    │   └── UnsupportedHost          3    file://otherhost/ and the like
    ├── UnsupportedScheme            1  no handler for the scheme
    ├── PolicyRefused                7  a port of another protocol (RFC 1738 section 6)
    │   └── SchemeRefused            1    a scheme this run may not open (--proto)
    ├── NetworkError                 7  (base for transport failures)
    │   ├── HostNotResolved          6
    │   │   └── ProxyNotResolved     5    ... the proxy's own name (curl's COULDNT_RESOLVE_PROXY)
    │   ├── ConnectFailed            7
    │   │   └── TLSHandshakeFailed  35  the TLS handshake failed (curl's SSL connect error;
    │   │       │                          an FTP data connection's too, or its 522 reply)
    │   │       └── TLSCertificateError 60  the server's certificate was not accepted
    │   ├── ConnectionLost          56  the peer reset or closed the connection mid-dialogue
    │   ├── TLSNotOffered           64  TLS required and not offered (curl's USE_SSL_FAILED)
    │   └── ProxyError              97  a SOCKS proxy refused, or broke its handshake (CURLE_PROXY)
    ├── TLSSetupError               77  a CA file or directory that cannot be used
    │   └── TLSClientCertificateError 58  a client certificate or key that cannot be used
    ├── TransferTimeout             28
    ├── LoginDenied                 67  bad credentials, or no way to ask for a password (HTTP: 22)
    ├── RemoteAccessDenied           9  curl's "access denied to remote resource" (FTP CWD)
    ├── RemoteFileNotFound          78  (an HTTP 404/410: 22, as curl -f)
    │   └── LocalFileNotFound       37    a file: URL's file does not exist (as curl)
    ├── PartialTransfer             18  fewer bytes than announced
    ├── ProtocolError                8  a reply the client cannot make sense of
    │   └── BadContentEncoding      61  a body that does not decode as its coding says
    ├── ServerError                 22  the server answered with an error (HTTP 5xx, ...)
    ├── ResumeFailed                36  the server cannot continue a transfer where asked
    ├── TooManyRedirects            47
    ├── FileReadError               37  a local file (file:) exists but cannot be read
    ├── FileExists                  73  refusing to overwrite a local file
    ├── FileSizeExceeded            63  larger than --max-filesize (Config.max_filesize)
    ├── LocalWriteError             23
    ├── StreamClosed                 1  our own code used a stream it had closed (a bug; no retry)
    └── Aborted                     42  the user aborted (Ctrl-C, a callback)

An HTTP answer of 400 or more exits 22 whatever its class, as ``curl -f`` does (see
:attr:`AnyURLError.status`); the other schemes keep the codes above.

Messages are one sentence that quotes the URL with its password masked, says what
went wrong and, where there is one, what to try. Code that builds a message must pass
the URL through :func:`anyurl.url.mask` (or give ``url=`` and let the base class do it);
a password never appears in an exception's text.
"""

from __future__ import annotations

__all__ = [
    "HTTP_ERROR_EXIT",
    "Aborted",
    "AnyURLError",
    "BadContentEncoding",
    "ConnectFailed",
    "ConnectionLost",
    "FileExists",
    "FileReadError",
    "FileSizeExceeded",
    "HostNotResolved",
    "LocalFileNotFound",
    "LocalWriteError",
    "LoginDenied",
    "NetworkError",
    "OptionError",
    "PartialTransfer",
    "PolicyRefused",
    "ProtocolError",
    "ProxyError",
    "ProxyNotResolved",
    "RemoteAccessDenied",
    "RemoteFileNotFound",
    "ResumeFailed",
    "SchemeRefused",
    "ServerError",
    "StreamClosed",
    "TLSCertificateError",
    "TLSClientCertificateError",
    "TLSHandshakeFailed",
    "TLSNotOffered",
    "TLSSetupError",
    "TooManyRedirects",
    "TransferTimeout",
    "URLError",
    "URLSyntaxError",
    "UnsupportedHost",
    "UnsupportedScheme",
]


class AnyURLError(Exception):
    """Base of every anyurl error; ``exit_code`` is the process exit status for it.

    ``url`` (a string, already masked, or an object whose ``masked()`` gives one) is
    kept for callers; ``hint`` is a short "what to try" appended to the message, in
    the words of the API (``clobber=True``), never of the command line. ``remedy``
    names the remedy for front ends that say it in their own words: the command line
    turns ``("clobber",)`` into "Use --clobber ..." (``anyurl.cli.hints``).
    """

    #: The exit status (the class's; an HTTP error answer's is 22, see :attr:`status`).
    exit_code: int = 1
    _status: int | None = None
    #: Seconds the server asked the client to wait before trying again (an HTTP 429 or
    #: 503 with ``Retry-After``), or None; the downloader's retries honour it.
    retry_after: float | None = None
    #: The server's error answer, for an archive (error responses are archives too):
    #: ``request`` (as sent: method, target, http_version, headers), ``status``,
    #: ``reason``, ``headers``, and ``body``, the error page when it was read whole
    #: within the handler's drain limit (else None). Set by handlers that have one (an
    #: HTTP 404); nothing prints it.
    answer: dict[str, object] | None = None

    def __init__(self, message: str, *, url: object | None = None, hint: str | None = None,
                 remedy: tuple[str, ...] | None = None):
        self.url = _masked(url) if url is not None else None
        if self._status is not None:
            self.status = self._status  # set before the URL was known (ServerError)
        self.hint = hint
        self.remedy = remedy
        self.message = message
        text = message
        if hint:
            text = f"{text.rstrip('.')}. {hint}"
        super().__init__(text)


    @property
    def status(self) -> int | None:
        """The server's status code when the error is its answer (HTTP 404, FTP 550), for
        ``-w %{response_code}`` and programs; None otherwise.

        An HTTP (or HTTPS) answer of 400 or more makes the exit code 22 whatever the
        class (404 is still a :class:`RemoteFileNotFound`, 401 a :class:`LoginDenied`):
        scripts written for ``curl -f`` test for 22. Other schemes keep the class's code
        (FTP 550: 78).
        """
        return self._status

    @status.setter
    def status(self, value: int | None) -> None:
        self._status = value
        url = getattr(self, "url", None)
        if value is not None and value >= 400 and isinstance(url, str) \
                and url.lower().startswith(("http://", "https://")):
            self.exit_code = HTTP_ERROR_EXIT


#: curl's exit code for an HTTP error answer with ``-f`` (CURLE_HTTP_RETURNED_ERROR).
HTTP_ERROR_EXIT = 22


def _masked(url: object) -> str:
    masked = getattr(url, "masked", None)
    if callable(masked):
        return str(masked())
    return str(url)


class OptionError(AnyURLError, TypeError):
    """An option the caller gave cannot be used: wrong type or value (curl exits 2)."""

    exit_code = 2

    @classmethod
    def missing_extra(cls, what: str, module: str | None, extra: str) -> OptionError:
        """``what`` needs ``module``, of the ``extra`` that is not installed: one wording
        and one hint (``pip install 'anyurl[extra]'``) for every optional dependency, so
        a base install answers each option that needs one with what to install, never
        with the ImportError or LookupError the missing package would raise."""
        return cls(f"{what} needs {module or extra}, which is not installed",
                   hint=f"pip install 'anyurl[{extra}]'")


class URLError(AnyURLError):
    """The URL cannot be used as written (curl's CURLE_URL_MALFORMAT)."""

    exit_code = 3


class URLSyntaxError(URLError, ValueError):
    """The text is not a URL of RFC 1738; ``position`` is the 0-based offending index."""

    def __init__(self, message: str, position: int, *, text: str | None = None):
        self.problem = message
        self.position = position
        self.text = text
        super().__init__(f"{message} at position {position}")


class UnsupportedHost(URLError):
    """A host the scheme cannot reach from here (``file://otherhost/...``)."""


class UnsupportedScheme(AnyURLError):
    """No handler is registered for the URL's scheme (curl's CURLE_UNSUPPORTED_PROTOCOL)."""

    exit_code = 1


class PolicyRefused(AnyURLError):
    """Refused before any byte was sent: a port reserved for another protocol."""

    exit_code = 7


class SchemeRefused(PolicyRefused):
    """A scheme this run may not open (curl's ``--proto``; its exit code, 1, is curl's
    CURLE_UNSUPPORTED_PROTOCOL), refused at the gate before any byte was sent."""

    exit_code = 1


class NetworkError(AnyURLError):
    """A failure of the transport underneath a protocol."""

    exit_code = 7


class HostNotResolved(NetworkError):
    """The host name does not resolve (curl's CURLE_COULDNT_RESOLVE_HOST)."""

    exit_code = 6


class ProxyNotResolved(HostNotResolved):
    """The proxy's own host name does not resolve (curl's CURLE_COULDNT_RESOLVE_PROXY):
    a code of its own, so a script can tell the proxy's name from the target's."""

    exit_code = 5


class ConnectFailed(NetworkError):
    """The connection was refused or the host is unreachable (curl's CURLE_COULDNT_CONNECT)."""

    exit_code = 7


class TLSHandshakeFailed(ConnectFailed):
    """The TLS handshake failed: no TLS on that port, no common protocol (curl's 35)."""

    exit_code = 35


class TLSCertificateError(TLSHandshakeFailed):
    """The server's certificate did not verify (curl's CURLE_PEER_FAILED_VERIFICATION)."""

    exit_code = 60


class TLSSetupError(AnyURLError):
    """A CA file or directory cannot be used (``--cacert``, ``--capath``: curl's 77)."""

    exit_code = 77


class TLSClientCertificateError(TLSSetupError):
    """A client certificate or its key cannot be used (``--cert``: curl's 58)."""

    exit_code = 58


class ConnectionLost(NetworkError):
    """The connection broke or closed while a reply was still expected."""

    exit_code = 56


class TLSNotOffered(NetworkError):
    """TLS was required (``--ssl-reqd``) and the server does not offer it (an NNTP server
    without STARTTLS): curl's CURLE_USE_SSL_FAILED, before any login was sent."""

    exit_code = 64


class ProxyError(NetworkError):
    """A SOCKS proxy refused the connection (its login, the target) or broke its
    handshake (curl's CURLE_PROXY): not retried, since a proxy that refuses once refuses
    again, and a proxy that cannot be reached at all is :class:`ConnectFailed` (7)."""

    exit_code = 97


class TransferTimeout(AnyURLError, TimeoutError):
    """Connecting, a read, a stall or the whole transfer took too long (curl's 28)."""

    exit_code = 28


class LoginDenied(AnyURLError):
    """Bad credentials, or a login is needed and there is no way to ask (curl's 67)."""

    exit_code = 67


class RemoteAccessDenied(AnyURLError):
    """The server refused to enter a directory (FTP CWD 550), as curl's exit 9."""

    exit_code = 9


class RemoteFileNotFound(AnyURLError):
    """The server says the resource does not exist (curl's CURLE_REMOTE_FILE_NOT_FOUND)."""

    exit_code = 78


class LocalFileNotFound(RemoteFileNotFound):
    """A ``file:`` URL names a file that does not exist: curl's exit code for it is 37
    (CURLE_FILE_COULDNT_READ_FILE), and scripts compare codes; still a "not found"
    (a gateway answers 404) for code that catches :class:`RemoteFileNotFound`."""

    exit_code = 37


class PartialTransfer(AnyURLError):
    """The transfer ended before the announced size; never reported as success."""

    exit_code = 18

    def __init__(
        self,
        message: str,
        *,
        received: int | None = None,
        expected: int | None = None,
        url: object | None = None,
        hint: str | None = None,
        remedy: tuple[str, ...] | None = ("resume",),
    ):
        self.received = received
        self.expected = expected
        super().__init__(message, url=url, hint=hint, remedy=remedy)


class ProtocolError(AnyURLError):
    """The server said something the protocol does not allow (curl's weird reply, 8)."""

    exit_code = 8


class BadContentEncoding(ProtocolError):
    """A body that does not decode as its ``Content-Encoding`` says (``--compressed``):
    corrupt, cut short, or more codings stacked than anyurl undoes (curl's 61)."""

    exit_code = 61


class ServerError(AnyURLError):
    """The server answered with an error status that has no more specific class."""

    exit_code = 22

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        url: object | None = None,
        hint: str | None = None,
        remedy: tuple[str, ...] | None = None,
    ):
        self.status = status
        super().__init__(message, url=url, hint=hint, remedy=remedy)


class ResumeFailed(AnyURLError):
    """The server cannot continue a transfer where asked (curl's CURLE_RANGE_ERROR, 36)."""

    exit_code = 36


class TooManyRedirects(AnyURLError):
    """More redirects than ``Config.max_redirects``, or a loop (curl's 47)."""

    exit_code = 47


class FileReadError(AnyURLError):
    """A local file (``file:``) exists but cannot be read (curl's 37)."""

    exit_code = 37


class FileExists(AnyURLError):
    """Refusing to overwrite an existing file, or two URLs of one run for one file (73)."""

    exit_code = 73


class FileSizeExceeded(AnyURLError):
    """The resource is larger than the caller allows (curl's CURLE_FILESIZE_EXCEEDED).

    Counted on the bytes delivered, after any content decoding, so a compressed body
    that inflates past the limit is stopped too.
    """

    exit_code = 63


class LocalWriteError(AnyURLError):
    """A local file or directory cannot be written (curl's CURLE_WRITE_ERROR, 23)."""

    exit_code = 23


class StreamClosed(AnyURLError):
    """A stream our own code had closed was used again (trio's "Closed", not "Broken").

    A bug on our side, never the network's: it is not a :class:`NetworkError`, so the
    downloader never retries it.
    """

    exit_code = 1


class Aborted(AnyURLError):
    """The user aborted (Ctrl-C, SIGTERM, a callback): curl's CURLE_ABORTED_BY_CALLBACK.

    An ordinary exception, named apart from trio's ``Cancelled`` (a BaseException).
    """

    exit_code = 42
