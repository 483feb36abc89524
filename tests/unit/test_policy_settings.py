"""A setting lives once: DownloadPolicy's fields that Config has too are Config's."""

from __future__ import annotations

import dataclasses

from anyurl.config import Config
from anyurl.downloads.downloader import _CONFIG_FIELDS, DownloadPolicy


def test_the_shared_settings_are_the_configs() -> None:
    assert {"parallel", "per_host", "retry", "max_time", "max_filesize"} <= set(_CONFIG_FIELDS)
    policy, config = DownloadPolicy(), Config()
    for name in _CONFIG_FIELDS:
        assert getattr(policy, name) == getattr(config, name), name


def test_from_config_copies_every_shared_setting() -> None:
    changed = {}
    for f in dataclasses.fields(Config):
        if f.name not in _CONFIG_FIELDS:
            continue
        value = getattr(Config(), f.name)
        changed[f.name] = ("full" if f.name == "retry_jitter" else
                           (not value) if isinstance(value, bool) else
                           (value or 0) + 7)
    policy = DownloadPolicy.from_config(Config(**changed), resume=True)
    for name, value in changed.items():
        assert getattr(policy, name) == value, name
    assert policy.resume
