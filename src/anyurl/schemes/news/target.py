"""What a news: or nntp: URL asks of which server: :class:`Target`, and the server chosen.

Which server a ``news:`` URL goes to (RFC 1738 3.6: news URLs name none), first match:

1. the host of a ``news://host:port/...`` URL (a later, host-qualified form, accepted);
2. ``FetchOptions.extra["server"]`` (``host``, ``host:port`` or ``[v6]:port``);
3. :attr:`Config.nntp_server` (the config file's ``nntp_server``);
4. the ``NNTPSERVER`` environment variable, the convention of tin, slrn and Lynx;
5. ``localhost``.

anyurl's own settings come before the environment variable shared with every other
newsreader: a user who configured anyurl means that server. ``nntp:`` URLs always name
their host (port 119 unless written).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from anyurl.config import Config
from anyurl.errors import URLError
from anyurl.numbers import ascii_int
from anyurl.protocols.nntp import Command, message_id_argument
from anyurl.registry import default_port
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.news.options import NewsOptions
from anyurl.url import URL

__all__ = ["DEFAULT_PORT", "DEFAULT_SERVER", "Kind", "Target", "news_server"]

DEFAULT_PORT = 119
DEFAULT_SERVER = "localhost"

Kind = Literal["article-id", "article-number", "group", "list"]


@dataclass(frozen=True)
class Target:
    """What a URL asks of which server, decoded and checked."""

    kind: Kind
    host: str
    port: int
    source: str  # where the server came from, for messages
    group: str | None = None
    number: int | None = None
    message_id: str | None = None
    user: str | None = None
    password: str | None = None

    @property
    def hostport(self) -> str:
        """The server as messages and URLs write it: ``[v6]`` bracketed, the port only
        when it is not 119."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORT else f"{host}:{self.port}"

    def main_commands(self) -> list[Command]:
        """The commands after setup; OVER's range is known only after GROUP."""
        if self.kind == "article-id":
            assert self.message_id is not None
            return [Command.of("ARTICLE", message_id_argument(self.message_id))]
        if self.kind == "list":
            return [Command.of("LIST")]
        assert self.group is not None
        if self.kind == "article-number":
            return [Command.of("GROUP", self.group), Command.of("ARTICLE", str(self.number))]
        return [Command.of("GROUP", self.group), Command.of("OVER", "<low>-<high>")]


def _split_server(text: str) -> tuple[str, int | None]:
    """``host``, ``host:port``, ``[v6]``, ``[v6]:port`` or a bare IPv6 address."""
    text = text.strip()
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            raise ValueError(f"unclosed '[' in news server {text!r}")
        rest = text[end + 1 :]
        port = ascii_int(rest[1:], max_digits=5) if rest.startswith(":") else None
        if rest and port is None:
            raise ValueError(f"bad port in news server {text!r}")
        return text[1:end], port
    if text.count(":") == 1:
        host, port_text = text.split(":")
        port = ascii_int(port_text, max_digits=5)
        if port is None:
            raise ValueError(f"bad port in news server {text!r}")
        return host, port
    return text, None


def news_server(
    url: URL,
    options: FetchOptions,
    config: Config,
    environ: Mapping[str, str] | None = None,
) -> tuple[str, int, str]:
    """``(host, port, source)`` for ``url``: the order of the module docstring."""
    default = default_port(url.scheme) or DEFAULT_PORT  # snews: 563
    if url.host:
        return url.connect_host, url.effective_port or default, "the URL"
    env = os.environ if environ is None else environ
    candidates = (
        (options.get(NewsOptions).server, "the server option"),
        (config.nntp_server, "the nntp_server setting"),
        (env.get("NNTPSERVER"), "$NNTPSERVER"),
    )
    for value, source in candidates:
        if value:
            try:
                host, port = _split_server(str(value))
            except ValueError as exc:
                raise URLError(f"{exc} (from {source}) for {url.masked()}", url=url) from None
            if host:
                return host, port or default, source
    return DEFAULT_SERVER, default, "the default"
