"""``load_config`` refuses what it cannot use with an OptionError naming the file and the
key, and the docs list the settings the code has, with the defaults it has (issue 23)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from anyurl.config import Config, load_config
from anyurl.errors import OptionError

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_an_unknown_key_names_itself_the_file_and_the_setting_meant(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("retry = 2\nmax_redirect = 5\n")
    with pytest.raises(OptionError) as caught:
        load_config(path)
    text = str(caught.value)
    assert "'max_redirect'" in text and str(path) in text
    assert "Did you mean 'max_redirects'?" in text
    assert caught.value.exit_code == 2


def test_every_unknown_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("zzz = 1\nqqq = 2\n")
    with pytest.raises(OptionError, match=r"'qqq' \(and 'zzz'\)") as caught:
        load_config(path)
    assert "docs/api.md" in str(caught.value)  # nothing close: where the settings are


def test_a_file_that_is_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("retry = \n")
    with pytest.raises(OptionError, match=r"is not TOML: .*line 1"):
        load_config(path)


def test_a_good_file_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('retry = 2\nretry_jitter = "none"\nallowed_ports = [6000]\n')
    config = load_config(path)
    assert (config.retry, config.retry_jitter, config.allowed_ports) == (
        2, "none", frozenset({6000}))


def test_api_md_lists_every_config_setting() -> None:
    text = (DOCS / "api.md").read_text()
    section = text.split("## `Config`", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"`([a-z_]+)`", section))
    missing = {f.name for f in dataclasses.fields(Config)} - listed
    assert not missing, f"docs/api.md's Config section leaves out {sorted(missing)}"


def test_the_docs_give_the_code_s_max_redirects() -> None:
    default = Config().max_redirects
    for name in ("cli.md", "exit-codes.md", "schemes/http.md"):
        text = (DOCS / name).read_text()
        said = re.findall(r"max_redirects`(?:,| \(|, default) ?(\d+)", text)
        assert said and all(int(n) == default for n in said), (name, said)
