"""The SOCKS handshake driver (anyurl.net.socks.Handshake), fed bytes without a socket:
what it sends, how much it asks for (never a byte past the proxy's last reply), and
which answers are a refusal (97), which a broken proxy (97), and how they read."""

from __future__ import annotations

import pytest

from anyurl.errors import ProxyError, URLError
from anyurl.net.routing import (
    gateways_from_environ,
    is_socks_text,
    parse_gateway,
    with_proxy,
)
from anyurl.net.socks import (
    Handshake,
    SocksProxy,
    SocksRefused,
    SocksReplyError,
    parse_socks,
)

LOGIN = SocksProxy("socks5h", "127.0.0.1", 1080, "anyurl", "s3cret")
NO_LOGIN = SocksProxy("socks5h", "127.0.0.1", 1080)
SUCCESS_V4 = b"\x05\x00\x00\x01\x7f\x00\x00\x01\x04\x38"


def feed(handshake: Handshake, data: bytes, *, one_at_a_time: bool = False) -> None:
    """Give ``data`` as the proxy would, never more than the driver wants."""
    while data:
        step = 1 if one_at_a_time else handshake.wanted
        assert step > 0, "the driver wants nothing but the proxy sent more"
        handshake.receive(data[:step])
        data = data[step:]


@pytest.mark.parametrize("one_at_a_time", [False, True])
def test_socks5_with_login_sends_rfc1929_and_names_the_target(one_at_a_time: bool) -> None:
    hs = Handshake(LOGIN, "example.org", 70)
    assert hs.data_to_send() == b"\x05\x02\x00\x02"  # no login, user and password
    feed(hs, b"\x05\x02", one_at_a_time=one_at_a_time)
    assert hs.data_to_send() == b"\x01\x06anyurl\x06s3cret"
    feed(hs, b"\x01\x00", one_at_a_time=one_at_a_time)
    assert hs.data_to_send() == b"\x05\x01\x00\x03\x0bexample.org\x00\x46"
    assert not hs.done
    feed(hs, SUCCESS_V4, one_at_a_time=one_at_a_time)
    assert hs.done and hs.wanted == 0
    assert hs.bound == ("127.0.0.1", 1080)


def test_socks5_without_login_offers_only_no_login() -> None:
    hs = Handshake(NO_LOGIN, "10.1.2.3", 21)
    assert hs.data_to_send() == b"\x05\x01\x00"
    feed(hs, b"\x05\x00")
    assert hs.data_to_send() == b"\x05\x01\x00\x01\x0a\x01\x02\x03\x00\x15"


def test_socks5_reply_with_a_name_is_read_to_its_last_byte() -> None:
    hs = Handshake(NO_LOGIN, "example.org", 80)
    hs.data_to_send()
    feed(hs, b"\x05\x00")
    hs.data_to_send()
    feed(hs, b"\x05\x00\x00\x03\x05proxy\x00\x50", one_at_a_time=True)
    assert hs.done and hs.bound == ("proxy", 80)


def test_ipv6_reply_and_target() -> None:
    hs = Handshake(NO_LOGIN, "::1", 80)
    hs.data_to_send()
    feed(hs, b"\x05\x00")
    assert hs.data_to_send() == b"\x05\x01\x00\x04" + b"\x00" * 15 + b"\x01\x00\x50"
    feed(hs, b"\x05\x00\x00\x04" + b"\x00" * 15 + b"\x01\x00\x50")
    assert hs.bound == ("::1", 80)


def test_socks4a_sends_the_name_and_socks4_an_address() -> None:
    hs = Handshake(SocksProxy("socks4a", "p", 1080), "example.org", 70)
    assert hs.data_to_send() == b"\x04\x01\x00\x46\x00\x00\x00\xff\x00example.org\x00"
    feed(hs, b"\x00\x5a\x00\x00\x00\x00\x00\x00")
    assert hs.done
    hs = Handshake(SocksProxy("socks4", "p", 1080, "joe"), "10.0.0.1", 119)
    assert hs.data_to_send() == b"\x04\x01\x00\x77\x0a\x00\x00\x01joe\x00"
    with pytest.raises(SocksRefused, match="request rejected or failed") as caught:
        feed(hs, b"\x00\x5b\x00\x00\x00\x00\x00\x00")
    assert caught.value.exit_code == 97


def test_socks4_cannot_carry_ipv6() -> None:
    with pytest.raises(SocksRefused, match="socks5h"):
        Handshake(SocksProxy("socks4", "p", 1080), "::1", 80)


@pytest.mark.parametrize(("replies", "error", "words"), [
    ([b"\x04\x00"], SocksReplyError, "version byte 4"),
    ([b"\x05\xff"], SocksRefused, "it wants a login"),
    ([b"\x05\x02"], SocksReplyError, "method 2, which was not offered"),
    ([b"\x05\x01"], SocksReplyError, "method 1, which was not offered"),
    ([b"\x05\x00", b"\x05\x05\x00\x01"], SocksRefused, "connection refused"),
    ([b"\x05\x00", b"\x05\x02\x00\x01"], SocksRefused, "not allowed by ruleset"),
    ([b"\x05\x00", b"\x05\x00\x00\x07"], SocksReplyError, "claimed success in a malformed"),
    ([b"\x05\x00", b"\x05\x00\x01\x01"], SocksReplyError, "claimed success in a malformed"),
    ([b"\x05\x00", b"\x06\x00\x00\x01"], SocksReplyError, "version byte 6"),
    ([b"\x05\x00", b"\x05\x00\x00\x03", b"\x02", b"\xff\xfe\x00\x50"], SocksReplyError,
     "malformed reply"),
    ([b"\x05"], SocksReplyError, "closed the connection in the middle"),
])
def test_socks5_answers_that_are_errors(replies: list[bytes], error: type[ProxyError],
                                        words: str) -> None:
    hs = Handshake(NO_LOGIN, "example.org", 80)
    with pytest.raises(error, match=words) as caught:
        for reply in replies:
            hs.data_to_send()
            feed(hs, reply)
        hs.receive(b"")  # the proxy closes: every case above must have failed before
    assert caught.value.exit_code == 97
    assert "socks5h://127.0.0.1:1080" in str(caught.value)


def test_a_refused_login_names_the_user_and_never_the_password() -> None:
    hs = Handshake(LOGIN, "example.org", 80, url=parse_socks("socks5h://h:1"))
    hs.data_to_send()
    feed(hs, b"\x05\x02")
    hs.data_to_send()
    with pytest.raises(SocksRefused, match="login of 'anyurl' was refused") as caught:
        feed(hs, b"\x01\x01")
    assert "s3cret" not in str(caught.value)
    assert "anyurl:****@127.0.0.1" in str(caught.value)


def test_more_bytes_than_wanted_is_the_callers_bug() -> None:
    hs = Handshake(NO_LOGIN, "example.org", 80)
    with pytest.raises(ValueError):
        hs.receive(b"\x05\x00\x05")


def test_proxy_urls() -> None:
    proxy = parse_socks("socks5h://us%40er:p%3Ass@proxy.example:9050")
    assert proxy == SocksProxy("socks5h", "proxy.example", 9050, "us@er", "p:ss")
    assert proxy.remote_dns and proxy.version == 5
    assert "p:ss" not in repr(proxy) and "p:ss" not in proxy.masked()
    assert parse_socks("socks4://[::1]").port == 1080
    assert not parse_socks("socks5://h").remote_dns
    assert parse_socks("socks4a://h").version == 4
    with pytest.raises(URLError):
        parse_socks("http://proxy:3128/")
    assert is_socks_text(" SOCKS5H://h:1") and not is_socks_text("socks5h.example:1080")


def test_a_socks_url_where_gateways_go_is_socks_not_a_gateway() -> None:
    assert parse_gateway("socks5h://h:1080").socks
    assert parse_gateway("socks5h://h:1080").tunnel
    assert not parse_gateway("http://h:3128/").socks
    with pytest.raises(URLError, match="names no host"):
        parse_gateway("socks5://")
    gateways = with_proxy({"no_proxy": "local"}, "socks5h://h:1080")
    assert gateways["gopher"] == gateways["nntp"] == gateways["https"] == "socks5h://h:1080"
    assert gateways["telnet"] == gateways["wais"] == "socks5h://h:1080"
    assert "prospero" not in gateways and "file" not in gateways
    assert "telnet" not in with_proxy({}, "http://h:3128/")
    assert gateways["no_proxy"] == "local"
    assert with_proxy(gateways, "") == {"no_proxy": "local"}
    env = gateways_from_environ({"ALL_PROXY": "socks5h://h:1080", "NO_PROXY": "x.org"})
    assert env["ftp"] == "socks5h://h:1080" and env["no_proxy"] == "x.org"
    env = gateways_from_environ({"all_proxy": "socks4://h", "ALL_PROXY": "socks5://h"})
    assert env["telnet"] == "socks4://h"
