"""The gate's policy flags, the same in every command that opens URLs.

``--allow-port`` (RFC 1738 section 6: a port of another protocol) and ``--proto``
(curl's: the schemes this run may open) both set policy that the resolver's gate
applies to every URL, typed or derived; ``get``, ``mirror`` and ``serve`` add them here
so that their names, help and meaning cannot drift apart.
"""

from __future__ import annotations

import argparse
from typing import Any

from anyurl.cli.common import late_help
from anyurl.cli.numbers import port_number
from anyurl.config import Config
from anyurl.scheme_policy import SchemePolicy

__all__ = ["add_policy_flags", "apply_policy_flags"]


def add_policy_flags(group: argparse._ActionsContainer) -> None:
    """Add ``--allow-port`` and ``--proto`` to ``group``."""
    group.add_argument("--allow-port", metavar="PORT", type=port_number, action="append",
                       default=[],
                       help="allow a port that belongs to another protocol (section 6)")
    proto = group.add_argument("--proto", metavar="PROTOCOLS", action="append", default=[],
                               help="the schemes this run may open, for every URL "
                               "(redirects, follows and a mirror's links too), in curl's "
                               "syntax")
    late_help(proto, _proto_help)


def _proto_help() -> str:
    """``--proto``'s help, its examples of curl's syntax written with the registry's
    names: the scheme a host written without one is (and its name over TLS), another."""
    from anyurl.registry import specs

    known = list(specs())
    first = next((spec for spec in known if "" in spec.host_prefixes), known[0])
    pair = [first.name, *(name for spec in known for name, plain in spec.plain_names.items()
                          if plain == first.name)][:2]
    other = next((spec.name for spec in known
                  if spec.name not in pair and spec.default_port is not None), first.name)
    return ("the schemes this run may open, for every URL (redirects, follows and a "
            f"mirror's links too), in curl's syntax: '={','.join(pair)}', '-file', "
            f"'-all,+{other}'")


def apply_policy_flags(args: argparse.Namespace, config: Config) -> Config:
    """``config`` with the command line's ``--allow-port`` and ``--proto``."""
    changes: dict[str, Any] = {}
    if args.allow_port:
        changes["allowed_ports"] = config.allowed_ports | frozenset(args.allow_port)
    policy: SchemePolicy = config.protocols
    for text in args.proto:
        policy = SchemePolicy.parse(text, policy)
    if policy != config.protocols:
        changes["protocols"] = policy
    return config.replace(**changes) if changes else config
