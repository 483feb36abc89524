"""The prospero scheme (RFC 1738 3.11): directory service over ARDP, access methods.

``handler`` holds the handler the resolver dispatches to; ``spec`` the scheme's
descriptor (:class:`~anyurl.registry.spec.SchemeSpec`), which the registry reads;
``view`` its URL's parts as section 3 reads them, ``options`` its typed options,
``loopback`` a loopback server for tests and ``anyurl demo``.
"""
