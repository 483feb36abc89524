"""The news and nntp schemes' descriptors (RFC 1738 3.6, 3.7): port 119, one handler;
and the same over TLS from the first byte (RFC 4642's port 563): ``nntps://`` and Lynx's
``snews:``, as https is http's."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from anyurl.registry.spec import Crawl, DemoCase, DemoServer, SchemeSpec
from anyurl.schemes.news.flags import FLAGS
from anyurl.schemes.news.view import NewsPart, NNTPPath, news_part, nntp_path
from anyurl.url.model import URL

__all__ = ["SPEC", "SPECS", "TLS_SPEC"]


def _view(url: URL) -> NewsPart | NNTPPath:
    if url.scheme in ("nntp", "nntps"):
        return nntp_path(url.path)
    if url.host is not None:  # news://host/group, a later form accepted leniently
        return news_part(url.path or "")
    return news_part(url.opaque or "")


def _local_name(url: URL) -> str:
    parts = url.parts
    if isinstance(parts, NNTPPath):
        if parts.article:
            return f"{parts.group or 'news'}.{parts.article}"
        return parts.group or ""
    if isinstance(parts, NewsPart):
        return (parts.message_id or parts.group or "").strip("<>").replace("@", "_at_")
    return ""


def _path_key(url: URL) -> str:
    parts = url.parts
    if isinstance(parts, NNTPPath | NewsPart) and parts.group:
        return "/" + parts.group + "/"
    if isinstance(parts, NNTPPath):
        return "//"
    return "/" if isinstance(parts, NewsPart) else "/" + (url.path or "")


def _by_message_id(url: URL) -> bool:
    # An article by its Message-ID names no server: it is in scope when found in a
    # crawl of news (its group's listing named it).
    parts = url.parts
    return isinstance(parts, NewsPart) and bool(parts.message_id)


def _tree_path(url: URL) -> tuple[list[str], bool]:
    parts = url.parts
    if isinstance(parts, NNTPPath):
        article = str(parts.article) if parts.article else ""
        return [parts.group or "", article], not article
    if isinstance(parts, NewsPart) and parts.message_id:
        return ["articles", parts.message_id.strip("<>").replace("@", "_at_")], False
    return [getattr(parts, "group", None) or ""], True


_SERVER = DemoServer("anyurl.schemes.news.loopback")

def _stored_kind(url: URL, content_type: str, dialogue: Sequence[str],
                 ) -> tuple[str, dict[str, Any]]:
    """A stored article, or a group's listing (its group and server), by the URL."""
    parts = url.parts
    if not isinstance(parts, NNTPPath | NewsPart):
        return "file", {}
    if (parts.article if isinstance(parts, NNTPPath) else parts.message_id) is not None:
        return "article", {}
    if not parts.group:
        return "file", {}
    extra: dict[str, Any] = {"group": parts.group}
    if url.host:
        extra["server"] = f"{url.host}:{url.effective_port}"
    return "directory", extra


SPEC = SchemeSpec(
    names=("news", "nntp"),
    flags=FLAGS,
    handler="anyurl.schemes.news.handler:NewsHandler",
    summary="Usenet articles and groups over NNTP (RFC 3977)",
    example="news:comp.infosystems.www",
    default_port=119,
    view=_view,
    view_module="anyurl.schemes.news.view",
    cli_hints={"nntp_plain_auth": "Add --nntp-plain-auth to send the login in clear all the "
                                  "same, or use nntps:// (TLS from the first byte, port 563).",
               "nntp_tls": "The server takes logins only inside TLS: add --ssl-reqd "
                           "(STARTTLS) or use nntps:// (TLS from the first byte, port 563)."},
    options_module="anyurl.schemes.news.options",
    local_name=_local_name,
    login=True,
    proxied=True,
    stored_kind=_stored_kind,
    crawl=Crawl(index_name=".group", called="a newsgroup", path_key=_path_key,
                start_prefix=_path_key,
                anywhere=_by_message_id, tree_path=_tree_path),
    demo=(
        DemoCase("news:article2@anyurl.test", "ARTICLE <article2@anyurl.test>", _SERVER,
                 config=lambda port: {"nntp_server": f"127.0.0.1:{port}"}),
        DemoCase("nntp://127.0.0.1:{port}/anyurl.test/2",
                 "GROUP anyurl.test, ARTICLE 2 (a dot-stuffed body)", _SERVER),
    ),
)
#: news and nntp over TLS (RFC 4642's port 563): Lynx's snews: and nntps://.
TLS_SPEC = dataclasses.replace(SPEC, names=("snews", "nntps"), default_port=563, demo=(),
                               plain_names={"snews": "news", "nntps": "nntp"},
                               summary="Usenet articles and groups over NNTP in TLS")
SPECS = (SPEC, TLS_SPEC)
