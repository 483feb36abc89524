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


# -- values of the wrong type (issue 29) ------------------------------------------------------


@pytest.mark.parametrize(("line", "key", "expected"), [
    pytest.param('limit_rate = "1X"', "limit_rate", "a rate such as 500K", id="rate-word"),
    pytest.param("limit_rate = 0", "limit_rate", "above 0", id="rate-zero"),
    pytest.param('max_filesize = "2 apples"', "max_filesize", "a size", id="size-word"),
    pytest.param('max_filesize = "٣M"', "max_filesize", "a size", id="size-arabic-digit"),
    pytest.param('parallel = "four"', "parallel", "a whole number, 1 or more", id="parallel"),
    pytest.param("parallel = 0", "parallel", "1 or more", id="parallel-zero"),
    pytest.param('retry = "3"', "retry", "a whole number", id="retry-string"),
    pytest.param("retry = 1.5", "retry", "a whole number", id="retry-float"),
    pytest.param("retry = -1", "retry", "0 or more", id="retry-negative"),
    pytest.param("retry = true", "retry", "a whole number", id="retry-bool"),
    pytest.param('retry_jitter = "bogus"', "retry_jitter", '"equal", "full" or "none"',
                 id="jitter"),
    pytest.param('ftp_passive = "no"', "ftp_passive", "true or false", id="passive-string"),
    pytest.param("ftp_passive = 0", "ftp_passive", "true or false", id="passive-number"),
    pytest.param('connect_timeout = "30"', "connect_timeout", "seconds", id="timeout-string"),
    pytest.param("read_timeout = nan", "read_timeout", "seconds", id="timeout-nan"),
    pytest.param("max_time = inf", "max_time", "seconds", id="timeout-inf"),
    pytest.param("nntp_server = 119", "nntp_server", "a string", id="server-number"),
    pytest.param("allowed_ports = 6000", "allowed_ports", "a list of ports", id="ports-int"),
    pytest.param('allowed_ports = ["6000"]', "allowed_ports", "a list of ports",
                 id="ports-strings"),
    pytest.param("allowed_ports = [70000]", "allowed_ports", "1-65535", id="ports-range"),
    pytest.param("ip_version = 5", "ip_version", "4 or 6", id="ip-version"),
    pytest.param('gateways = "http://gw/"', "gateways", "a table of strings", id="gateways"),
    pytest.param("[gateways]\nwais = 8001", "gateways", "a table of strings",
                 id="gateway-number"),
    pytest.param('[timeout]\nconnect = "5"', "timeout", "seconds", id="timeout-table"),
    pytest.param("[timeout]\nconect = 5", "timeout", "connect, read", id="timeout-typo"),
])
def test_a_value_of_the_wrong_type_names_the_file_the_key_and_the_type(
        tmp_path: Path, line: str, key: str, expected: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(line + "\n")
    with pytest.raises(OptionError) as caught:
        load_config(path)
    text = str(caught.value)
    assert str(path) in text and f"{key} = " in text and expected in text, text
    assert caught.value.exit_code == 2


def test_sizes_and_rates_take_the_command_line_s_spellings(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('limit_rate = "1M"\nmax_filesize = "2M"\n')
    config = load_config(path)
    assert (config.limit_rate, config.max_filesize) == (1024.0**2, 2 * 1024**2)
    path.write_text("limit_rate = 1500.5\nmax_filesize = 1000\n")
    config = load_config(path)
    assert (config.limit_rate, config.max_filesize) == (1500.5, 1000)


def test_every_field_type_has_a_reader() -> None:
    """A new Config field of a new type is read too, not passed through unchecked."""
    from anyurl import config as module

    for f in dataclasses.fields(Config):
        assert callable(module._reader(f.name, f.type)), f.name


def test_a_full_good_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('anonymous_email = "me@example.org"\nconnect_timeout = 20\n'
                    "read_timeout = 60.5\nparallel = 4\nper_host = 1\nip_version = 6\n"
                    'retry = 3\nftp_passive = false\nsmtp_relay = "localhost:25"\n'
                    "[gateways]\nwais = \"http://gw.example:8001/\"\n")
    config = load_config(path)
    assert (config.connect_timeout, config.read_timeout, config.ftp_passive,
            config.gateways) == (20, 60.5, False, {"wais": "http://gw.example:8001/"})
    path.write_text("[timeout]\nconnect = 5\ntotal = 600\n")
    assert load_config(path).timeouts().total == 600
