"""``anyurl get --help`` lists the schemes the registry knows, plug-ins included
(docs/exit-codes.md sends a user there for exit 1)."""

from __future__ import annotations

import pytest

from anyurl import registry
from anyurl.cli.main import main
from anyurl.registry import index
from anyurl.registry.spec import SchemeSpec


def test_help_lists_every_scheme_and_a_plug_in(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    spec = SchemeSpec(names=("x-helpdemo",), handler="nowhere:Nothing",
                      summary="a scheme added as a plug-in is", default_port=7070)
    monkeypatch.setitem(index._added, "x-helpdemo", spec)  # this test's only
    with pytest.raises(SystemExit) as done:
        main(["get", "--help"])
    assert done.value.code == 0
    listing = capsys.readouterr().out.split("\nschemes:\n", 1)[1]
    for name in registry.names():
        assert f"  {name}" in listing or f", {name}" in listing, name
    assert "x-helpdemo      a scheme added as a plug-in is (port 7070)" in listing
