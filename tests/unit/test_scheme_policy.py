"""The scheme policy (curl's --proto): its syntax, and the gate applying it to every URL."""

from __future__ import annotations

import pytest

from anyurl.config import Config, load_config
from anyurl.errors import OptionError, SchemeRefused
from anyurl.resolver import Resolver
from anyurl.scheme_policy import SchemePolicy


@pytest.mark.parametrize(("text", "allowed", "refused"), [
    pytest.param("=http,https", {"http", "https"}, {"ftp", "file"}, id="only-two"),
    pytest.param("-file", {"http", "ftp", "gopher"}, {"file"}, id="all-but-file"),
    pytest.param("-all,+gopher", {"gopher"}, {"http", "file"}, id="none-then-one"),
    pytest.param("=all", {"file", "ftp"}, set(), id="all"),
    pytest.param("-file,+file", {"file"}, set(), id="removed-then-added"),
    pytest.param("=ftp,-ftp", set(), {"ftp", "http"}, id="only-then-removed"),
    pytest.param("  HTTP , ", {"http"}, set(), id="case-and-blanks"),
])
def test_curl_syntax(text: str, allowed: set[str], refused: set[str]) -> None:
    policy = SchemePolicy.parse(text)
    assert all(policy.allows(s) for s in allowed)
    assert not any(policy.allows(s) for s in refused)


@pytest.mark.parametrize("text", ["=", "-", "+ht tp", "-fi\x1ble", "=ftp;http"])
def test_bad_syntax_is_an_option_error(text: str) -> None:
    with pytest.raises(OptionError, match="--proto"):
        SchemePolicy.parse(text)


def test_parse_builds_on_a_base() -> None:
    base = SchemePolicy().refusing("file", hint="the base's own hint")
    policy = SchemePolicy.parse("-telnet", base)
    assert not policy.allows("file") and not policy.allows("telnet") and policy.allows("ftp")
    assert policy.hint == "the base's own hint"


def test_config_file_takes_curl_syntax(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "anyurl.toml"  # type: ignore[operator]
    path.write_text('protocols = "=gopher,ftp"\n')
    config = load_config(str(path))
    assert config.protocols.allows("gopher") and not config.protocols.allows("file")


@pytest.mark.parametrize("url", [
    "file:///etc/passwd", "FILE:///etc/passwd", "file://localhost/etc/passwd",
])
def test_the_gate_refuses_a_refused_scheme(url: str) -> None:
    policy = SchemePolicy().refusing("file", hint="lift it so")
    resolver = Resolver(Config(protocols=policy), warn=lambda _: None)
    with pytest.raises(SchemeRefused) as caught:
        resolver.admit(url)
    assert caught.value.exit_code == 1 and "lift it so" in str(caught.value)
    resolver.admit("ftp://127.0.0.1/pub/")  # other schemes pass


def test_the_file_fallback_is_checked_as_what_it_became() -> None:
    # file://otherhost/ becomes ftp://otherhost/ under the fallback: the policy judges
    # the URL that will be opened, not the one typed.
    config = Config(file_ftp_fallback=True, protocols=SchemePolicy.parse("-ftp"))
    with pytest.raises(SchemeRefused, match="ftp: URLs"):
        Resolver(config, warn=lambda _: None).admit("file://example.org/pub/x")
