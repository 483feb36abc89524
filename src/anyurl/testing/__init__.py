"""Loopback servers for anyurl's network schemes: for its tests, ``anyurl demo`` and yours.

Each scheme's own server lives in its package, as ``anyurl.schemes.<name>.loopback``,
serving 127.0.0.1 from a small data set:

* ``http.loopback``: ``http:`` (not ``https:``); ``serve_http`` (a task)
* ``ftp.loopback``: ``ftp:`` (needs pyftpdlib); ``running_ftp_server`` (a thread)
* ``gopher.loopback``: ``gopher:``, Gopher+; ``async with serve_gopherplus()``
* ``news.loopback``: ``news:``, ``nntp:``; ``NNTPServer().serve`` (a task), ``async with
  NNTPServer().open()``, ``NNTPServer().running()`` (a thread)
* ``wais.loopback``: ``wais:``; ``async with serve_wais()``
* ``prospero.loopback``: ``prospero:`` (ARDP over UDP); ``async with serve_prospero()``
* ``telnet.loopback``: ``telnet:``; ``async with open_telnet_server()``,
  ``running_telnet_server`` (a thread)
* ``mailto.loopback``: ``mailto:`` (the relay, SMTP); ``async with open_smtp_server()``,
  ``running_smtp_server`` (a thread)

A scheme's other test servers are in its package too: its servers that misbehave on
purpose (``anyurl.schemes.<name>.hostile``; FTP's ``hostile_tls`` fails ``AUTH TLS``), and
HTTP's gateway (``http.gateway``, RFC 1738 section 4: ``Gateway()``, a thread) and h2c
server (``http.h2c``: switching to HTTP/2 on ``Upgrade: h2c``, needs h2: ``serve_h2c``, a
task).

This package holds what is no one scheme's: ``_server``, the shapes every server shares
(the listener, the task, context-manager and thread forms, the command line);
:mod:`.hostile`, the machinery of a misbehaving server and every scheme's misbehaviours
gathered through the registry (:mod:`.hostile_numbers`: those whose numbers are not ASCII
digits); :mod:`.hostile_socks`, SOCKS proxies that lie. Each server module holds only its
protocol.

``file:`` needs no server, and ``https:`` has none here (the integration tests use nginx).
Each binds port 0 (a free port) unless told otherwise and says which port it got: a task
hands it to ``task_group.start``, a context manager yields a server whose ``port`` it
is (``running_ftp_server`` yields the port itself). The anyio ones run on asyncio and
trio alike; the thread forms serve from a thread of their own, so a synchronous test can
use them too. Each also runs on its own as ``python -m <module> --host H --port N`` (how
``anyurl demo`` starts them; the ones on anyio take ``--backend trio``) until Ctrl-C stops
it. They exist for what no packaged server offers (Prospero, WAIS, the corners of
Gopher+) and so that the demo and a user's tests run on a machine with nothing installed.
"""
