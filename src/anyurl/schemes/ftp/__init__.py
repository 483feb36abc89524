"""The ftp scheme (RFC 1738 3.2): a control connection kept logged in and positioned, data
connections, listings; split by idea as the http package is.

====================  ==========================================================
``handler``           :class:`FTPHandler`: what an ftp: URL means (the RFC 1738 3.2
                      program the core builds, walked step by step), the pool's user
``control``           one control connection: the command/reply dialogue over the
                      core, the login, the CWD steps walked, TYPE, reply errors
``reader``            the control connection's bytes into the core: on asyncio one
                      loop reader and one timer for the connection's life, else a
                      receive per wait; bounded
``data``              data connections (EPSV/PASV, EPRT/PORT) and a transfer
                      streamed into a resource or handed on as a raw body
``pool``              idle logged-in control connections per login, and expiry
``listings``          NLST/MLSD/LIST listings and a listing's entries as links
``spec``              the scheme's descriptor (:class:`~anyurl.registry.spec.SchemeSpec`),
                      which the registry reads
``view``              its URL's parts as section 3 reads them (``url.parts``)
``options``           its typed options (:mod:`anyurl.options` lends them)
``loopback``          a loopback server of the scheme, for tests and ``anyurl demo``
====================  ==========================================================
"""
