"""The schemes anyurl knows, at the bottom of the house: each one's descriptor, by name.

====================  ==========================================================
``spec``              :class:`SchemeSpec`: what a scheme is, in one place
``index``             the built-in descriptors, the plug-ins' (entry points) and
                      those a program adds; looked up by name
====================  ==========================================================

The URL model asks it for a scheme's default port and view, and so does everything that
depends on a scheme (``-O`` names, the mirror, gateways, ``-u``, the demo): a plug-in's
descriptor is read as a built-in one is.
"""

from anyurl.registry.index import (
    BUILTIN_FLAGS,
    BUILTIN_SPECS,
    DEFAULT_PORTS,
    add,
    default_port,
    flagged,
    lender,
    lent_names,
    names,
    plugins,
    spec_for,
    specs,
)
from anyurl.registry.spec import (
    Crawl,
    CrawlFetch,
    DemoCase,
    DemoServer,
    Flags,
    RunState,
    SchemeSpec,
)

__all__ = [
    "BUILTIN_FLAGS",
    "BUILTIN_SPECS",
    "DEFAULT_PORTS",
    "Crawl",
    "CrawlFetch",
    "DemoCase",
    "DemoServer",
    "Flags",
    "RunState",
    "SchemeSpec",
    "add",
    "default_port",
    "flagged",
    "lender",
    "lent_names",
    "names",
    "plugins",
    "spec_for",
    "specs",
]
