"""The ftp scheme (RFC 1738 3.2): a control connection kept logged in and positioned, data
connections, listings.

``handler`` holds the handler the resolver dispatches to; ``spec`` the scheme's
descriptor (:class:`~anyurl.schemes.spec.SchemeSpec`), which the registry reads.
"""
