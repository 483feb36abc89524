"""The news and nntp schemes (RFC 1738 3.6, 3.7; RFC 3977): articles, groups, overviews.

``handler`` holds the handler the resolver dispatches to; ``spec`` the scheme's
descriptor (:class:`~anyurl.registry.spec.SchemeSpec`), which the registry reads.
"""
