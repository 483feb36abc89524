"""The prospero scheme (RFC 1738 section 3.11): ask a Prospero server about an object.

``prospero://host[:port]/<hsoname>[;OBJECT-VERSION=v]`` names an object by its
host-specific name on the Prospero server at ``host:port`` (UDP, default 1525). The URL is
resolved as the spec's section 7 suggests, over ARDP (:mod:`anyurl.protocols.ardp`), one
message per request::

    VERSION 5 anyurl
    AUTHENTICATE '' UNAUTHENTICATED <user>
    GET-OBJECT-INFO #ALL ASCII '<hsoname>' <version>

``FORWARDED`` replies are followed (at most :data:`MAX_FORWARDS` times, possibly to another
host). When the object is a directory (``BASE-TYPE`` holds DIRECTORY) or has no access
method, a second message ``DIRECTORY ASCII '<hsoname>' <version>`` + ``LIST ATTRIBUTES
COMPONENTS`` reads its links.

What comes back is a plain-text report: the object's attributes, its access methods each
with the URL it maps to (AFTP -> ftp:, GOPHER -> gopher:, TELNET -> telnet:, LOCAL/AFS ->
file:, PROSPERO-CONTENTS -> the object's own CONTENTS attribute; FTP, NFS and WAIS
cannot be mapped and say why), and for a
directory its links as prospero: URLs. ``ResourceInfo.extra`` holds the same as data.

With ``ProsperoOptions(follow=True)`` (``--follow``) the first usable access method is
fetched instead, through the resolver's gate like any URL: the handler registered for
its scheme (plug-ins included), the section 6 port policy and the gateways apply to it.
A FORWARDED reply's new host and port pass the same port policy before any datagram
goes there.

Raw (``FetchOptions(raw=True)``, what ``anyurl mirror`` asks for): an object that is no
directory is its file, not the report about it: the first access method that leads to a
file (PROSPERO-CONTENTS, or an ftp:, gopher:, ... URL through the gate; LOCAL/AFS only
from a server on this machine) is fetched, and the report is kept as metadata
(``info.extra["report"]`` and ``info.extra["prospero"]``; the reply lines are in the
trace, which a mirror's WARC records). Without such a method the report is returned.

A server names itself in its LINK and FORWARDED lines, not always by the name it was
reached at (a dirsrv on 127.0.0.1 says ``LOCALHOST``): such a host, the same name in any
case or a loopback name for a loopback address, is replaced by the reached address.

Options (:class:`~anyurl.options.ProsperoOptions`): ``ardp_timeout`` (first
retransmission, default 4 s), ``ardp_retries`` (default 3), ``user`` (the name asserted
in AUTHENTICATE, default ``anonymous``: anyurl does not reveal the local login name).

Errors: ``FAILURE NOT-FOUND ...`` :class:`RemoteFileNotFound` (78); ``NOT-AUTHORIZED`` and
``AUTHENTICATION-REQUIRED`` :class:`RemoteAccessDenied` (9); other FAILUREs
:class:`ServerError` (22); ``ERROR`` and ``VERSION-NOT-SUPPORTED`` :class:`ProtocolError`
(8); connection refused (ARDP option 1) :class:`ConnectFailed` (7); no complete reply after
every retry, or a server that keeps asking to wait for longer than the read timeout in
all (one deadline for its waits, not one per wait), :class:`TransferTimeout` (28).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import os
from collections.abc import Callable
from dataclasses import dataclass

import anyio

from anyurl.config import Config
from anyurl.errors import (
    ConnectFailed,
    ProtocolError,
    RemoteAccessDenied,
    RemoteFileNotFound,
    ServerError,
    TooManyRedirects,
    TransferTimeout,
    URLError,
)
from anyurl.links import FILE, PAGE, checked, retrievable
from anyurl.links import Link as FoundLink
from anyurl.net.transport import DIRECT, Datagrams, Dialer, open_udp
from anyurl.protocols import ardp
from anyurl.protocols.prospero import (
    AccessMethod,
    AccessURL,
    Link,
    ObjectInfo,
    ProsperoCoreError,
    access_method_url,
    build_message,
    collect,
    contents_request,
    contents_text,
    directory_request,
    object_info_request,
    parse_reply,
    quote_token,
    request_preamble,
    split_host_port,
)
from anyurl.resource import Resource, ResourceExtra, ResourceInfo, iterate_bytes
from anyurl.schemes.base import FetchOptions, Gate, Presentation, SchemeHandler, Trace
from anyurl.schemes.prospero.options import ProsperoOptions
from anyurl.schemes.prospero.view import ProsperoPath
from anyurl.url import URL, parse, quote
from anyurl.url.charset import UCHAR_PLAIN, display

__all__ = ["MAX_FORWARDS", "ProsperoHandler"]

DEFAULT_PORT = ardp.DEFAULT_PORT
MAX_FORWARDS = 5
DEFAULT_USER = "anonymous"
_HSONAME_SAFE = UCHAR_PLAIN | frozenset("/")


@dataclass(frozen=True)
class _Target:
    host: str
    port: int
    hsoname: str
    version: str


class ProsperoHandler(SchemeHandler):
    """``prospero:`` URLs: object information over ARDP/UDP, rendered as a report."""

    schemes = ("prospero",)
    options_type = ProsperoOptions

    def __init__(
        self,
        config: Config,
        *,
        warn: Callable[[str], None] | None = None,
        gate: Gate | None = None,
        dialer: Dialer = DIRECT,
    ) -> None:
        super().__init__(config, warn=warn, gate=gate, dialer=dialer)
        self._cids = ardp.ConnectionIDs()

    # -- the URL ----------------------------------------------------------------------------

    def _target(self, url: URL) -> _Target:
        """Host, port, hsoname and version from the URL; refuses what cannot be sent."""
        if url.user is not None or url.password is not None:
            raise URLError(
                f"{url.masked()} has a user or password, which prospero: URLs do not allow",
                url=url,
            )
        if not url.host:
            raise URLError(f"{url.masked()} has no host", url=url)
        parts = url.parts
        assert isinstance(parts, ProsperoPath)
        version = "0"
        for name, value in parts.fields:
            if name.upper() == "OBJECT-VERSION":
                version = value or "0"
            else:
                self.warn(
                    f"{url.masked()}: field {name!r} is not known to anyurl and is not sent"
                )
        try:
            object_info_request(parts.hsoname, version=version)
        except ProsperoCoreError as exc:
            raise URLError(f"{url.masked()}: {exc}", url=url) from None
        return _Target(url.connect_host, url.effective_port or DEFAULT_PORT, parts.hsoname,
                       version)

    def _user(self, options: FetchOptions) -> str:
        return options.get(ProsperoOptions).user or DEFAULT_USER

    def _info_lines(self, target: _Target, options: FetchOptions) -> list[str]:
        return [*request_preamble(self._user(options)),
                object_info_request(target.hsoname, version=target.version)]

    def is_listing(self, info: ResourceInfo) -> bool:
        """A directory's links are a listing."""
        return info.kind == "directory"

    def presentation(self, info: ResourceInfo) -> Presentation:
        """An object's report (its attributes and access methods) is read in the page."""
        if info.kind == "report":
            return Presentation.TEXT
        return super().presentation(info)

    def links(self, info: ResourceInfo, body: bytes) -> list[FoundLink]:
        """A directory's links as prospero: URLs, or an object's access methods.

        Read from ``info.extra["prospero"]``, the data the report (text or JSON) is
        rendered from. A link to the server itself by another of its names (a real
        dirsrv names itself ``LOCALHOST`` when reached at 127.0.0.1) is rewritten to
        the address the server was reached at, so a mirror stays on it (see
        :func:`_is_own_name`). A directory's links are
        ``"page"`` when their target is a DIRECTORY, ``"file"`` otherwise; EXTERNAL
        links and links without a host have no prospero: URL and are left out. An
        object that is no directory (a ``"report"``) points to its contents through
        its access methods: their ftp:, gopher:, wais: ... URLs are ``"file"`` links,
        but not file: (LOCAL, AFS: this machine's files, named by a remote server) nor
        telnet:, and not the methods anyurl cannot map to a URL.
        """
        record = info.extra.get("prospero")
        if not isinstance(record, dict):
            return []
        found: list[FoundLink] = []
        if info.kind == "directory":
            reached = record.get("host")
            for link in record.get("links") or ():
                target = link.get("url") if isinstance(link, dict) else None
                if isinstance(target, str):
                    if isinstance(reached, str):
                        target = _to_reached(target, reached)
                    kind = PAGE if "DIRECTORY" in str(link.get("target", "")).upper() else FILE
                    name = link.get("name")
                    found.append(FoundLink(target, kind, display(name) if name else None))
        elif info.kind == "report":
            for method in record.get("access_methods") or ():
                target = method.get("url") if isinstance(method, dict) else None
                if (isinstance(target, str)
                        and retrievable(target.partition(":")[0].lower())):
                    found.append(FoundLink(target, FILE, method.get("method") or None))
        return checked(found)

    def plan(self, url: URL, options: FetchOptions) -> list[str]:
        target = self._target(url)
        return self._info_lines(target, options)

    # -- one request ------------------------------------------------------------------------

    async def _request(
        self, url: URL, target: _Target, lines: list[str], options: FetchOptions
    ) -> ObjectInfo:
        trace = options.trace
        given = options.get(ProsperoOptions)
        timeout, retries = float(given.ardp_timeout), given.ardp_retries
        message = build_message(lines)
        # A server-requested wait is honoured up to the read timeout (issue 20: one packet
        # with wait=65535 would otherwise hold the transfer for 18 hours).
        read_timeout = self.config.read_timeout
        max_wait = read_timeout if read_timeout and read_timeout > 0 else ardp.MAX_SERVER_WAIT
        client = ardp.ARDPClient(self._cids.next(), message, timeout=timeout, retries=retries,
                                 max_wait=max_wait)
        if trace is not None:
            trace(f"* ARDP to {target.host}:{target.port} (UDP), connection id {client.cid}")
            for line in lines:
                trace(f"> {line}")
        async with await open_udp(
            target.host, target.port, url=url, connect_timeout=self.config.connect_timeout,
            what="the Prospero server",
        ) as datagrams:
            payload = await _drive(client, datagrams, url, target, trace)
        responses = parse_reply(payload)
        if trace is not None:
            for line in payload.decode("utf-8", "replace").splitlines():
                trace(f"< {line}")
        return collect(responses)

    def _check(self, url: URL, target: _Target, info: ObjectInfo) -> None:
        """Map FAILURE / ERROR / VERSION-NOT-SUPPORTED to anyurl errors."""
        where = f"{target.host}:{target.port}"
        if info.version_not_supported is not None:
            raise ProtocolError(
                f"the Prospero server at {where} does not speak version 5 for "
                f"{url.masked()}: VERSION-NOT-SUPPORTED {info.version_not_supported.text}",
                url=url,
            )
        if info.error is not None:
            raise ProtocolError(
                f"the Prospero server at {where} rejected the request for {url.masked()}: "
                f"ERROR {info.error.text}",
                url=url,
            )
        failure = info.failure
        if failure is None:
            return
        said = f"FAILURE {failure.raw}".strip()
        if failure.code.startswith("NOT-FOUND"):
            raise RemoteFileNotFound(
                f"the Prospero server at {where} has no {target.hsoname!r} for "
                f"{url.masked()}: {said}",
                url=url,
            )
        if failure.code in ("NOT-AUTHORIZED", "AUTHENTICATION-REQUIRED",
                            "AUTHENTICATION-DATA"):
            raise RemoteAccessDenied(
                f"the Prospero server at {where} refused {target.hsoname!r} for "
                f"{url.masked()}: {said}",
                url=url,
            )
        raise ServerError(
            f"the Prospero server at {where} failed on {target.hsoname!r} for "
            f"{url.masked()}: {said}",
            url=url,
        )

    # -- open -------------------------------------------------------------------------------

    async def open(self, url: URL, options: FetchOptions) -> Resource:
        target, info, forwards = await self._forwarded(url, options)
        self._check(url, target, info)
        for warning in info.warnings:
            self.warn(f"{url.masked()}: WARNING {warning.code} {warning.text}".rstrip())
        methods = [
            access_method_url(m)
            for m in (
                AccessMethod.from_values(v, default_host=target.host,
                                         default_hsoname=target.hsoname)
                for v in info.values("ACCESS-METHOD")
            )
            if m is not None
        ]
        listing: ObjectInfo | None = None
        if info.is_directory or not methods:
            lines = [*request_preamble(self._user(options)),
                     *directory_request(target.hsoname, version=target.version)]
            listing = await self._request(url, target, lines, options)
            if listing.failure is not None and listing.failure.code == "NOT-A-DIRECTORY":
                listing = None
            elif listing.forwarded is None:
                self._check(url, target, listing)
        extra = _extra(target, forwards, info, methods, listing)
        fetched = await self._object(url, options, target, info, methods, listing, forwards,
                                     extra)
        if fetched is not None:
            return fetched
        if options.format == "json":  # --json: the same data as info.extra["prospero"]
            report = (json.dumps(extra["prospero"], indent=2, ensure_ascii=False)
                      + "\n").encode()
            ctype = "application/json"
        else:
            report = _report(url, target, info, methods, listing, forwards)
            ctype = "text/plain; charset=utf-8"
        return Resource(
            ResourceInfo(
                url=url, size=len(report), total_size=len(report),
                content_type=ctype,
                filename=None,
                kind="directory" if listing is not None else "report",
                extra=extra,
            ),
            iterate_bytes(report),
        )

    async def _forwarded(self, url: URL, options: FetchOptions,
                         ) -> tuple[_Target, ObjectInfo, list[str]]:
        """The object's attributes from the server that has it: FORWARDED replies are
        followed (each new address through the gate's port policy, at most
        :data:`MAX_FORWARDS`); the addresses forwarded to are returned too."""
        target = self._target(url)
        trace = options.trace
        forwards: list[str] = []
        while True:
            info = await self._request(url, target, self._info_lines(target, options), options)
            if info.forwarded is None:
                return target, info, forwards
            fwd = info.forwarded
            if len(forwards) >= MAX_FORWARDS:
                raise TooManyRedirects(
                    f"more than {MAX_FORWARDS} FORWARDED replies for {url.masked()} "
                    f"(last: {fwd.raw})",
                    url=url,
                )
            host, port = split_host_port(fwd.host)
            if not host or _is_own_name(host, target.host):
                host = target.host  # the server naming itself: where it was reached
            target = _Target(host, port or DEFAULT_PORT, fwd.hsoname, fwd.version or "0")
            forwards.append(_prospero_url(target))
            self.gate.admit(forwards[-1])  # the port policy, before a datagram goes there
            if trace is not None:
                trace(f"* forwarded to {forwards[-1]}")

    async def _object(self, url: URL, options: FetchOptions, target: _Target,
                      info: ObjectInfo, methods: list[AccessURL],
                      listing: ObjectInfo | None, forwards: list[str],
                      extra: ResourceExtra) -> Resource | None:
        """The object itself through one of its access methods, when asked for (the
        ``follow`` option), or when a mirror (raw) wants its bytes; else None: the
        report about it is the resource."""
        trace = options.trace
        follow = options.get(ProsperoOptions).follow
        if options.raw and not follow and listing is None:
            # A mirror (raw) wants the object's bytes, not the report about it: the
            # report is kept as metadata (extra["report"], and the dialogue).
            chosen = _first_usable(methods, local=_is_loopback(target.host),
                                   usable=lambda scheme: scheme == "file" or retrievable(scheme))
            if chosen is None:
                return None
            extra["report"] = _report(url, target, info, methods, listing,
                                      forwards).decode("utf-8", "surrogateescape")
            how = "raw: fetching the object through"
        elif follow:
            chosen = _first_usable(methods)
            if chosen is None:
                raise RemoteFileNotFound(
                    f"none of the access methods of {url.masked()} can be followed: "
                    + ("; ".join(f"{m.method.method}: {m.reason or 'not here'}"
                                 for m in methods) or "it has none"),
                    url=url,
                    hint="Run without follow to see the report.",
                )
            how = "following"
        else:
            return None
        if chosen.contents:
            return await self._contents(url, target, chosen, options, extra)
        assert chosen.url is not None
        if trace is not None:
            trace(f"* {how} {chosen.method.method} -> {chosen.url}")
        return await self._follow(chosen.url, options, extra)

    async def _contents(self, url: URL, target: _Target, chosen: AccessURL,
                        options: FetchOptions, extra: ResourceExtra) -> Resource:
        """PROSPERO-CONTENTS: the object's contents, from its server's CONTENTS attribute."""
        method = chosen.method
        host, port = split_host_port(method.host)
        host = host or target.host
        if port is None:  # an empty host field ('') means the object's own server
            port = target.port if host == target.host else DEFAULT_PORT
        where = _Target(host, port, method.hsoname or target.hsoname, target.version)
        self.gate.admit(_prospero_url(where))  # the port policy, as for any host
        if options.trace is not None:
            options.trace(f"* following PROSPERO-CONTENTS -> {_prospero_url(where)}")
        lines = [*request_preamble(self._user(options)),
                 contents_request(where.hsoname, version=where.version)]
        info = await self._request(url, where, lines, options)
        self._check(url, where, info)
        text = contents_text(info)
        if text is None:
            raise ProtocolError(
                f"the Prospero server of {url.masked()} answered the CONTENTS request "
                "without a CONTENTS attribute", url=url)
        body = text.encode("utf-8", "surrogateescape")
        return Resource(
            ResourceInfo(url=url, size=len(body), total_size=len(body),
                         content_type="text/plain", filename=None, kind="file", extra=extra),
            iterate_bytes(body))

    async def _follow(
        self, target_url: str, options: FetchOptions, extra: ResourceExtra
    ) -> Resource:
        """Open an access method's URL through the gate (never a handler of our own)."""
        inner_options = dataclasses.replace(
            options, offset=0, if_range=None,
        ).with_scheme(dataclasses.replace(options.get(ProsperoOptions), follow=False))
        inner = await self.gate.open_resource(target_url, inner_options)
        inner.info.extra.update(extra)
        return inner

    async def aclose(self) -> None:
        return None


async def _drive(
    client: ardp.ARDPClient, datagrams: Datagrams, url: URL, target: _Target,
    trace: Trace | None,
) -> bytes:
    """Run one ARDP exchange over ``datagrams``: the client's events, its two clocks (the
    retransmission timer, and the deadline the server's waits share), the socket."""
    client.start()
    deadline: float | None = None
    waits_end: float | None = None
    while True:
        event = client.next_event()
        if event is ardp.NEED_DATA:
            now = anyio.current_time()
            if waits_end is not None and now >= waits_end:
                waits_end = None
                client.wait_deadline_passed()
                continue
            if deadline is not None and now >= deadline:
                deadline = None
                client.timer_expired()
                continue
            nearest = min((t for t in (deadline, waits_end) if t is not None), default=None)
            got = await datagrams.receive(None if nearest is None else nearest - now)
            if got is not None:
                client.receive_datagram(got[0])
            continue
        if isinstance(event, ardp.Transmit):
            if trace is not None and event.reason == "retransmission":
                trace(f"* ARDP: no complete reply, sending the request again "
                      f"(attempt {client.attempts}, next wait {client.timeout:g} s)")
            for datagram in event.datagrams:
                await datagrams.send(datagram)
        elif isinstance(event, ardp.SetTimer):
            deadline = anyio.current_time() + event.seconds
        elif isinstance(event, ardp.WaitDeadline):
            waits_end = (None if event.seconds is None
                         else anyio.current_time() + event.seconds)
        elif isinstance(event, ardp.MessageReceived):
            if trace is not None and event.packets > 1:
                trace(f"* ARDP: reply reassembled from {event.packets} packets")
            return event.payload
        elif isinstance(event, ardp.Refused):
            raise ConnectFailed(
                f"the Prospero server at {target.host}:{target.port} refused the "
                f"connection for {url.masked()}",
                url=url,
            )
        elif isinstance(event, ardp.Redirected):
            if trace is not None:
                trace(f"* ARDP: redirected to {event.host}:{event.port}")
            datagrams.retarget(event.host, event.port)
        elif isinstance(event, ardp.GaveUp):
            raise _gave_up(event, client, url, target)
        elif isinstance(event, ardp.PacketIgnored):
            if trace is not None:
                trace(f"* ARDP: ignored a datagram: {event.reason}")
        elif isinstance(event, ardp.WaitCapped):
            if trace is not None:
                trace(f"* ARDP: the server asks to wait {event.asked} s; waiting at most "
                      f"{event.used:g} s (the read timeout)")
        elif isinstance(event, ardp.QueueStatus) and trace is not None:
            trace(f"* ARDP: queued (position {event.position}, {event.seconds} s)")


def _gave_up(event: ardp.GaveUp, client: ardp.ARDPClient, url: URL,
             target: _Target) -> TransferTimeout:
    """What happened when no complete reply came: silence, a reply cut short, or packets
    that came with another connection id."""
    where = f"the Prospero server at {target.host}:{target.port} (UDP)"
    of = f" of {event.total_packets}" if event.total_packets else ""
    if event.waited is not None:
        return TransferTimeout(
            f"{where} kept asking to wait and sent no reply to {url.masked()} within "
            f"{event.waited:g} s (the read timeout, shared by all its waits); "
            f"{event.attempts} attempts",
            url=url,
            hint="The server is busy: try again later.",
        )
    if event.unexpected_packets:
        shown = (f"{event.unexpected_cid:#06x}" if event.unexpected_cid is not None
                 else "another")
        return TransferTimeout(
            f"incomplete reply from {where} for {url.masked()}: after "
            f"{event.unexpected_after}{of} reply packets arrived, {event.unexpected_packets} "
            f"came with an unexpected connection id ({shown}, ours is {client.cid:#06x}) and "
            f"were dropped; {event.received_packets}{of} arrived in all, "
            f"{event.attempts} attempts",
            url=url,
            hint="The server answers with another connection id: a server bug, or "
            "another client's reply. Try again; -v shows the packets.",
        )
    if event.received_packets:
        return TransferTimeout(
            f"incomplete reply from {where} for {url.masked()}: {event.received_packets}"
            f"{of} reply packets arrived, then nothing after {event.attempts} attempts",
            url=url,
            hint="The server stopped sending: try again, or raise ardp_timeout.",
        )
    return TransferTimeout(
        f"no reply from {where} for {url.masked()} after {event.attempts} attempts",
        url=url,
        hint="Is a Prospero server listening on that UDP port? UDP has no "
        "'connection refused', so silence is all a client sees.",
    )


def _prospero_url(target: _Target) -> str:
    host = target.host if ":" not in target.host else f"[{target.host}]"
    port = "" if target.port == DEFAULT_PORT else f":{target.port}"
    version = "" if target.version in ("", "0") else f";OBJECT-VERSION={quote(target.version)}"
    return f"prospero://{host}{port}/{quote(target.hsoname, _HSONAME_SAFE)}{version}"


def _link_url(link: Link, reached: str) -> str | None:
    """The prospero: URL of a LINK line; the server's own names become ``reached``."""
    if link.target == "EXTERNAL" or link.host == "NULL":
        return None
    host, port = split_host_port(link.host)
    if _is_own_name(host, reached):
        host = reached
    return _prospero_url(_Target(host.lower(), port or DEFAULT_PORT, link.hsoname,
                                 link.version))


_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def _is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or name (this machine)."""
    name = host.strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _is_own_name(host: str, reached: str) -> bool:
    """Whether ``host``, in a reply of the server reached at ``reached``, is that server.

    The same name (any case: dirsrv writes host names in capitals), or, for a server
    reached at a loopback address, a loopback name or address (``LOCALHOST``): what a
    Prospero server on this machine calls itself. Another name is another server: no
    DNS is asked, so a server reached by address that names itself by a public name is
    not recognised.
    """
    if host.lower() == reached.lower():
        return True
    return _is_loopback(reached) and _is_loopback(host)


def _to_reached(link_url: str, reached: str) -> str:
    """``link_url`` with its host replaced by ``reached`` when it names that server."""
    try:
        host = parse(link_url).host or ""
    except URLError:
        return link_url
    if not host or host.lower() == reached.lower() or not _is_own_name(host, reached):
        return link_url
    scheme, sep, rest = link_url.partition("://")
    netloc, slash, path = rest.partition("/")
    colon, port = "", ""
    if not netloc.endswith("]") and ":" in netloc:
        _, colon, port = netloc.rpartition(":")
    shown = f"[{reached}]" if ":" in reached else reached
    return f"{scheme}{sep}{shown}{colon}{port}{slash}{path}"


def _first_usable(methods: list[AccessURL], *, local: bool = True,
                  usable: Callable[[str], bool] | None = None) -> AccessURL | None:
    """The first method anyurl can fetch; LOCAL/AFS (file:) only when ``local`` allows,
    and only URLs of a scheme ``usable`` accepts when given (a mirror fetches files, not
    telnet)."""
    for m in methods:
        if m.contents:
            return m
        if m.url is None:
            continue
        if usable is not None and not usable(m.url.partition(":")[0].lower()):
            continue
        if m.local and not local:
            continue
        if m.local:
            path = getattr(parse(m.url).parts, "path", None)
            if not isinstance(path, str) or not os.path.exists(path):
                continue
        return m
    return None


def _report(
    url: URL, target: _Target, info: ObjectInfo, methods: list[AccessURL],
    listing: ObjectInfo | None, forwards: list[str],
) -> bytes:
    out = [f"Prospero object {quote_token(target.hsoname, always=True)} "
           f"(version {target.version}) on {target.host}:{target.port}"]
    for fwd in forwards:
        out.append(f"  forwarded to {fwd}")
    if info.attributes:
        out.append("")
        out.append("Attributes:")
        for a in info.attributes:
            if a.name == "ACCESS-METHOD":
                continue
            shown = " ".join(quote_token(v) for v in a.values)
            indent = "  " + "  " * a.depth
            out.append(f"{indent}{a.name}: {shown}")
    if methods:
        out.append("")
        out.append("Access methods:")
        for m in methods:
            out.append(f"  {m.method.display()}")
            if m.url is not None:
                note = " (if visible on this machine)" if m.local else ""
                out.append(f"    -> {m.url}{note}")
            else:
                out.append(f"    (no URL: {m.reason})")
    if listing is not None:
        out.append("")
        out.append(f"Links ({len(listing.links)}):")
        for link in listing.links:
            where = _link_url(link, target.host) or "(external)"
            out.append(f"  {link.name}  {link.target}  {where}")
        if listing.unresolved:
            out.append(f"  unresolved: {' '.join(listing.unresolved)}")
    elif not methods and not info.attributes:
        out.append("")
        out.append("The server returned no attributes for this object (NONE-FOUND).")
    return ("\n".join(out) + "\n").encode("utf-8", "surrogateescape")


def _extra(target: _Target, forwards: list[str], info: ObjectInfo,
           methods: list[AccessURL], listing: ObjectInfo | None) -> ResourceExtra:
    """What ``info.extra["prospero"]`` says of an object: where it was found (after the
    forwards), its attributes, its access methods and, for a directory, its links."""
    return {
        "prospero": {
            "host": target.host,
            "port": target.port,
            "hsoname": target.hsoname,
            "version": target.version,
            "forwarded": forwards,
            "attributes": [
                {"name": a.name, "applies_to": a.applies_to, "type": a.value_type,
                 "values": list(a.values)}
                for a in info.attributes
            ],
            "access_methods": [
                {"method": m.method.display(), "url": m.url, "reason": m.reason}
                for m in methods
            ],
            "links": [
                {"name": link.name, "target": link.target, "host": link.host,
                 "url": _link_url(link, target.host)}
                for link in (listing.links if listing else ())
            ],
        }
    }
