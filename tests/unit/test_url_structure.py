"""Section 5's structure, decided by its BNF in both modes (issue 20, point 4).

``article = 1*[...] "@" host``: a message-id has a part before ``@``.
``waisurl``/``prosperourl`` = ``scheme "://" hostport "/" ...``: the ``/`` is required.
``database``, ``wtype``, ``wpath`` = ``*uchar``: each may be empty, none holds ``/``
(lenient mode's two exceptions are the CERN and Lynx forms the WAIS handler reads).
"""

from __future__ import annotations

import pytest

from anyurl.errors import URLSyntaxError
from anyurl.url import WAISPath, parse

MODES = [pytest.param(False, id="lenient"), pytest.param(True, id="strict")]


@pytest.mark.parametrize("strict", MODES)
@pytest.mark.parametrize(("text", "problem", "position"), [
    pytest.param("news:@host.example", "part before '@'", 5, id="news-empty-local-part"),
    pytest.param("wais://host", "needs '/' after the host", 11, id="wais-no-slash"),
    pytest.param("wais://host:210", "needs '/' after the host", 15, id="wais-port-no-slash"),
    pytest.param("prospero://host.dom", "needs '/' after the host", 19,
                 id="prospero-no-slash"),
    pytest.param("wais://host/db/TEXT/a/b", "'/' must be %-escaped in the wpath", 21,
                 id="wais-slash-in-wpath"),
    pytest.param("wais://host/db/TEXT/a/105/b", "'/' must be %-escaped in the wpath", 21,
                 id="wais-slash-not-cern"),
    pytest.param("wais://host/db/TEXT", "the wpath is missing", 12, id="wais-no-wpath"),
])
def test_structure_errors_refused_in_both_modes(
        text: str, problem: str, position: int, strict: bool) -> None:
    with pytest.raises(URLSyntaxError) as info:
        parse(text, strict=strict)
    assert problem in info.value.problem
    assert info.value.position == position


@pytest.mark.parametrize("strict", MODES)
@pytest.mark.parametrize(("text", "view"), [
    pytest.param("wais://host/", WAISPath("", None, None, None), id="wais-empty-database"),
    pytest.param("wais://host/?w", WAISPath("", "w", None, None), id="wais-empty-db-search"),
    pytest.param("wais://host//TEXT/x", WAISPath("", None, "TEXT", "x"), id="wais-doc-no-db"),
    pytest.param("wais://host/db//x", WAISPath("db", None, "", "x"), id="wais-empty-wtype"),
    pytest.param("wais://host/db/TEXT/", WAISPath("db", None, "TEXT", ""), id="wais-empty-wpath"),
    pytest.param("wais://host/db/TEXT/a%2Fb", WAISPath("db", None, "TEXT", "a/b"),
                 id="wais-escaped-slash"),
])
def test_what_the_bnf_allows_is_accepted(text: str, view: WAISPath, strict: bool) -> None:
    url = parse(text, strict=strict)
    assert url.parts == view
    assert parse(str(url), strict=True) == url


@pytest.mark.parametrize("text", ["prospero://host.dom/", "news:a@host.example"])
def test_empty_ppath_and_a_one_character_message_id(text: str) -> None:
    assert str(parse(text, strict=True)) == text


@pytest.mark.parametrize("text", ["wais://h/db/TEXT/105/x", "wais://h/db/TEXT/1=vm:210;2=/db;",
                                  "wais://h/db/TEXT/99/1=vm;2=/db;"])
def test_lenient_keeps_the_cern_and_lynx_forms(text: str) -> None:
    assert str(parse(text)) == text
    with pytest.raises(URLSyntaxError, match="wpath"):
        parse(text, strict=True)


def test_an_at_sign_inside_a_message_id_is_escaped_by_lenient_mode() -> None:
    url = parse("news:a@b@host.example")
    assert str(url) == "news:a%40b@host.example"
    assert parse(str(url), strict=True) == url
    assert url.parts.message_id == "a@b@host.example"  # type: ignore[union-attr]
