"""The wais scheme (RFC 1738 3.9, Z39.50-1988 as WAIS speaks it): searches and documents.

``handler`` holds the handler the resolver dispatches to; ``spec`` the scheme's
descriptor (:class:`~anyurl.registry.spec.SchemeSpec`), which the registry reads;
``view`` its URL's parts as section 3 reads them, ``options`` its typed options,
``loopback`` a loopback server for tests and ``anyurl demo``.
"""
