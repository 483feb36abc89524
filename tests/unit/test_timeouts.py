"""``anyurl.Timeout``: httpx's shape, what a number means, how a request's limits sit over
the resolver's and the config's, and the config fields and file that map onto it."""

from __future__ import annotations

from pathlib import Path

import pytest

from anyurl import Config, Resolver, Timeout, load_config
from anyurl.errors import OptionError
from anyurl.timeouts import current, timeout_of, using


def test_one_number_sets_the_four_per_operation_limits_as_httpx() -> None:
    assert Timeout(2.0) == Timeout(connect=2.0, read=2.0, write=2.0, pool=2.0)
    assert Timeout(2.0).total is None  # never set by the first argument
    assert Timeout(2.0, connect=1.0).connect == 1.0 and Timeout(2.0, connect=1.0).read == 2.0
    assert Timeout(None) == Timeout(connect=None, read=None, write=None, pool=None)
    assert Timeout() == Timeout(connect=30.0, read=60.0, write=60.0, pool=None, total=None)
    assert Timeout(total=5).replace(read=1.0) == Timeout(read=1.0, total=5.0)


def test_a_bad_limit_is_an_option_error_naming_it() -> None:
    with pytest.raises(OptionError, match="total"):
        Timeout(total=-1)
    with pytest.raises(OptionError, match="read"):
        Timeout(read="5")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="connect, read, write, pool, total"):
        Timeout().replace(reed=1.0)


def test_a_number_is_the_total_and_a_timeout_replaces_all() -> None:
    base = Timeout(3.0)
    assert timeout_of(None, base) is base
    assert timeout_of(9, base) == Timeout(3.0, total=9.0)
    assert timeout_of(Timeout(total=1.0), base) == Timeout(total=1.0)


def test_the_request_over_the_resolver_over_the_config() -> None:
    config = Config(timeout=Timeout(4.0, total=100.0))
    assert Resolver(config).timeout_for() == Timeout(4.0, total=100.0)
    assert Resolver(config, timeout=50).timeout_for() == Timeout(4.0, total=50.0)
    assert Resolver(config, timeout=50).timeout_for(7) == Timeout(4.0, total=7.0)
    assert Resolver(config, timeout=50).timeout_for(Timeout(1.0)) == Timeout(1.0)


def test_the_config_fields_map_onto_timeout() -> None:
    config = Config(connect_timeout=5, read_timeout=6, write_timeout=7, max_time=8)
    assert config.timeouts() == Timeout(connect=5, read=6, write=7, total=8)
    config = Config(timeout=Timeout(1.0, total=9))
    assert (config.connect_timeout, config.read_timeout, config.write_timeout,
            config.pool_timeout, config.max_time) == (1.0, 1.0, 1.0, 1.0, 9.0)
    assert config.replace(connect_timeout=3).timeouts() == Timeout(1.0, connect=3, total=9)
    config = Config(timeout=7)  # a number: the total only
    assert config.max_time == 7 and config.read_timeout == 60


def test_the_config_file_takes_a_timeout_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("read_timeout = 9\n[timeout]\nconnect = 2\nwrite = 3\ntotal = 60\n")
    assert load_config(path).timeouts() == Timeout(connect=2, write=3, total=60)
    path.write_text("[timeout]\nconect = 2\n")
    with pytest.raises(OptionError, match=r"\[timeout\].*conect"):
        load_config(path)
    path.write_text("timeout = 30\n")
    assert load_config(path).max_time == 30


def test_the_current_timeout_is_the_requests_inside_using_only() -> None:
    assert current() is None
    with using(Timeout(1.0)):
        assert current() == Timeout(1.0)
    assert current() is None
