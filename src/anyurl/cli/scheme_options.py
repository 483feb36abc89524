"""Command-line options that reach one scheme's handler (:mod:`anyurl.options`).

The flags several schemes share under curl's names (``-d``, ``-I``, ``-r``, ``-k``,
``--cacert``, ``--capath``, ``--ssl``, ``--ssl-reqd``, the proxies) are defined here.
Every scheme's own flags are its descriptor's :class:`~anyurl.registry.Flags` (a
built-in's in ``anyurl/schemes/<name>/flags.py``, HTTP's curl request options among
them; a plug-in's in its package): :func:`add_scheme_flags` adds each as a group of
``--help``, and :func:`flag_options` asks each for the options it makes of the
namespace, its own flags and the shared ones, as a plug-in's are asked. What a scheme's
flags ask the run to keep (HTTP's cookie jar of ``-b FILE``/``-c FILE``: its
:attr:`~anyurl.registry.Flags.state`) the command keeps, and has written back when the
run ends (:func:`flag_state`, :func:`save_state`); the crawl's settings a scheme's
``mirror`` flags set (Gopher's ``--gopher-views``) go to the mirror as they are
(:func:`flag_mirror`).
``--gateway`` adds an HTTP gateway for a scheme (RFC 1738 section 4) over the
``<scheme>_proxy`` environment variables and the config file.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from anyurl.cli.common import late_help, print_error
from anyurl.config import Config
from anyurl.errors import AnyURLError
from anyurl.numbers import ascii_int
from anyurl.options import SchemeOptions

if TYPE_CHECKING:
    from collections.abc import Callable

    from anyurl.registry import Flags, RunState

__all__ = ["add_scheme_arguments", "add_scheme_flags", "add_verify_arguments",
           "apply_to_config", "flag_mirror", "flag_options", "flag_state", "save_state",
           "scheme_options", "verify_options"]


def add_scheme_arguments(p: argparse.ArgumentParser) -> None:
    """The flags several schemes share under curl's names (``-d``, ``-I``, ``-r``, the
    certificate checks, ``--ssl``, the proxies) and ``--gateway``; each scheme's own
    are its descriptor's (:func:`add_scheme_flags`)."""
    g = p.add_argument_group("scheme options")
    h = p.add_argument_group("requests (curl's options)")
    shared(h.add_argument("-d", "--data", metavar="TEXT", action="append", default=[],
                          help="TEXT for the request"))
    shared(h.add_argument("-I", "--head", action="store_true",
                          help="the response head only"))
    shared(h.add_argument("-r", "--range", metavar="FIRST-[LAST]",
                          help="only these bytes (0-499, 500-)"),
           "only these bytes (0-499, 500-): ")
    add_verify_arguments(h)
    add_tls_arguments(g)
    add_proxy_arguments(g)
    late_help(g.add_argument("--gateway", metavar="SCHEME=URL", action="append", default=[],
                             help="fetch SCHEME URLs through the gateway at URL"), gateway_help)


def shared(action: argparse.Action, before: str = "", after: str = "") -> None:
    """Give a flag several schemes share the help of what it means for each (their
    flags' :attr:`~anyurl.registry.Flags.shared_help`), made when help is shown."""
    flag = next(option for option in action.option_strings if option.startswith("--"))

    def made() -> str:
        from anyurl.registry import flagged

        each = "; ".join(f"{name}: {flags.shared_help[flag]}"
                         for name, _, flags in flagged(installed=False)
                         if flag in flags.shared_help)
        return f"{before}{each}{after}"

    late_help(action, made)


def gateway_help() -> str:
    """``--gateway``'s help: a gateway is a URL of the gateway schemes
    (:data:`~anyurl.net.routing.GATEWAY_URL_SCHEMES`), for a scheme that has one."""
    from anyurl.net.routing import GATEWAY_URL_SCHEMES, gateway_schemes

    plain = GATEWAY_URL_SCHEMES[0]
    example = next((name for name in gateway_schemes() if name not in GATEWAY_URL_SCHEMES),
                   "SCHEME")
    return (f"fetch SCHEME URLs through the {plain.upper()} gateway at URL (like "
            f"{example}_proxy=URL; 'tunnel+{plain}://...' for CONNECT)")


def proxy_help() -> str:
    """``-x``'s help: a gateway of the gateway schemes, or a SOCKS proxy."""
    from anyurl.net.routing import GATEWAY_URL_SCHEMES, SOCKS_SCHEMES

    plain, tunnelled = GATEWAY_URL_SCHEMES
    socks = ", ".join(f"{name}://" for name in SOCKS_SCHEMES[:-1])
    return (f"reach every URL through this {plain.upper()} proxy, as curl's -x: {plain} "
            f"and the other schemes as GET URL, {tunnelled} through CONNECT; over the "
            "*_proxy environment variables and the config file ('' for none); "
            f"{socks} or {SOCKS_SCHEMES[-1]}://HOST:PORT: through that SOCKS proxy, each "
            "scheme speaking its own protocol")


def _tls_names() -> str:
    """The names of the schemes in TLS from the first byte (their descriptors'
    ``plain_names``), as a help text lists them."""
    from anyurl.registry import specs

    return ", ".join(name for spec in specs() for name in spec.plain_names)


def add_verify_arguments(h: Any) -> None:
    """curl's checks of the server's certificate, ``-k``, ``--cacert`` and ``--capath``:
    the one definition ``get``, ``mirror`` and ``serve`` share (``anyurl.net.tls``);
    :func:`verify_options` reads them."""
    late_help(h.add_argument("-k", "--insecure", action="store_true",
                             help="do not verify the server's certificate"),
              lambda: f"{_tls_names()}: do not verify the server's certificate")
    late_help(h.add_argument("--cacert", metavar="FILE",
                             help="trust the CA certificates in FILE"),
              lambda: f"{_tls_names()}: trust the CA certificates in FILE")
    late_help(h.add_argument("--capath", metavar="DIR",
                             help="trust the CA certificates in DIR"),
              lambda: f"{_tls_names()}: trust the CA certificates in DIR")


def verify_options(args: argparse.Namespace) -> tuple[SchemeOptions, ...]:
    """The certificate checks of :func:`add_verify_arguments` as the options of every
    scheme that speaks TLS, those each scheme's flags make of them (:func:`flag_options`);
    () when none was given."""
    if not (args.insecure or args.cacert or args.capath):
        return ()
    return tuple(flag_options(args))


def add_scheme_flags(p: argparse.ArgumentParser, command: str, *, installed: bool) -> None:
    """Each scheme's own flags, in a group of its own (its descriptor's
    :class:`~anyurl.registry.Flags`, as pytest's ``pytest_addoption``), built-in and
    plug-in alike, for the schemes whose flags are ``command``'s: the built-ins', those
    a program added, and with ``installed`` the entry points' (read only when asked:
    ``--help``, or a flag the built-in parser does not know). :func:`flag_options` asks
    each of them for its options, and the others for those the shared flags make."""
    from anyurl.registry import flagged

    found = flagged(installed=installed)
    for name, summary, flags in found:
        if command in flags.commands:
            add = flags.add_for.get(command, flags.add)
            add(p.add_argument_group(f"{name} options", summary or None))
    p.set_defaults(scheme_flags=(command, tuple(flags for _, _, flags in found)))


def add_tls_arguments(g: Any) -> None:
    """TLS with curl's names for it: one option for every scheme that starts TLS on a
    plain connection (FTP's AUTH TLS, RFC 4217; NNTP's STARTTLS, RFC 4642), whose flags
    read it (:class:`~anyurl.registry.Flags`)."""
    shared(g.add_argument("--ssl", dest="tls", action="store_const", const="try",
                          default="", help="TLS when the server offers it"))
    shared(g.add_argument("--ssl-reqd", dest="tls", action="store_const", const="require",
                          help="TLS, or fail (exit 64) before any login"),
           after=", or fail (exit 64) before any login")


def add_proxy_arguments(g: Any) -> None:
    """curl's proxy options: ``-x`` (an HTTP gateway, or a SOCKS proxy), ``--noproxy``
    and the SOCKS options."""
    late_help(g.add_argument("-x", "--proxy", metavar="URL",
                             help="reach every URL through this proxy, as curl's -x"),
              proxy_help)
    for option, scheme in SOCKS_OPTIONS.items():
        g.add_argument(option, metavar="[USER:PASSWORD@]HOST[:PORT]", dest=option[2:].replace(
            "-", "_"), help=f"as -x {scheme}://HOST:PORT (curl's {option}; over -x)")
    g.add_argument("--noproxy", metavar="HOST,...",
                   help="hosts reached directly, not through a proxy (curl's syntax: "
                   "names with their subdomains, addresses, CIDR blocks, '*'); over "
                   "no_proxy")


def scheme_options(args: argparse.Namespace, *, json_data: Sequence[str] = (),
                   state: Sequence[RunState] = ()) -> tuple[SchemeOptions, ...]:
    """The typed handler options the command line asks for (read once, shared by all URLs).

    Only the schemes whose options differ from their defaults are included; every
    handler takes its own class from ``FetchOptions.schemes`` and ignores the others.
    Each scheme makes its own of the namespace (:func:`flag_options`), importing its
    class only when its options are given; what the command read besides goes with the
    namespace to them: ``json_data``, curl's ``--json DATA``, and what the run keeps
    (``state``, of :func:`flag_state`), each under its name (HTTP's cookie jar as
    ``cookie_file``).
    """
    kept = {each.name: each.value for each in state}
    return tuple(flag_options(argparse.Namespace(**vars(args), json_data=tuple(json_data),
                                                 **kept)))


def flag_state(args: argparse.Namespace, warn: Callable[[str], None] | None, *,
               spread: str | None = None) -> tuple[RunState, ...]:
    """What the schemes' flags ask the run to keep for all its transfers (their
    :attr:`~anyurl.registry.Flags.state`: HTTP's cookie jar of ``-b FILE``/``-c FILE``),
    ``warn`` saying what a scheme skips. ``spread``: the flag given that spreads the run
    over several processes (``--dask``), which refuses them (ValueError): one process
    keeps what they keep."""
    command, flagged = _scheme_flags(args)
    state = tuple(kept for flags in flagged
                  if flags.state is not None and command in flags.commands
                  for kept in (flags.state(args, warn),) if kept is not None)
    if state and spread:
        raise ValueError(f"{state[0].flags} keep {state[0].what} in this process; they "
                         f"cannot be used with {spread}")
    return state


def save_state(state: Sequence[RunState], *, shows_errors: bool) -> int:
    """What the run kept written back when it ends, failed or not (``-c FILE``: its
    cookies, as curl does): 0, or the first failure's exit status (23 for a file that
    cannot be written), said on stderr when ``shows_errors``."""
    status = 0
    for kept in state:
        if kept.save is None:
            continue
        try:
            kept.save()
        except AnyURLError as error:
            code = print_error(error) if shows_errors else error.exit_code
            status = status or code
    return status


def _scheme_flags(args: argparse.Namespace) -> tuple[str, tuple[Flags, ...]]:
    """The command and every scheme's flags that :func:`add_scheme_flags` gave it."""
    found: tuple[str, tuple[Flags, ...]] = getattr(args, "scheme_flags", ("", ()))
    return found


def flag_options(args: argparse.Namespace) -> list[SchemeOptions]:
    """The options each scheme makes of the namespace (:func:`add_scheme_flags`): of its
    own flags and the shared ones where the command has its flags (its
    :attr:`~anyurl.registry.Flags.options`), of the shared ones alone elsewhere (its
    :attr:`~anyurl.registry.Flags.shared`); for ``get``, ``mirror`` and ``serve`` alike."""
    command, flagged = _scheme_flags(args)
    given: list[SchemeOptions] = []
    for flags in flagged:
        make = (flags.options_for.get(command, flags.options) if command in flags.commands
                else flags.shared)
        own = make(args) if make is not None else None
        if own is not None:
            given.append(own)  # type: ignore[arg-type]  # a SchemeOptions, said as DemoOptions
    return given


def flag_config(args: argparse.Namespace) -> dict[str, Any]:
    """The run's configuration that the schemes' own flags set (``--nntp-server``)."""
    command, flagged = _scheme_flags(args)
    changes: dict[str, Any] = {}
    for flags in flagged:
        if flags.config is not None and command in flags.commands:
            changes.update(flags.config(args))
    return changes


def flag_mirror(args: argparse.Namespace) -> dict[str, Any]:
    """The crawl's settings that the schemes' own ``mirror`` flags set (Gopher's
    ``--gopher-views``, FTP's ``--retr-symlinks``): :class:`~anyurl.mirror.MirrorOptions`
    fields and their values, each scheme's :attr:`~anyurl.registry.Flags.mirror`."""
    command, flagged = _scheme_flags(args)
    changes: dict[str, Any] = {}
    for flags in flagged:
        if flags.mirror is not None and command == "mirror" and command in flags.commands:
            changes.update(flags.mirror(args))
    return changes


#: curl's SOCKS options and the proxy scheme each means (``--socks5-hostname H:P`` is
#: ``-x socks5h://H:P``).
SOCKS_OPTIONS = {"--socks5-hostname": "socks5h", "--socks5": "socks5",
                 "--socks4a": "socks4a", "--socks4": "socks4"}


def _proxy_given(args: argparse.Namespace) -> str | None:
    """The proxy of ``-x``, or of a SOCKS option, which wins over it as in curl (they
    are mutually exclusive there, the last one counting)."""
    for option, scheme in SOCKS_OPTIONS.items():
        value = getattr(args, option[2:].replace("-", "_"), None)
        if value:
            return value if "://" in value else f"{scheme}://{value}"
    proxy: str | None = getattr(args, "proxy", None)
    return proxy


def apply_to_config(args: argparse.Namespace, config: Config) -> Config:
    """Gateways: the config file's, then ``-x``/``--noproxy`` and ``--gateway`` (last
    wins). The environment's (``<scheme>_proxy``, ``all_proxy``, ``no_proxy``) come
    below them all, read by the :class:`~anyurl.resolver.Resolver` (``trust_env``)."""
    gateways = dict(config.gateways)
    proxy = _proxy_given(args)
    if proxy is not None:
        from anyurl.net.routing import with_proxy

        gateways = with_proxy(gateways, proxy)  # a malformed one is refused here
        if not proxy.strip():  # curl's -x "": no proxy, the environment's neither
            config = config.replace(trust_env=False)
    noproxy = getattr(args, "noproxy", None)
    if noproxy is not None:
        gateways["no_proxy"] = noproxy
    for spec in args.gateway:
        scheme, sep, url = spec.partition("=")
        if not sep or not scheme or not url:
            raise ValueError(f"--gateway wants SCHEME=URL, not {spec!r}")
        gateways[scheme.lower()] = url
    return config.replace(gateways=gateways, **flag_config(args))


def byte_range(text: str | None) -> tuple[int, int | None] | None:
    """``-r FIRST-[LAST]`` as (first, last or None); ValueError for anything else."""
    if text is None:
        return None
    first_text, dash, last = text.strip().partition("-")
    first, end = ascii_int(first_text), ascii_int(last) if last else None
    if not dash or first is None or (last and end is None):
        raise ValueError(f"-r {text!r}: a range is FIRST-LAST or FIRST- (bytes, from 0)")
    if end is not None and end < first:
        raise ValueError(f"-r {text!r}: the last byte comes before the first")
    return first, end
