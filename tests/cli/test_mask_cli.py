"""A URL that does not parse is shown with its password masked and everything else as
typed, and the error's position points into that shown text (issue 29)."""

from __future__ import annotations

import re

from tests.cli.test_get_cli import anyurl


def test_the_position_refers_to_the_shown_url() -> None:
    r = anyurl("get", "http://u:secret@exa mple/x@y")
    assert r.returncode == 3, r.stderr
    err = r.stderr.decode()
    assert "secret" not in err
    m = re.search(r"'([^']*)' is not a URL: .* at position (\d+)", err)
    assert m is not None, err
    shown, position = m.group(1), int(m.group(2))
    assert shown == "http://u:****@exa mple/x@y"
    assert shown[position] == " "
