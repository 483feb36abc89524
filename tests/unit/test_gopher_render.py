"""The gopher handler's rendering and links of a menu fetched raw (terminator included)."""

from __future__ import annotations

import pytest

from anyurl.config import Config
from anyurl.resource import ResourceInfo
from anyurl.schemes.gopher.handler import GopherHandler
from anyurl.url import parse

MENU = b"iWelcome\t\terror.host\t1\r\n0Readme\t/readme.txt\th\t70\r\n"


def menu_info() -> ResourceInfo:
    return ResourceInfo(url=parse("gopher://h/1/"), kind="menu",
                        content_type="application/gopher-menu")


@pytest.mark.parametrize("ending", [b".\r\n", b".\n", b".", b".\r\n1After\t/x\th\t70\r\n"])
def test_the_terminator_is_no_line_of_the_rendering(ending: bytes) -> None:
    """Issue 19.5: a menu's lone '.' is its end, not an info item."""
    handler = GopherHandler(Config())
    rendered = handler.render(menu_info(), MENU + ending)
    assert rendered is not None
    assert rendered.splitlines() == handler.render(menu_info(), MENU).splitlines()
    assert len(rendered.splitlines()) == 2
    assert [link.url for link in handler.links(menu_info(), MENU + ending)] == [
        "gopher://h/0/readme.txt"]


def test_a_dot_inside_a_line_is_kept() -> None:
    handler = GopherHandler(Config())
    rendered = handler.render(menu_info(), b"i.\tx\th\t70\r\ni..\t\th\t1\r\n.\r\n")
    assert rendered is not None and len(rendered.splitlines()) == 2
