"""The gopher scheme (RFC 1738 3.4, RFC 1436, Gopher+): menus, items, searches, rendering.

``handler`` holds the handler the resolver dispatches to; ``spec`` the scheme's
descriptor (:class:`~anyurl.registry.spec.SchemeSpec`), which the registry reads.
"""
