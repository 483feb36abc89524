"""The scheme registry: every scheme's :class:`~anyurl.registry.spec.SchemeSpec`, by name.

The registry's list of the built-in schemes is :data:`BUILTIN_SPECS` (name to the module
that holds its ``SPEC``, or ``SPECS`` when it describes several), and of their
command-line flags :data:`BUILTIN_FLAGS` (the light modules the descriptors take their
``flags`` from); a plug-in adds its own through the ``anyurl.schemes`` entry-point group,
whose value is a ``SchemeSpec`` (or, as before descriptors existed, a handler class: it
gets a descriptor with its names only). What depends on a scheme (the URL's default port
and view, the views' and options' names that :mod:`anyurl.url` and :mod:`anyurl.options`
lend (:func:`lender`), ``-O`` names, the mirror, gateways, ``-u``, the browser gateway,
the demo, the command line's hints and each scheme's flags (:func:`flagged`)) asks here,
so a plug-in gets what a built-in gets; the URL parser asks each scheme's view module
for its part of section 5's grammar (:mod:`anyurl.url.grammar`). Other parts of anyurl
still know some built-in schemes by name (public fields and keys named after one, a
scheme's own that another protocol's data names), which
``tests/unit/test_architecture.py`` lists (``NAMED_ELSEWHERE``, a list that only shrinks).

It sits at the bottom of the house: it imports only the descriptor type, and loads a
scheme's ``spec`` module (which may import the URL model) when that scheme is first
asked for, never at import time. Entry points are read only for a name no built-in has
(reading them costs a noticeable part of a short run's start-up).
"""

from __future__ import annotations

import importlib
import itertools
from collections.abc import Iterator, Mapping
from typing import Literal

from anyurl.registry.spec import Flags, SchemeSpec

__all__ = ["BUILTIN_FLAGS", "BUILTIN_SPECS", "DEFAULT_PORTS", "add", "default_port", "flagged",
           "lender", "lent_names", "names", "plugins", "spec_for", "specs"]

#: The built-in schemes: each name and the module whose ``SPEC`` describes it.
BUILTIN_SPECS: dict[str, str] = {
    "file": "anyurl.schemes.file.spec",
    "ftp": "anyurl.schemes.ftp.spec",
    "ftps": "anyurl.schemes.ftp.spec",
    "gopher": "anyurl.schemes.gopher.spec",
    "http": "anyurl.schemes.http.spec",
    "https": "anyurl.schemes.http.spec",
    "mailto": "anyurl.schemes.mailto.spec",
    "news": "anyurl.schemes.news.spec",
    "nntp": "anyurl.schemes.news.spec",
    "nntps": "anyurl.schemes.news.spec",
    "snews": "anyurl.schemes.news.spec",
    "prospero": "anyurl.schemes.prospero.spec",
    "telnet": "anyurl.schemes.telnet.spec",
    "wais": "anyurl.schemes.wais.spec",
}

#: The built-in schemes' command-line flags: each scheme that has its own, and the module
#: whose ``FLAGS`` its descriptor's :attr:`~SchemeSpec.flags` are. Those modules are
#: light (argparse's calls; a scheme's options made when given), so the command line
#: reads every scheme's flags without loading a descriptor, its view or its options.
BUILTIN_FLAGS: dict[str, str] = {
    "ftp": "anyurl.schemes.ftp.flags",
    "gopher": "anyurl.schemes.gopher.flags",
    "http": "anyurl.schemes.http.flags",
    "mailto": "anyurl.schemes.mailto.flags",
    "news": "anyurl.schemes.news.flags",
    "prospero": "anyurl.schemes.prospero.flags",
    "telnet": "anyurl.schemes.telnet.flags",
}

_loaded: dict[str, SchemeSpec] = {}
_added: dict[str, SchemeSpec] = {}
_plugins: dict[str, SchemeSpec] | None = None


def _builtin(name: str) -> SchemeSpec | None:
    module = BUILTIN_SPECS.get(name)
    if module is None:
        return None
    spec = _loaded.get(name)
    if spec is None:
        loaded = importlib.import_module(module)
        for found in getattr(loaded, "SPECS", None) or (loaded.SPEC,):
            if not isinstance(found, SchemeSpec):
                raise TypeError(f"{module} describes {found!r}, not a SchemeSpec")
            for each in found.names:
                _loaded[each] = found
        spec = _loaded[name]
    return spec


def _from_entry_point(name: str, value: object) -> SchemeSpec:
    if isinstance(value, SchemeSpec):
        return value
    if isinstance(value, type):  # a handler class, as plug-ins were published before
        names = tuple(getattr(value, "schemes", ()) or (name,))
        return SchemeSpec(names=names if name in names else (name, *names), handler=value)
    raise TypeError(f"the anyurl.schemes entry point {name!r} is neither a SchemeSpec "
                    "nor a handler class")


def _plugin_specs() -> dict[str, SchemeSpec]:
    global _plugins
    if _plugins is None:
        from importlib.metadata import entry_points

        found: dict[str, SchemeSpec] = {}
        for ep in entry_points(group="anyurl.schemes"):
            name = ep.name.lower()
            if name in BUILTIN_SPECS:
                continue  # a plug-in does not replace a built-in (Resolver.register does)
            found[name] = _from_entry_point(name, ep.load())
        _plugins = found
    return _plugins


def spec_for(scheme: str) -> SchemeSpec | None:
    """The descriptor of ``scheme`` (lower case): added, built-in or plug-in; else None."""
    spec = _added.get(scheme) or _loaded.get(scheme) or _builtin(scheme)
    if spec is None:
        spec = _plugin_specs().get(scheme)
    return spec


def add(spec: SchemeSpec) -> None:
    """Make ``spec`` known under each of its names, for the whole process (a program's
    own scheme, as an entry point would): parsing, ports, names and the mirror see it."""
    for name in spec.names:
        _added[name.lower()] = spec


def names() -> list[str]:
    """Every scheme name known: built-in, plug-in and added, sorted."""
    return sorted({*BUILTIN_SPECS, *_plugin_specs(), *_added})


def plugins(*, installed: bool = True) -> list[SchemeSpec]:
    """The descriptors that are not built in, each once: those a program added, and with
    ``installed`` the entry points' (reading them costs a short run's start-up, so the
    command line reads them only for ``--help`` or a flag it does not know)."""
    found = [*_added.values(), *(_plugin_specs().values() if installed else ())]
    unique = {id(spec): spec for spec in found if spec.names[0] not in BUILTIN_SPECS}
    return list(unique.values())


def flagged(*, installed: bool = True) -> list[tuple[str, str, Flags]]:
    """Every scheme's own command-line flags, as ``(name, summary, flags)``: the
    built-ins' (read from :data:`BUILTIN_FLAGS`, without their descriptors), then the
    plug-ins' (:func:`plugins`: ``installed`` reads the entry points)."""
    found: list[tuple[str, str, Flags]] = []
    for name, module in BUILTIN_FLAGS.items():
        flags = importlib.import_module(module).FLAGS
        if not isinstance(flags, Flags):
            raise TypeError(f"{module} declares {flags!r}, not Flags")
        found.append((name, "", flags))
    found += [(spec.name, spec.summary, spec.flags) for spec in plugins(installed=installed)
              if spec.flags is not None]
    return found


def specs() -> Iterator[SchemeSpec]:
    """Each known descriptor once, in the order of its first name."""
    seen: set[int] = set()
    for name in names():
        spec = spec_for(name)
        if spec is not None and id(spec) not in seen:
            seen.add(id(spec))
            yield spec


#: A descriptor's field naming a module whose ``__all__`` a package of anyurl re-exports.
Lent = Literal["view_module", "options_module"]


def _exporting(spec: SchemeSpec, field: Lent) -> tuple[str, list[str]] | None:
    module = getattr(spec, field)
    if not module:
        return None
    return module, list(getattr(importlib.import_module(module), "__all__", ()))


def lender(name: str, field: Lent, guess: str = "") -> str | None:
    """The module that exports ``name`` among the descriptors' ``field`` modules (their
    views, their options), or None: the scheme ``guess`` (what the name reads as, so one
    lookup costs one scheme) is asked first, then every known one."""
    first = spec_for(guess) if guess in BUILTIN_SPECS or guess in _added else None
    for spec in itertools.chain((first,) if first else (), specs()):
        found = _exporting(spec, field)
        if found is not None and name in found[1]:
            return found[0]
    return None


def lent_names(field: Lent) -> dict[str, str]:
    """Every name the known descriptors' ``field`` modules export, with its module (it
    imports them all)."""
    lent: dict[str, str] = {}
    for spec in specs():
        found = _exporting(spec, field)
        if found is not None:
            lent.update(dict.fromkeys(found[1], found[0]))
    return lent


def default_port(scheme: str) -> int | None:
    """The port a URL of ``scheme`` without one connects to, or None."""
    spec = spec_for(scheme)
    return spec.default_port if spec is not None else None


class _DefaultPorts(Mapping[str, int]):
    """The default ports of every known scheme, read from the descriptors as asked."""

    def __getitem__(self, scheme: str) -> int:
        port = default_port(scheme)
        if port is None:
            raise KeyError(scheme)
        return port

    def get(self, scheme: str, default: int | None = None) -> int | None:  # type: ignore[override]
        """The default port of ``scheme``, else ``default`` (without a KeyError raised
        and caught: a URL's port is looked up here every time it is used)."""
        port = default_port(scheme)
        return default if port is None else port

    def __iter__(self) -> Iterator[str]:
        return (name for name in names() if default_port(name) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: ``{scheme: port}`` of every known scheme with a network default (RFC 1738 section 3).
DEFAULT_PORTS: Mapping[str, int] = _DefaultPorts()
