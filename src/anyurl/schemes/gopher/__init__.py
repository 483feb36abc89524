"""The gopher scheme (RFC 1738 3.4, RFC 1436, Gopher+): menus, items, searches, forms,
rendering; split by idea as the http and ftp packages are.

====================  ==========================================================
``handler``           :class:`GopherHandler`: what a gopher: URL means (type,
                      selector, search, Gopher+ string, view), what cannot be
                      fetched, links and telnet items; ``plan()`` and ``open()``
``exchange``          one request on one connection: the dialogue over the core,
                      an answer held whole or passed on as sent, error answers
``menus``             menus streamed and rendered (text, JSON) item by item
``content``           text and binary items streamed, the error-item peek
``attributes``        Gopher+ attribute answers (``!``, ``$``), parsed and rendered
``forms``             Gopher+ ``+ASK`` forms: the block, the answers, the filled-in form
``menu_links``        a menu or attribute block as sent, read back: its links for a
                      mirror, its rendering
``render``            menus and attributes as readable text, for a terminal
``spec``              the scheme's descriptor (:class:`~anyurl.registry.spec.SchemeSpec`),
                      which the registry reads
``view``              its URL's parts as section 3 reads them (``url.parts``)
``options``           its typed options (:mod:`anyurl.options` lends them)
``loopback``          a loopback server of the scheme, for tests and ``anyurl demo``
====================  ==========================================================
"""
