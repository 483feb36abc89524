"""The file scheme (RFC 1738 3.10): files of this machine.

``handler`` holds the handler the resolver dispatches to; ``spec`` the scheme's
descriptor (:class:`~anyurl.registry.spec.SchemeSpec`), which the registry reads;
``view`` its URL's parts as section 3 reads them.
"""
