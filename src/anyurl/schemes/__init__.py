"""The schemes: one package each, described to the rest of anyurl by :mod:`anyurl.registry`.

Each scheme lives in ``anyurl/schemes/<name>/``: its handler (what the resolver
dispatches to, driving its sans-I/O core of :mod:`anyurl.protocols`), its ``spec``, the
:class:`~anyurl.registry.spec.SchemeSpec` that says everything else anyurl needs to know
about it, its ``view`` (its URL's parts), its ``options`` and its ``loopback`` server.
:mod:`anyurl.registry` lists the built-in
descriptors and reads the third-party ones (``x-`` schemes too, RFC 1738 section 4)
from the ``anyurl.schemes`` entry-point group; :meth:`anyurl.Resolver.register` adds a
handler or a descriptor from a program. ``base`` is what every handler is; ``gateway``
serves any scheme through an HTTP gateway (section 4).
"""
