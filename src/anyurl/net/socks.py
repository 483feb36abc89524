"""SOCKS proxies (SOCKS4, SOCKS4a, SOCKS5 of RFC 1928 with RFC 1929's login).

A SOCKS proxy relays raw TCP, so unlike an HTTP gateway (RFC 1738 section 4) it
carries every TCP scheme as the scheme's own handler speaks it: the handler gets a
:class:`~anyurl.net.transport.Dialer` holding a :class:`SocksTunnel`, and every
connection it opens (an FTP passive data connection too) is one more ``CONNECT``
through the proxy; a TLS handshake (https) runs over the tunnel, end to end.

The wire format is socksio's (sans-I/O, as httpx uses it): its requests are what is
sent and its reply parsers read what comes back. What socksio leaves to its caller is
done here, by :class:`Handshake`: how many bytes make each reply (a proxy may send one
at a time, and the bytes after the last reply belong to the tunnelled protocol, so
none may be read past it), the version byte of every reply (socksio does not check
the method reply's), and which answers are a refusal and which a broken proxy.

``socks5h://`` and ``socks4a://`` hand the target's *name* to the proxy, which resolves
it; ``socks5://`` and ``socks4://`` resolve it here and send an address (curl's
meanings). A refusal or a broken handshake is :class:`~anyurl.errors.ProxyError`
(curl's 97); a proxy that cannot be reached is ``ConnectFailed`` (7), or
``ProxyNotResolved`` (5) for a proxy name that does not resolve. Messages name the
proxy with its password masked.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass, field

import anyio
from socksio import ProtocolError as SocksioProtocolError
from socksio import socks4, socks5

from anyurl.errors import (
    ConnectFailed,
    ConnectionLost,
    HostNotResolved,
    ProxyError,
    ProxyNotResolved,
    TransferTimeout,
    URLError,
)
from anyurl.net.transport import Stream, connect_tcp
from anyurl.url import URL, parse

__all__ = [
    "DEFAULT_SOCKS_PORT",
    "SOCKS_SCHEMES",
    "Handshake",
    "SocksProxy",
    "SocksRefused",
    "SocksReplyError",
    "SocksTunnel",
    "parse_socks",
]

#: The proxy URL schemes, as curl names them.
SOCKS_SCHEMES = ("socks5h", "socks5", "socks4a", "socks4")
#: The port of a proxy URL without one (curl's, the IANA port of SOCKS).
DEFAULT_SOCKS_PORT = 1080

_SOCKS5_REPLIES = {
    1: "general SOCKS server failure",
    2: "connection not allowed by ruleset",
    3: "network unreachable",
    4: "host unreachable",
    5: "connection refused",
    6: "TTL expired",
    7: "command not supported",
    8: "address type not supported",
}
_SOCKS4_REPLIES = {
    0x5B: "request rejected or failed",
    0x5C: "the proxy could not reach the client's identd",
    0x5D: "the client's identd reported another user id",
}


@dataclass(frozen=True)
class SocksProxy:
    """Where a SOCKS proxy is and how it is spoken to (``scheme`` is one of
    :data:`SOCKS_SCHEMES`); ``user`` and ``password`` come from its URL."""

    scheme: str
    host: str
    port: int = DEFAULT_SOCKS_PORT
    user: str | None = None
    password: str | None = field(default=None, repr=False)

    @property
    def remote_dns(self) -> bool:
        """Whether the proxy resolves the target's name (socks5h, socks4a)."""
        return self.scheme in ("socks5h", "socks4a")

    @property
    def version(self) -> int:
        """4 or 5: which handshake the proxy speaks."""
        return 5 if self.scheme.startswith("socks5") else 4

    def masked(self) -> str:
        """The proxy as a URL, its password masked: what messages show."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        login = ""
        if self.user is not None:
            login = self.user + (":****" if self.password is not None else "") + "@"
        return f"{self.scheme}://{login}{host}:{self.port}"


def parse_socks(text: str | URL) -> SocksProxy:
    """A SOCKS proxy URL (``socks5h://user:pw@host:1080``) read; the user and password
    are %-decoded, the port defaults to 1080. A malformed one is a ``URLError`` (3)."""
    try:
        url = text if isinstance(text, URL) else parse(text.strip())
    except URLError as exc:
        raise URLError(f"the SOCKS proxy {text!s} is not a URL: {exc}",
                       hint="Write it as socks5h://host:1080.") from exc
    if url.scheme not in SOCKS_SCHEMES or not url.host:
        raise URLError(f"the proxy {url.masked()} is not a SOCKS proxy URL",
                       hint="Write it as socks5h://host:1080 (or socks5, socks4a, socks4).")
    return SocksProxy(url.scheme, url.connect_host, url.port or DEFAULT_SOCKS_PORT,
                      url.user, url.password)


class SocksReplyError(ProxyError):
    """The proxy broke the SOCKS protocol: a wrong version byte, a reply that does not
    parse, a method it was not offered, or a close in the middle of the handshake."""


class SocksRefused(ProxyError):
    """The proxy answered in good order and said no: its login, or the target."""


class Handshake:
    """The client's side of one SOCKS handshake, without I/O (unit-tested byte by byte).

    Send :meth:`data_to_send`, then feed the proxy's bytes to :meth:`receive`, never
    more than :attr:`wanted` at a time (so that no byte of the tunnelled protocol is
    taken), until :attr:`done`. Errors are :class:`SocksRefused` or
    :class:`SocksReplyError`, their messages naming the proxy (masked) and the target.
    ``address`` is the target as sent: a name (socks5h, socks4a) or an address;
    ``url``, the URL the tunnel is for, is named in messages.
    """

    def __init__(self, proxy: SocksProxy, address: str, port: int, *, url: URL | None = None):
        self.proxy = proxy
        self.target = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
        if url is not None:  # messages say what the tunnel was for
            self.target += f" for {url.masked()}"
        self._address = (address, port)
        self._out = b""
        self._buffer = b""
        self._need = 0
        self._step = ""
        #: The address and port the proxy says it connected from (its BND fields).
        self.bound: tuple[str, int] | None = None
        if proxy.version == 5:
            self._socks5 = socks5.SOCKS5Connection()
            methods = [socks5.SOCKS5AuthMethod.NO_AUTH_REQUIRED]
            if proxy.user is not None:
                methods.append(socks5.SOCKS5AuthMethod.USERNAME_PASSWORD)
            self._methods = methods
            self._socks5.send(socks5.SOCKS5AuthMethodsRequest(methods))
            self._expect("method", 2)
        else:
            self._start_socks4()

    @property
    def done(self) -> bool:
        """Whether the tunnel is open: the bytes that follow are the target's."""
        return self._step == "done"

    @property
    def wanted(self) -> int:
        """Bytes still needed to finish the reply being read (0 when done)."""
        return self._need - len(self._buffer)

    def data_to_send(self) -> bytes:
        """What to send to the proxy now (empty when nothing)."""
        if self.proxy.version == 5:
            self._out += self._socks5.data_to_send()
        out, self._out = self._out, b""
        return out

    def receive(self, data: bytes) -> None:
        """Take the next bytes of the proxy's reply (``b""``: the proxy closed)."""
        if not data:
            raise self._broken("closed the connection in the middle of the handshake")
        if len(data) > self.wanted:
            raise ValueError("Handshake.receive: more bytes than wanted")
        self._buffer += data
        if self.wanted == 0:
            reply, self._buffer = self._buffer, b""
            getattr(self, "_on_" + self._step)(reply)

    # -- the steps -----------------------------------------------------------------

    def _expect(self, step: str, size: int) -> None:
        self._step, self._need = step, size

    def _broken(self, what: str) -> SocksReplyError:
        return SocksReplyError(
            f"the SOCKS proxy {self.proxy.masked()} {what} (asked to connect to "
            f"{self.target})", hint="Is it a SOCKS" f"{self.proxy.version} proxy?")

    def _refused(self, what: str, hint: str | None = None) -> SocksRefused:
        return SocksRefused(
            f"the SOCKS proxy {self.proxy.masked()} refused to connect to {self.target}: "
            f"{what}", hint=hint)

    def _start_socks4(self) -> None:
        host, port = self._address
        user = (self.proxy.user or "").encode("utf-8")
        try:
            if self.proxy.remote_dns and not _is_address(host):
                request: socks4.SOCKS4Request | socks4.SOCKS4ARequest = (
                    socks4.SOCKS4ARequest.from_address(socks4.SOCKS4Command.CONNECT,
                                                       (host, port), user_id=user))
            else:
                request = socks4.SOCKS4Request.from_address(socks4.SOCKS4Command.CONNECT,
                                                            (host, port), user_id=user)
            self._out = request.dumps(user_id=user) if user else _socks4_anonymous(request)
        except Exception as exc:  # socksio refuses an IPv6 target of SOCKS4
            raise self._refused(f"SOCKS{self.proxy.version} cannot carry it ({exc})",
                                hint="Use socks5h:// for IPv6 targets.") from None
        self._expect("socks4", 8)

    def _on_socks4(self, reply: bytes) -> None:
        try:
            parsed = socks4.SOCKS4Reply.loads(reply)
        except SocksioProtocolError:
            raise self._broken(f"sent a malformed SOCKS4 reply {reply.hex(' ')}") from None
        code = reply[1]
        if parsed.reply_code != socks4.SOCKS4ReplyCode.REQUEST_GRANTED:
            raise self._refused(_SOCKS4_REPLIES.get(code, f"code {code:#04x}"))
        self.bound = (parsed.addr or "", parsed.port)
        self._expect("done", 0)

    def _on_method(self, reply: bytes) -> None:
        if reply[0] != 5:
            raise self._broken(f"answered with version byte {reply[0]} (SOCKS5 is 5)")
        if reply[1] == 0xFF:
            if self.proxy.user is None:
                raise self._refused("it wants a login",
                                    hint="Put the user and password in the proxy URL: "
                                    "socks5h://user:password@host:port.")
            raise self._refused("it accepts neither no login nor a user and password")
        try:
            method = self._socks5.receive_data(reply)
        except SocksioProtocolError:
            method = None
        if not isinstance(method, socks5.SOCKS5AuthReply) or method.method not in self._methods:
            raise self._broken(f"chose the authentication method {reply[1]}, which was "
                               "not offered")
        if method.method == socks5.SOCKS5AuthMethod.USERNAME_PASSWORD:
            user = (self.proxy.user or "").encode("utf-8")
            password = (self.proxy.password or "").encode("utf-8")
            if len(user) > 255 or len(password) > 255:
                raise self._refused("the user name or password is longer than 255 bytes")
            self._socks5.send(socks5.SOCKS5UsernamePasswordRequest(user, password))
            self._expect("login", 2)
            return
        self._send_connect()

    def _on_login(self, reply: bytes) -> None:
        if reply[0] != 1:
            raise self._broken(f"answered the login with version byte {reply[0]} "
                               "(RFC 1929's is 1)")
        if reply[1] != 0:
            raise self._refused(f"the login of {self.proxy.user!r} was refused",
                                hint="Check the user and password of the proxy URL.")
        self._socks5.receive_data(reply)
        self._send_connect()

    def _send_connect(self) -> None:
        self._socks5.send(socks5.SOCKS5CommandRequest.from_address(
            socks5.SOCKS5Command.CONNECT, self._address))
        self._expect("head", 4)  # VER REP RSV ATYP

    def _on_head(self, head: bytes) -> None:
        if head[0] != 5:
            raise self._broken(f"answered CONNECT with version byte {head[0]} (SOCKS5 is 5)")
        if head[1] != 0:
            raise self._refused(_SOCKS5_REPLIES.get(head[1], f"reply code {head[1]}"))
        if head[2] != 0 or head[3] not in (1, 3, 4):
            raise self._broken(f"claimed success in a malformed reply {head.hex(' ')}")
        self._head = head
        if head[3] == 3:  # a name: its length byte first
            self._expect("name_length", 1)
        else:
            self._expect("bound", (4 if head[3] == 1 else 16) + 2)

    def _on_name_length(self, length: bytes) -> None:
        self._expect("bound", length[0] + 2)

    def _on_bound(self, rest: bytes) -> None:
        # socksio reads a name without its length byte, which is not kept here.
        reply = self._head + rest
        try:
            parsed = self._socks5.receive_data(reply)
        except (SocksioProtocolError, ValueError):
            raise self._broken(f"claimed success in a malformed reply {reply.hex(' ')}"
                               ) from None
        assert isinstance(parsed, socks5.SOCKS5Reply)
        self.bound = (parsed.addr, parsed.port)
        self._expect("done", 0)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _socks4_anonymous(request: socks4.SOCKS4Request | socks4.SOCKS4ARequest) -> bytes:
    """A SOCKS4 request with an empty user id: socksio refuses to pack one (it wants
    a user id), so its packing with a placeholder has the placeholder taken out."""
    packed = request.dumps(user_id=b"\x01")
    return packed[:8] + packed[9:]


class SocksTunnel:
    """A :class:`~anyurl.net.transport.Tunnel` through one SOCKS proxy: each call
    connects to the proxy and has it connect to ``host:port``.

    ``family`` (``-4``/``-6``) applies to the connection to the proxy and to a target
    name resolved here (socks5, socks4: SOCKS4 carries IPv4 only).
    """

    def __init__(self, proxy: SocksProxy, family: int = 0):
        self.proxy = proxy
        self.family = family

    async def __call__(
        self, host: str, port: int, *, url: URL, connect_timeout: float | None,
        read_timeout: float | None,
    ) -> Stream:
        proxy = self.proxy
        try:
            stream = await connect_tcp(proxy.host, proxy.port, url=url,
                                       connect_timeout=connect_timeout,
                                       read_timeout=read_timeout, what="the SOCKS proxy",
                                       family=self.family)
        except HostNotResolved as exc:
            raise ProxyNotResolved(
                f"could not resolve the SOCKS proxy {proxy.masked()} for {url.masked()}",
                url=url, hint="Check the proxy's host name.") from exc
        except ConnectFailed as exc:
            raise ConnectFailed(
                f"could not connect to the SOCKS proxy {proxy.masked()} for "
                f"{url.masked()}: {exc.message.rpartition(': ')[2]}", url=url,
                hint="Is the proxy running and listening on that port?") from exc
        try:
            with anyio.fail_after(connect_timeout):
                address = host if proxy.remote_dns else await self._resolve(host, port, url)
                handshake = Handshake(proxy, address, port, url=url)
                await _drive(handshake, stream)
        except TimeoutError:
            await stream.aclose()
            raise TransferTimeout(
                f"the SOCKS proxy {proxy.masked()} did not open a tunnel to {host}:{port} "
                f"for {url.masked()} within {connect_timeout or 0:g} seconds (the connect "
                "timeout)", url=url, remedy=("connect_timeout",)) from None
        except BaseException:
            await stream.aclose()
            raise
        # FTP's passive data connection goes to "the control connection's peer": the
        # target, not the proxy.
        stream.tunnelled_to(address, port)
        return stream

    async def _resolve(self, host: str, port: int, url: URL) -> str:
        """``host``'s first address, resolved here (socks5, socks4); an address as is."""
        name = host.strip("[]")
        if _is_address(name):
            return name
        family = socket.AF_INET if self.proxy.version == 4 else self.family
        try:
            infos = await anyio.getaddrinfo(name, port, family=family,
                                            type=socket.SOCK_STREAM)
        except OSError as exc:
            raise HostNotResolved(
                f"could not resolve host {name!r} for {url.masked()} (resolved here for "
                f"the SOCKS proxy {self.proxy.masked()}): {exc.strerror or exc}", url=url,
                hint="socks5h:// and socks4a:// let the proxy resolve it.") from exc
        return str(infos[0][4][0])


async def _drive(handshake: Handshake, stream: Stream) -> None:
    """Run ``handshake`` over ``stream``, reading no byte past the proxy's last reply."""
    while not handshake.done:
        out = handshake.data_to_send()
        if out:
            await stream.send(out)
        try:
            data = await stream.receive(handshake.wanted)
        except ConnectionLost as exc:
            raise SocksReplyError(
                f"the SOCKS proxy {handshake.proxy.masked()} broke the connection in the "
                f"middle of the handshake (asked to connect to {handshake.target}): "
                f"{exc.message.rpartition(': ')[2]}") from exc
        handshake.receive(data)
