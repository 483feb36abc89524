"""Sharding keys for Dask (anyurl.mirror.scale): the string fast path agrees with the
parser, and placing hosts balances them (no cluster needed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from anyurl.errors import AnyURLError
from anyurl.mirror.scale import _parsed_key, assign, shard_key
from anyurl.url import parse

SCHEMES = st.sampled_from(["http", "https", "ftp", "gopher", "HTTP", "Ftp", "nntp", "wais",
                           "telnet", "prospero", "x-finger", "file", "news", "mailto"])
LABEL = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9-]{0,8}[A-Za-z0-9])?", fullmatch=True)
HOST = st.one_of(st.lists(LABEL, min_size=1, max_size=3).map(".".join),
                 st.sampled_from(["127.0.0.1", "[::1]", "user@host", "h%41st", "h:",
                                  "h:0080", "h:65535", "h:99999", "h:x", "", "h?q", "h#f"]))
PORT = st.one_of(st.just(""), st.integers(0, 70000).map(lambda n: f":{n}"))
PATH = st.sampled_from(["", "/", "/a/b", "/a;type=d", "/1/sel", "/x?y", "/%2Fetc"])


@given(SCHEMES, HOST, PORT, PATH, st.sampled_from(["://", ":", ":/"]))
def test_the_string_key_is_the_parsers(scheme: str, host: str, port: str, path: str,
                                       sep: str) -> None:
    """Where the parser takes the URL, both give one key; a URL it refuses may be keyed
    by its host or by its text (it only places the URL: its worker reports the error)."""
    url = f"{scheme}{sep}{host}{port}{path}"
    try:
        parse(url)
    except AnyURLError:
        return
    assert shard_key(url) == _parsed_key(url)


def test_assign_places_hosts_not_urls() -> None:
    urls = [f"http://h{i % 3}.example/f{i}" for i in range(9)] + ["ftp://H0.example/x"]
    shards = assign(urls, ["w1", "w2"])
    assert sorted(u for us in shards.values() for u in us) == sorted(urls)
    owner = {shard_key(u): w for w, us in shards.items() for u in us}
    assert all(owner[shard_key(u)] == w for w, us in shards.items() for u in us)
    assert len(owner) == 4  # three http hosts and one ftp host, each on one worker
