"""gopher: against pygopherd (Gopher+), gophernicus (gopher0) and the loopback Gopher+ server.

The real servers come from the `peers` fixture (tests/peers); the loopback server runs as the
`gopherplus` peer and, for tests that look at the exact bytes the client sent, in-process on
the test's own event loop. Every async test runs on asyncio and trio.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
from typing import Any

import anyio
import anyio.abc
import pytest

from anyurl.config import Config
from anyurl.errors import (
    AnyURLError,
    PartialTransfer,
    ProtocolError,
    RemoteFileNotFound,
    ServerError,
    TransferTimeout,
    URLError,
)
from anyurl.options import GopherOptions
from anyurl.protocols.gopher import AskForm, ItemAttributes, MenuItem
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.gopher.loopback import BINARY, HELLO, HELLO_DE, STREAM, serve_gopherplus

pytestmark = [pytest.mark.integration, pytest.mark.anyio]

ANSWERS = {"Your name?": "Ann", "Password": "s3cret", "Comments": ["first", ".second"],
           "Subscribe": True, "Scheme": "ftp"}


async def fetch(url: str, *, config: Config | None = None, trace: list[str] | None = None,
                **kw: Any) -> tuple[bytes, ResourceInfo]:
    options = FetchOptions(trace=trace.append if trace is not None else None, **kw)
    async with Resolver(config, warn=lambda _: None) as resolver, \
            resolver.open(url, options) as resource:
        return await resource.read(), resource.info


def items_of(info: ResourceInfo) -> list[MenuItem]:
    items = info.extra["items"]
    assert all(isinstance(i, MenuItem) for i in items)
    return list(items)


def by_name(items: list[MenuItem], name: str) -> MenuItem:
    return next(i for i in items if i.display.split()[:1] == [name])


# -- both real servers ------------------------------------------------------------------------

REAL = ["pygopherd", "gophernicus"]


@pytest.mark.parametrize("name", REAL)
async def test_root_menu_lists_the_data_root(peers, name: str) -> None:
    body, info = await fetch(peers[name].url())
    items = items_of(info)
    assert info.kind == "menu"
    hello = by_name(items, "hello" if name == "pygopherd" else "hello.txt")
    assert hello.type == "0"
    assert hello.url() == peers[name].url("0/hello.txt")
    pub = by_name(items, "pub")
    assert pub.type == "1"
    assert f"<{hello.url()}>" in body.decode()


@pytest.mark.parametrize("name", REAL)
async def test_menu_item_urls_fetch_the_items(peers, name: str) -> None:
    _, info = await fetch(peers[name].url("1/pub"))
    item = by_name(items_of(info), "readme.txt" if name == "gophernicus" else "readme")
    url = item.url()
    assert url is not None
    body, _ = await fetch(url)
    assert body == expected_text(peers, name, "pub/readme.txt")


@pytest.mark.parametrize("name", REAL)
async def test_menu_as_json(peers, name: str) -> None:
    body, info = await fetch(peers[name].url(), format="json")
    assert info.content_type == "application/json"
    items = json.loads(body)
    urls = {i["url"] for i in items}
    assert peers[name].url("1/pub") in {u.rstrip("/") for u in urls if u}
    assert all({"type", "display", "selector", "host", "port", "url"} <= set(i) for i in items)


@pytest.mark.parametrize("name", REAL)
async def test_raw_menu_is_the_server_bytes(peers, name: str) -> None:
    body, _ = await fetch(peers[name].url(), raw=True)
    assert b"\t" in body and b"\r\n" in body
    assert b"(DIR)" not in body


@pytest.mark.parametrize("name", REAL)
async def test_rendering_of_a_raw_menu_has_no_terminator_line(peers, name: str) -> None:
    """Issue 19.5: the menu's lone '.' is its end, not an info line of gophermap.txt."""
    async with Resolver(None, warn=lambda _: None) as resolver:
        async with resolver.open(peers[name].url("1/pub"), FetchOptions(raw=True)) as res:
            body = await res.read()
        rendered = resolver.handler_for(res.info.url).render(res.info, body)
    # gophernicus ends its menus with the '.' line, pygopherd (Gopher+) closes instead
    assert body.endswith(b"\r\n.\r\n") == (name == "gophernicus")
    assert rendered is not None and "readme.txt" in rendered
    assert [line for line in rendered.splitlines() if line.strip() == "."] == []


def expected_text(peers, name: str, path: str) -> bytes:
    """gophernicus sends text items with CR LF line ends (RFC 1436 text); pygopherd as stored.
    The client keeps what the server sent either way."""
    data = peers.expected(path)
    return data.replace(b"\n", b"\r\n") if name == "gophernicus" else data


@pytest.mark.parametrize("name", REAL)
@pytest.mark.parametrize("path", ["hello.txt", "pub/with space.txt", "pub/semi;colon.txt",
                                  "pub/per%cent.txt", "pub/nested/deeper/file.txt"])
async def test_text_items_from_their_menu(peers, name: str, path: str) -> None:
    """Each file is fetched by the URL its menu line gives (servers differ in how they
    write odd names into selectors: gophernicus writes "#040" for a space)."""
    folder, _, filename = path.rpartition("/")
    _, info = await fetch(peers[name].url("1/" + folder))
    stem = filename if name == "gophernicus" else filename.rsplit(".", 1)[0]
    item = next(i for i in items_of(info) if i.display.split("  ")[0].strip() == stem)
    url = item.url()
    assert url is not None
    body, info = await fetch(url)
    assert body == expected_text(peers, name, path)


async def test_selector_sent_as_decoded_octets(peers) -> None:
    body, info = await fetch(peers["pygopherd"].url("0/pub/with%20space.txt"))
    assert body == peers.expected("pub/with space.txt")
    assert info.filename == "with space.txt"


@pytest.mark.parametrize("name", REAL)
async def test_binary_item_read_until_close(peers, name: str) -> None:
    body, info = await fetch(peers[name].url("9/bin1k.dat"))
    assert body == peers.expected("bin1k.dat")
    assert info.content_type == "application/octet-stream"


async def test_large_binary_streams_in_chunks(peers) -> None:
    digest = hashlib.sha256()
    largest = 0
    async with Resolver(warn=lambda _: None) as resolver, \
            resolver.open(peers["gophernicus"].url("9/large.dat")) as resource:
        async for chunk in resource:
            digest.update(chunk)
            largest = max(largest, len(chunk))
    assert digest.hexdigest() == peers.files["large.dat"]["sha256"]
    assert largest <= 1 << 20  # bounded memory: never more than one receive at a time


async def test_pygopherd_not_found_is_78(peers) -> None:
    with pytest.raises(RemoteFileNotFound, match="does not exist") as exc:
        await fetch(peers["pygopherd"].url("0/no-such-file.txt"))
    assert exc.value.exit_code == 78


async def test_gophernicus_missing_menu_is_78(peers) -> None:
    with pytest.raises(RemoteFileNotFound, match="not found"):
        await fetch(peers["gophernicus"].url("1/no-such-dir/"))


# -- pygopherd: Gopher+ -----------------------------------------------------------------------


async def test_pygopherd_plus_menu_has_markers(peers) -> None:
    trace: list[str] = []
    _, info = await fetch(peers["pygopherd"].url("1/gopherplus%09%09+"), trace=trace)
    assert trace[:2] == ["> /gopherplus<TAB>+", "< +-2"]
    real = [i for i in items_of(info) if not i.is_info]
    assert {i.display for i in real} == {"about", "survey"}
    assert all(i.plus == "+" for i in real)


async def test_pygopherd_plus_text_has_header(peers) -> None:
    body, _ = await fetch(peers["pygopherd"].url("0/hello.txt%09%09+"))
    assert body == peers.expected("hello.txt")


async def test_pygopherd_attributes(peers) -> None:
    _, info = await fetch(peers["pygopherd"].url("0/gopherplus/about.txt%09%09!"))
    (attrs,) = info.extra["attributes"]
    assert isinstance(attrs, ItemAttributes)
    assert attrs.info is not None and attrs.info.selector == "/gopherplus/about.txt"
    assert attrs.abstract == "The abstract of about.txt, served as +ABSTRACT."
    assert [v.content_type for v in attrs.views] == ["text/plain"]
    assert "Admin" in attrs.admin and "Mod-Date" in attrs.admin


async def test_pygopherd_ask_block_is_parsed(peers) -> None:
    body, info = await fetch(peers["pygopherd"].url("0/gopherplus/survey.txt%09%09!"),
                             format="json")
    (attrs,) = info.extra["attributes"]
    form = attrs.ask
    assert isinstance(form, AskForm)
    assert [(q.kind, q.prompt, q.choices) for q in form.questions] == [
        ("Ask", "What is your name?", ()),
        ("Choose", "Pick a scheme", ("gopher", "ftp", "news")),
    ]
    assert json.loads(body)[0]["ask"]["questions"][1]["choices"] == ["gopher", "ftp", "news"]


async def test_pygopherd_plus_not_found_is_78(peers) -> None:
    trace: list[str] = []
    with pytest.raises(RemoteFileNotFound, match="does not exist"):
        await fetch(peers["pygopherd"].url("0/nope%09%09+"), trace=trace)
    assert trace[-1].startswith("< --")


# -- the loopback Gopher+ server ---------------------------------------------------------------


async def test_loopback_root_menu_markers(peers) -> None:
    _, info = await fetch(peers["gopherplus"].url())
    items = {i.selector: i for i in items_of(info)}
    assert items["/form"].plus == "?"
    assert items["/form"].url() == peers["gopherplus"].url("0/form%09%09?")
    assert items["/hello.txt"].plus == "+"
    assert items["URL:http://example.org/anyurl"].url() == "http://example.org/anyurl"


@pytest.mark.parametrize(
    ("view", "expected"),
    [pytest.param(None, HELLO, id="default"), pytest.param("text/plain De_DE", HELLO_DE, id="de")],
)
async def test_loopback_views(peers, view: str | None, expected: bytes) -> None:
    given = (GopherOptions(view=view),) if view else ()
    body, info = await fetch(peers["gopherplus"].url("0/hello.txt%09%09+"), schemes=given)
    assert body == expected
    if view:
        assert info.content_type == "text/plain"


async def test_loopback_view_in_url(peers) -> None:
    body, info = await fetch(peers["gopherplus"].url("0/hello.txt%09%09+application/json"))
    assert json.loads(body)["view"] == "application/json"
    assert info.content_type == "application/json"


async def test_loopback_views_are_listed(peers) -> None:
    body, info = await fetch(peers["gopherplus"].url("0/hello.txt%09%09!"))
    (attrs,) = info.extra["attributes"]
    assert [v.view_string for v in attrs.views] == [
        "text/plain", "text/plain De_DE", "application/json"]
    assert b"view: text/plain De_DE" in body


async def test_loopback_unknown_view_is_78(peers) -> None:
    with pytest.raises(RemoteFileNotFound, match="No view 'text/html'"):
        await fetch(peers["gopherplus"].url("0/hello.txt"),
                    schemes=(GopherOptions(view="text/html"),))


async def test_loopback_single_attribute(peers) -> None:
    _, info = await fetch(peers["gopherplus"].url("0/hello.txt%09%09!+ABSTRACT"))
    (attrs,) = info.extra["attributes"]
    assert [b.name for b in attrs.blocks] == ["+INFO", "+ABSTRACT"]
    assert attrs.abstract == "A greeting.\nIt has an English, a German and a JSON view."


async def test_loopback_directory_attributes(peers) -> None:
    _, info = await fetch(peers["gopherplus"].url("1%09%09$"))
    attrs = info.extra["attributes"]
    selectors = [a.info.selector for a in attrs]
    assert selectors[:3] == ["/hello.txt", "/dots.txt", "/form"]
    assert attrs[2].ask is not None


async def test_loopback_form_with_answers(peers) -> None:
    trace: list[str] = []
    body, _ = await fetch(peers["gopherplus"].url("0/form%09%09?"),
                          schemes=(GopherOptions(answers=ANSWERS),), trace=trace)
    lines = body.decode().splitlines()
    assert lines[-1] == 'as JSON: ["Ann", "s3cret", "2", "first", ".second", "1", "ftp"]'
    assert "> ****" in trace and not any("s3cret" in line for line in trace)


async def test_loopback_form_with_async_callback(peers) -> None:
    seen: list[AskForm] = []

    async def ask(form: AskForm) -> dict[str, Any]:
        seen.append(form)
        return {q.prompt: q.choices[0] if q.choices else q.default or "x"
                for q in form.answerable}

    body, _ = await fetch(peers["gopherplus"].url("0/form%09%09?"),
                          schemes=(GopherOptions(answers=ask),))
    assert [q.kind for q in seen[0].questions] == [
        "Note", "Ask", "AskP", "AskL", "Select", "Choose"]
    assert body.decode().splitlines()[-1] == (
        'as JSON: ["x", "x", "1", "x", "0", "gopher"]')  # Subscribe keeps its default 0


async def test_loopback_form_without_answers_says_how(peers) -> None:
    with pytest.raises(AnyURLError, match=re.escape("GopherOptions(answers=...)")) as info:
        await fetch(peers["gopherplus"].url("0/form%09%09?"))
    assert info.value.remedy == ("answers",)  # the command line says --answers FILE.json


async def test_loopback_form_with_a_bad_choice(peers) -> None:
    with pytest.raises(AnyURLError, match=re.escape("'gopher+' is not a choice of 'Scheme'")):
        await fetch(peers["gopherplus"].url("0/form%09%09?"),
                    schemes=(GopherOptions(answers={**ANSWERS, "Scheme": "gopher+"}),))


async def test_loopback_form_asked_old_style_is_78(peers) -> None:
    with pytest.raises(RemoteFileNotFound, match="%09%09\\?"):
        await fetch(peers["gopherplus"].url("0/form"))


async def test_loopback_prefilled_form_url(peers) -> None:
    body, _ = await fetch(peers["gopherplus"].url(
        "0/form%09%09+%091%0D%0A+-1%0D%0AAnn%0D%0A.%0D%0A"))
    assert body.decode().splitlines()[-1] == 'as JSON: ["Ann"]'


async def test_loopback_plus_close_framing(peers) -> None:
    body, _ = await fetch(peers["gopherplus"].url("0/stream%09%09+"))
    assert body == STREAM  # the "." line inside a +-2 body is data


async def test_loopback_dots_unstuffed_after_a_plus_dot_header(peers) -> None:
    """A "+-1" header says the server frames as RFC 1436 does: its stuffed dots go."""
    body, _ = await fetch(peers["gopherplus"].url("0/dots.txt%09%09+"))
    assert body == b".\r\n..\r\n.leading dot\r\nno dot\r\n...three\r\n"


async def test_loopback_gopher0_document_kept_as_sent(peers) -> None:
    """Without a header a document is kept as sent (issue 29: gophernicus and pygopherd
    do not stuff, so un-stuffing would change their files): a stuffing server's doubled
    dots stay, and only its last "." line before the close is the terminator."""
    body, _ = await fetch(peers["gopherplus"].url("0/dots.txt"))
    assert body == b"..\r\n...\r\n..leading dot\r\nno dot\r\n....three\r\n"


async def test_loopback_binary_plus_length(peers) -> None:
    body, info = await fetch(peers["gopherplus"].url("9/binary.bin%09%09+"))
    assert body == BINARY and info.size == len(BINARY)
    body, info = await fetch(peers["gopherplus"].url("9/binary.bin"))
    assert body == BINARY and info.size is None


async def test_loopback_short_body_is_partial(peers) -> None:
    with pytest.raises(PartialTransfer) as exc:
        await fetch(peers["gopherplus"].url("0/short%09%09+"))
    assert (exc.value.received, exc.value.expected, exc.value.exit_code) == (40, 100, 18)


async def test_loopback_error_dot_is_78(peers) -> None:
    with pytest.raises(RemoteFileNotFound, match="does not exist"):
        await fetch(peers["gopherplus"].url("0/missing%09%09+"))


async def test_loopback_busy_is_server_error(peers) -> None:
    with pytest.raises(ServerError, match="too busy") as exc:
        await fetch(peers["gopherplus"].url("0/busy%09%09+"))
    assert exc.value.status == 2


async def test_loopback_malformed_menu_lines_kept(peers) -> None:
    body, info = await fetch(peers["gopherplus"].url("1/menu"))
    items = items_of(info)
    assert [i.type for i in items] == ["i", "0", "i", "i", "+", "h", "3", "9"]
    assert items[2].display == "this line has no tabs at all" and items[2].malformed
    assert items[4].fetch_type == "0"
    assert "this line has no tabs at all" in body.decode()


async def test_loopback_search(peers) -> None:
    _, info = await fetch(peers["gopherplus"].url("7/search"), search="gopher plus")
    assert [i.display for i in items_of(info) if not i.is_info] == [
        "Hello, matching 'gopher'", "Hello, matching 'plus'"]


def closed_port() -> int:
    """A loopback port nothing listens on: only a test that never connects can pass with it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_search_without_term_fails_before_connecting() -> None:
    with pytest.raises(URLError, match=r"search=\.\.\."):
        await fetch(f"gopher://127.0.0.1:{closed_port()}/7/search")


@pytest.mark.parametrize("extra", [{"search": "a\r\nb"}, {"search": "a\tb"},
                                   {"schemes": (GopherOptions(view="text/plain\r\nx"),)}],
                         ids=["search-crlf", "search-tab", "view-crlf"])
async def test_line_ends_refused_before_connecting(extra: dict[str, Any]) -> None:
    with pytest.raises(URLError, match="TAB or line end"):
        await fetch(f"gopher://127.0.0.1:{closed_port()}/7/search", **extra)


async def test_html_url_item_is_a_link() -> None:
    body, info = await fetch(f"gopher://127.0.0.1:{closed_port()}/hURL:http://example.org/page")
    assert body == b"http://example.org/page\r\n"
    assert info.kind == "link" and info.extra["target"] == "http://example.org/page"


async def test_text_that_never_ends_times_out(peers) -> None:
    with pytest.raises(TransferTimeout):
        await fetch(peers["gopherplus"].url("0/slow"), config=Config(read_timeout=0.5))


async def test_text_whose_dot_line_is_followed_by_silence_ends_there() -> None:
    """A server that ends a text with "." as RFC 1436 says but then keeps the connection
    open: the read timeout after the "." line is the end of the text, not an error."""
    release = anyio.Event()

    async def handle(stream: anyio.abc.SocketStream) -> None:
        async with stream:
            await stream.receive()
            await stream.send(b"text\r\n.\r\n")
            await release.wait()

    async with await anyio.create_tcp_listener(local_host="127.0.0.1") as listener, \
            anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, handle)
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        trace: list[str] = []
        body, _ = await fetch(f"gopher://127.0.0.1:{port}/0/held", trace=trace,
                              config=Config(read_timeout=0.3))
        release.set()
        tg.cancel_scope.cancel()
    assert body == b"text\r\n"
    assert "* the server sent a '.' line and then nothing: taken as the end" in trace


# -- in-process loopback server: the exact bytes sent -------------------------------------------


async def test_form_bytes_on_the_wire() -> None:
    async with serve_gopherplus() as server:
        await fetch(server.url("0/form%09%09?"), schemes=(GopherOptions(answers=ANSWERS),))
        await fetch(server.url("7/search"), search="a b")
        await fetch(server.url("0/hello.txt"), schemes=(GopherOptions(view="text/plain De_DE"),))
        await fetch(server.url("7/search%09%09!"))
    assert server.requests == [
        b"/form\t!",
        b"/form\t+\t1",
        b"/search\ta b",
        b"/hello.txt\t+text/plain De_DE",
        b"/search\t\t!",
    ]


def test_plan_shows_the_dialogue_without_network() -> None:
    resolver = Resolver(warn=lambda _: None)
    assert resolver.plan("gopher://example.org/7/find%09gopher") == [
        "connect to example.org:70", "> /find<TAB>gopher"]
    assert resolver.plan("gopher://example.org/0/f%09%09?")[1] == "> /f<TAB>!"


def _gopher0_answer(body: bytes) -> Any:
    from anyurl.testing.hostile import Behaviour

    def run(peer: Any) -> None:
        if peer.line() is not None:
            peer.send(body)

    return Behaviour("gopher0", "gopher", run)


@pytest.mark.parametrize("attr", ["!", "%21%2BABSTRACT", "$"])
async def test_attributes_from_a_gopher0_server_are_passed_through(attr: str) -> None:
    """A server that ignores the Gopher+ string sends the item itself: never an empty
    answer with exit 0 (issue 12)."""
    from anyurl.testing.hostile import HostileServer

    with HostileServer(_gopher0_answer(b"plain gopher0 text\r\n.\r\n")) as server:
        body, _ = await fetch(f"gopher://127.0.0.1:{server.port}/0/x%09%09{attr}",
                                 config=Config(allowed_ports=frozenset({server.port})))
    assert b"plain gopher0 text" in body
    with HostileServer(_gopher0_answer(b".\r\n")) as server, \
            pytest.raises(ProtocolError, match="with nothing"):
        await fetch(f"gopher://127.0.0.1:{server.port}/0/x%09%09{attr}",
                    config=Config(allowed_ports=frozenset({server.port})))


async def test_an_ask_item_is_linked_through_its_attribute_block(peers) -> None:
    """Issue 19.6: a mirror keeps a +ASK item's form: the menu links its attribute block
    (`selector<TAB>!`), and that block, fetched raw, holds the +ASK form."""
    root = peers["gopherplus"].url()
    async with Resolver(None, warn=lambda _: None) as resolver:
        async with resolver.open(root, FetchOptions(raw=True)) as res:
            body = await res.read()
        links = resolver.handler_for(res.info.url).links(res.info, body)
        form = peers["gopherplus"].url("0/form%09%09!")
        assert form in {link.url for link in links}
        async with resolver.open(form, FetchOptions(raw=True)) as res:
            block = await res.read()
        assert b"+ASK:" in block and b"Your name?" in block
        assert resolver.handler_for(res.info.url).links(res.info, block) == []
