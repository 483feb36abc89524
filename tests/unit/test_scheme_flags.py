"""Each built-in scheme's command-line flags are its descriptor's :class:`Flags`, added
and asked exactly as a plug-in's are (``anyurl/schemes/<name>/flags.py``)."""

from __future__ import annotations

import importlib

import pytest

from anyurl.cli.main import build_parser
from anyurl.cli.scheme_options import flag_options, scheme_options
from anyurl.options import FTPOptions, HTTPOptions, MailtoOptions, NewsOptions, TelnetOptions
from anyurl.registry import BUILTIN_FLAGS, Flags, flagged, spec_for


@pytest.mark.parametrize("name", sorted(BUILTIN_FLAGS))
def test_a_builtin_descriptor_takes_its_flags_from_its_flags_module(name: str) -> None:
    spec = spec_for(name)
    assert spec is not None and isinstance(spec.flags, Flags)
    assert spec.flags is importlib.import_module(BUILTIN_FLAGS[name]).FLAGS
    # http's request options are mirror's too (fewer of them: its add_for), and ftp's and
    # gopher's mirror flags are the crawl's settings (their add_for and mirror)
    assert spec.flags.commands == (("get", "mirror") if name in ("ftp", "gopher", "http")
                                   else ("get",))
    assert set(spec.flags.add_for) <= set(spec.flags.commands)
    assert set(spec.flags.options_for) <= set(spec.flags.commands)
    assert (spec.flags.mirror is not None) == (name in ("ftp", "gopher"))


def _mirror(*argv: str) -> object:
    return build_parser("mirror", plugins=False).parse_args(["mirror", *argv])


def test_the_schemes_mirror_flags_are_the_crawls_settings() -> None:
    """``--gopher-views`` and ``--retr-symlinks`` are gopher's and ftp's mirror flags,
    read back as MirrorOptions fields by the one loop (flag_mirror); ftp's options of a
    mirror are those of the shared flags alone, gopher's none."""
    from anyurl.cli.scheme_options import flag_mirror
    from anyurl.mirror import MirrorOptions

    args = _mirror("--gopher-views", "--retr-symlinks", "ftp://h/")
    assert flag_mirror(args) == {"gopher_views": True, "retr_symlinks": True}  # type: ignore[arg-type]
    assert flag_options(args) == []  # type: ignore[arg-type]
    assert flag_mirror(_mirror("ftp://h/")) == {  # type: ignore[arg-type]
        "gopher_views": False, "retr_symlinks": False}
    assert set(flag_mirror(args)) <= set(MirrorOptions.__dataclass_fields__)  # type: ignore[arg-type]
    ssl = flag_options(_mirror("--ssl-reqd", "ftp://h/"))  # type: ignore[arg-type]
    assert FTPOptions(tls="require") in ssl
    assert not any(type(o).__name__ == "GopherOptions" for o in ssl)
    assert flag_mirror(_get("--view", "x", "gopher://h/")) == {}  # type: ignore[arg-type]


def test_every_descriptor_with_flags_is_listed() -> None:
    from anyurl.registry import specs

    listed = {id(flags) for _, _, flags in flagged(installed=False)}
    assert all(id(spec.flags) in listed for spec in specs() if spec.flags is not None)


def _get(*argv: str) -> object:
    return build_parser("get", plugins=False).parse_args(["get", *argv])


def test_get_has_a_group_of_each_schemes_flags() -> None:
    get = build_parser("get", plugins=False)._subparsers._group_actions[0].choices["get"]  # type: ignore[union-attr]
    titles = {group.title for group in get._action_groups}
    assert {f"{name} options" for name in BUILTIN_FLAGS} <= titles


def test_the_schemes_make_their_options_of_their_flags_and_the_shared_ones() -> None:
    args = _get("--ftp-active", "--nntp-server", "news.example.org", "--ssl", "--subject",
                "hi", "-d", "text", "--idle", "1.5", "mailto:a@example.org")
    given = {type(o): o for o in scheme_options(args)}  # type: ignore[arg-type]
    assert given[FTPOptions].passive is False and given[FTPOptions].tls == "try"
    assert given[NewsOptions].server == "news.example.org" and given[NewsOptions].tls == "try"
    assert given[MailtoOptions].subject == "hi" and given[MailtoOptions].body == b"text"
    assert given[TelnetOptions].idle == 1.5


def test_a_command_without_a_schemes_flags_asks_it_for_the_shared_ones_alone() -> None:
    parser = build_parser("mirror", plugins=False)
    args = parser.parse_args(["mirror", "-o", "d", "--ssl", "--cacert", "/ca.pem",
                              "ftp://h/"])
    given = {type(o): o for o in flag_options(args)}
    assert given[FTPOptions].tls == "try" and given[FTPOptions].cafile == "/ca.pem"
    assert given[NewsOptions].tls == "" and given[NewsOptions].cafile == "/ca.pem"
    assert given[HTTPOptions].cafile == "/ca.pem"  # mirror has http's flags
    assert set(given) == {FTPOptions, HTTPOptions, NewsOptions}


def test_the_config_the_flags_set() -> None:
    from anyurl.cli.scheme_options import apply_to_config
    from anyurl.config import Config

    args = _get("--nntp-server", "n.example.org", "--smtp-relay", "m.example.org", "x")
    config = apply_to_config(args, Config())  # type: ignore[arg-type]
    assert config.nntp_server == "n.example.org" and config.smtp_relay == "m.example.org"


def test_http_makes_its_options_of_get_and_mirror_flags_and_the_run_s_reads() -> None:
    args = _get("-H", "X-A: 1", "-A", "ua", "--location-trusted", "--no-pipeline",
                "--http1.1", "-d", "a=1", "http://h/")
    given = {type(o): o for o in scheme_options(args, json_data=["{}"])}  # type: ignore[arg-type]
    http = given[HTTPOptions]
    assert http.location_trusted and not http.pipeline and http.http2 is False
    assert http.body == b"a=1&{}" and ("X-A", "1") in http.headers
    assert ("Content-Type", "application/json") in http.headers
    mirror = build_parser("mirror", plugins=False).parse_args(
        ["mirror", "-H", "X-B: 2", "--compressed", "http://h/"])
    http = {type(o): o for o in flag_options(mirror)}[HTTPOptions]
    assert http.decode_content and http.headers == (("X-B", "2"),)
    assert HTTPOptions not in {type(o) for o in scheme_options(_get("http://h/"))}  # type: ignore[arg-type]


def test_what_a_run_keeps_is_the_schemes_state(tmp_path: object) -> None:
    """The cookie jar of ``-b FILE``/``-c FILE`` is HTTP's flags' state: made once,
    given to its options as ``cookie_file``, refused with ``--dask`` (one process keeps
    it), and written back by save_state (23 when the file cannot be written)."""
    from pathlib import Path

    from anyurl.cli.scheme_options import flag_state, save_state

    assert flag_state(_get("http://h/"), None) == ()  # type: ignore[arg-type]
    jar = Path(str(tmp_path)) / "jar.txt"
    args = _get("-c", str(jar), "http://h/")
    state = flag_state(args, None)  # type: ignore[arg-type]
    assert [kept.name for kept in state] == ["cookie_file"]
    http = next(o for o in scheme_options(args, state=state)  # type: ignore[arg-type]
                if isinstance(o, HTTPOptions))
    assert http.cookies is state[0].value
    assert save_state(state, shows_errors=False) == 0 and jar.exists()
    with pytest.raises(ValueError, match="-b FILE and -c FILE keep one cookie jar in this "
                       "process; they cannot be used with --dask"):
        flag_state(args, None, spread="--dask")  # type: ignore[arg-type]
    unwritable = _get("-c", str(tmp_path), "http://h/")  # a directory: no file there
    assert save_state(flag_state(unwritable, None), shows_errors=False) == 23  # type: ignore[arg-type]


def test_the_mirrors_help_is_read_from_the_crawls() -> None:
    """``anyurl --help``'s mirror line names what each crawl is called, and
    ``--no-robots`` the schemes whose crawl obeys robots.txt (made when help is shown)."""
    top = build_parser(plugins=False)
    assert "copy an FTP tree, a Gopher hole, a site or a newsgroup" in " ".join(
        top.format_help().split())
    mirror = top._subparsers._group_actions[0].choices["mirror"]  # type: ignore[union-attr]
    assert "ignore robots.txt (http, https)" in " ".join(mirror.format_help().split())
