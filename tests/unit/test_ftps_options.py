"""FTPS without a server: ftps:// is read as ftp:// is (port 990), the plan shows the
TLS commands where the dialogue sends them, the pool's key holds the TLS mode, and one
--ssl/--ssl-reqd serves ftp and nntp alike (no second option)."""

from __future__ import annotations

import pytest

from anyurl.config import Config
from anyurl.errors import OptionError
from anyurl.options import FTPOptions, NewsOptions
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.ftp.control import key_for, tls_mode
from anyurl.schemes.ftp.handler import FTPHandler
from anyurl.url import FTPPath, parse


def _plan(url: str, **given: object) -> list[str]:
    handler = FTPHandler(Config(netrc_path="/dev/null"))
    return handler.plan(parse(url), FetchOptions(schemes=(FTPOptions(**given),)))


def test_ftps_is_read_as_ftp_on_port_990() -> None:
    url = parse("ftps://fred:pw@example.org/pub/a.txt;type=a")
    assert (url.scheme, url.effective_port, url.user) == ("ftps", 990, "fred")
    assert url.parts == FTPPath(cwd=("pub",), name="a.txt", typecode="a")


def test_the_plan_has_auth_tls_before_user_and_prot_p_after_the_login() -> None:
    plan = _plan("ftp://example.org/pub/a.txt", tls="require")
    assert plan[:2] == ["AUTH TLS", "USER anonymous"]
    assert plan[plan.index("PBSZ 0") + 1] == "PROT P"
    assert plan.index("PASS ****") < plan.index("PBSZ 0") < plan.index("PWD")
    implicit = _plan("ftps://example.org/pub/a.txt")
    assert implicit[0] == "USER anonymous" and "PROT P" in implicit
    assert not any(line.startswith(("AUTH", "PBSZ", "PROT"))
                   for line in _plan("ftp://example.org/pub/a.txt"))


def test_the_pool_key_tells_plain_from_tls() -> None:
    url = parse("ftp://example.org/a")
    keys = {key_for(url, tls_mode(url, FetchOptions(schemes=(FTPOptions(tls=mode),))))
            for mode in ("", "try", "require")}
    ftps = parse("ftps://example.org:21/a")
    keys.add(key_for(ftps, tls_mode(ftps, FetchOptions())))
    assert len(keys) == 4


def test_an_unknown_tls_mode_is_an_option_error() -> None:
    with pytest.raises(OptionError):
        FTPOptions(tls="always").check()


@pytest.mark.parametrize(("flag", "mode"), [("--ssl", "try"), ("--ssl-reqd", "require")])
def test_one_ssl_option_for_ftp_and_nntp(flag: str, mode: str) -> None:
    from anyurl.cli.main import build_parser
    from anyurl.cli.scheme_options import scheme_options

    args = build_parser().parse_args(["get", flag, "--cacert", "/ca.pem", "ftp://h/f"])
    given = {type(o): o for o in scheme_options(args)}
    assert given[FTPOptions].tls == given[NewsOptions].tls == mode
    assert given[FTPOptions].cafile == "/ca.pem" and given[FTPOptions].verify
