"""CONNECT tunnels through an HTTP gateway (RFC 1738 section 4's tunnel mode).

:func:`open_tunnel` asks a gateway to ``CONNECT host:port`` and returns the raw stream;
:func:`tunnel_to` wraps it as a :class:`~anyurl.net.transport.Tunnel`, which a
:class:`~anyurl.net.transport.Dialer` holds so that every connection of a handler goes
through the gateway.
"""

from __future__ import annotations

import h11

from anyurl.errors import ConnectFailed, LoginDenied, ProtocolError
from anyurl.net.transport import Stream, Tunnel, connect_tcp
from anyurl.schemes.base import Trace
from anyurl.schemes.http.routes import USER_AGENT, basic_credentials, mask_header
from anyurl.url import URL

__all__ = ["open_tunnel", "tunnel_to"]


def tunnel_to(gateway: URL, trace: Trace | None = None) -> Tunnel:
    """A :class:`~anyurl.net.transport.Tunnel` through ``gateway``'s CONNECT."""

    async def tunnel(
        host: str, port: int, *, url: URL, connect_timeout: float | None,
        read_timeout: float | None,
    ) -> Stream:
        return await open_tunnel(gateway, host, port, url=url, connect_timeout=connect_timeout,
                                 read_timeout=read_timeout, trace=trace)

    return tunnel


async def open_tunnel(
    gateway: URL,
    host: str,
    port: int,
    *,
    url: URL,
    connect_timeout: float | None,
    read_timeout: float | None,
    trace: Trace | None = None,
) -> Stream:
    """Connect to ``gateway`` and ask it to ``CONNECT host:port``; the stream is then raw.

    A refusal is :class:`ConnectFailed` (407: :class:`LoginDenied`) quoting the status line.
    """
    gw_host = gateway.connect_host
    gw_port = gateway.effective_port or 80
    stream = await connect_tcp(
        gw_host, gw_port, url=url, connect_timeout=connect_timeout,
        read_timeout=read_timeout, tls=gateway.scheme == "https", server_hostname=gw_host,
        what="the gateway connection",
    )
    authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    headers = [("Host", authority), ("User-Agent", USER_AGENT)]
    if gateway.user is not None:
        headers.append(("Proxy-Authorization", basic_credentials(gateway.user, gateway.password)))
    conn = h11.Connection(h11.CLIENT)
    try:
        if trace:
            trace(f"> CONNECT {authority} HTTP/1.1")
            for k, v in headers:
                trace(f"> {k}: {mask_header(k, v)}")
        await stream.send(conn.send(h11.Request(method="CONNECT", target=authority,
                                                headers=headers)) or b"")
        conn.send(h11.EndOfMessage())  # a CONNECT has no body: nothing to send
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise ProtocolError(
                    f"the gateway {gateway.masked()} broke HTTP/1.1 answering CONNECT "
                    f"{authority}: {exc}", url=url) from exc
            if event is h11.NEED_DATA:
                conn.receive_data(await stream.receive(65536))
                continue
            if isinstance(event, h11.InformationalResponse):
                continue
            if isinstance(event, h11.ConnectionClosed):
                raise ConnectFailed(
                    f"the gateway {gateway.masked()} closed the connection when asked to "
                    f"CONNECT {authority} for {url.masked()}", url=url)
            if isinstance(event, h11.Response):
                line = (f"HTTP/{event.http_version.decode()} {event.status_code} "
                        f"{event.reason.decode('latin-1')}").rstrip()
                if trace:
                    trace(f"< {line}")
                if 200 <= event.status_code < 300:
                    break
                if event.status_code == 407:
                    raise LoginDenied(
                        f"the gateway {gateway.masked()} answered '{line}' to CONNECT "
                        f"{authority} for {url.masked()}",
                        url=url, hint="Put the gateway's user and password in its URL.")
                raise ConnectFailed(
                    f"the gateway {gateway.masked()} answered '{line}' to CONNECT "
                    f"{authority} for {url.masked()}", url=url,
                    hint="The gateway may not allow tunnels to that port.")
            raise ProtocolError(  # pragma: no cover
                f"unexpected {type(event).__name__} from the gateway {gateway.masked()}",
                url=url)
    except BaseException:
        await stream.aclose()
        raise
    # Whatever followed the 200's head is the first data of the tunnelled protocol.
    stream.unreceive(conn.trailing_data[0])
    return stream
