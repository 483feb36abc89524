"""The news and nntp schemes (RFC 1738 3.6, 3.7; RFC 3977): articles, groups, overviews;
split by idea as the http and ftp packages are.

====================  ==========================================================
``handler``           :class:`NewsHandler`: what a news: or nntp: URL means (an
                      article, a group listing, ``news:*``, a batch of articles),
                      the commands ``--plan`` shows, the resources it opens
``target``            what a URL asks of which server (:class:`Target`), and the
                      server a ``news:`` URL goes to (``news_server``)
``session``           one NNTP connection: the dialogue over the core, greeting,
                      CAPABILITIES, MODE READER, AUTHINFO, GROUP, responses as errors
``batch``             a server's articles with their ARTICLE commands pipelined
                      on one connection, replaced or made serial when it fails
``listings``          group listings (OVER) and ``news:*`` (LIST): streamed, rendered
                      as text or JSON, and read back into links
``spec``              the scheme's descriptor (:class:`~anyurl.registry.spec.SchemeSpec`),
                      which the registry reads
``view``              its URL's parts as section 3 reads them (``url.parts``)
``options``           its typed options (:mod:`anyurl.options` lends them)
``loopback``          a loopback server of the scheme, for tests and ``anyurl demo``
====================  ==========================================================
"""
