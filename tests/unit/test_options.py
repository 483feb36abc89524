"""Typed scheme options: defaults, shallow type checks, one per class in FetchOptions."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import anyurl
from anyurl.errors import OptionError
from anyurl.options import (
    FTPOptions,
    GopherOptions,
    HTTPOptions,
    MailtoOptions,
    NewsOptions,
    ProsperoOptions,
    SchemeOptions,
    TelnetOptions,
    WAISOptions,
)
from anyurl.schemes.base import FetchOptions

ALL = [FTPOptions, GopherOptions, HTTPOptions, MailtoOptions, NewsOptions,
       ProsperoOptions, TelnetOptions, WAISOptions]


@pytest.mark.parametrize("kind", ALL, ids=lambda k: k.__name__)
def test_defaults_pass_their_own_check(kind: type[SchemeOptions]) -> None:
    kind().check()
    assert dataclasses.is_dataclass(kind)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(kind(), dataclasses.fields(kind)[0].name, None)


@pytest.mark.parametrize(
    "given",
    [
        pytest.param(TelnetOptions(idle="2"), id="telnet-idle-text"),  # type: ignore[arg-type]
        pytest.param(TelnetOptions(commands=["ls"]), id="telnet-commands-list"),  # type: ignore[arg-type]
        pytest.param(FTPOptions(passive=1), id="ftp-passive-int"),  # type: ignore[arg-type]
        pytest.param(HTTPOptions(http2="yes"), id="http-http2-text"),  # type: ignore[arg-type]
        pytest.param(WAISOptions(max_documents=True), id="wais-bool-as-int"),
        pytest.param(MailtoOptions(body="text"), id="mailto-body-str"),  # type: ignore[arg-type]
        pytest.param(GopherOptions(answers=["a"]), id="gopher-answers-list"),  # type: ignore[arg-type]
        pytest.param(NewsOptions(limit=None), id="news-limit-none"),  # type: ignore[arg-type]
    ],
)
def test_ill_typed_options_are_an_error_when_read(given: SchemeOptions) -> None:
    options = FetchOptions(schemes=(given,))
    with pytest.raises(OptionError) as info:
        options.get(type(given))
    assert info.value.exit_code == 2
    assert isinstance(info.value, TypeError)


def test_well_typed_values_pass() -> None:
    async def ask(form: Any) -> dict[str, str]:
        return {}

    for given in [TelnetOptions(idle=None, commands=("ls",)), TelnetOptions(idle=1),
                  GopherOptions(answers={"Name": "Ada"}), GopherOptions(answers=ask),
                  FTPOptions(passive=False, account="acct"), ProsperoOptions(ardp_timeout=2),
                  MailtoOptions(body=b"hi")]:
        assert FetchOptions(schemes=(given,)).get(type(given)) is given


def test_a_misspelt_field_fails_where_the_options_are_built() -> None:
    with pytest.raises(TypeError):
        FTPOptions(pasive=False)  # type: ignore[call-arg]


def test_a_handler_gets_its_own_class_or_the_defaults() -> None:
    ftp = FTPOptions(passive=False)
    options = FetchOptions(schemes=(ftp, HTTPOptions(http2=True)))
    assert options.get(FTPOptions) is ftp
    assert options.get(WAISOptions) == WAISOptions()


def test_two_options_of_one_class_are_refused() -> None:
    with pytest.raises(OptionError):
        FetchOptions(schemes=(FTPOptions(), FTPOptions(passive=False)))
    with pytest.raises(OptionError):
        FetchOptions(schemes=({"passive": False},))  # type: ignore[arg-type]


def test_with_scheme_replaces_the_same_class() -> None:
    options = FetchOptions(schemes=(FTPOptions(), HTTPOptions(http2=True)))
    changed = options.with_scheme(FTPOptions(passive=False))
    assert changed.get(FTPOptions).passive is False
    assert changed.get(HTTPOptions).http2 is True
    assert options.get(FTPOptions).passive is None


def test_the_options_are_exported() -> None:
    for kind in [*ALL, SchemeOptions]:
        assert getattr(anyurl, kind.__name__) is kind
