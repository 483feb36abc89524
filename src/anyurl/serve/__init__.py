"""``anyurl serve``: every scheme in a web browser, live or replayed from a WARC archive.

A local web gateway in the sense of RFC 1738 section 4: ``http://127.0.0.1:PORT/<URL>``
shows any URL anyurl can fetch (Gopher menus, FTP listings, newsgroups, WAIS searches,
Prospero directories) as an HTML page whose links lead back through the gateway, and a
proxy request (``GET gopher://host/1/ HTTP/1.1``) gets the resource's bytes, so HTTP-only
clients (``curl -x``) reach every scheme. With WARC files it replays what
``anyurl mirror --warc`` archived, every scheme's records, without the network.

* :mod:`anyurl.serve.app`: the ASGI application (Starlette) behind its door (Host,
  token, limits), and how hypercorn serves it on asyncio or trio;
* :mod:`anyurl.serve.html`: the pages, made of each handler's ``render`` and ``links``;
* :mod:`anyurl.serve.replay`: the archive's index and records;
* :mod:`anyurl.serve.site`: an archived web site replayed as the site (its pages in a
  frame under the banner, their URLs rewritten into the replay, as pywb replays them, by
  the ``replay`` module the scheme's descriptor names: :mod:`anyurl.schemes.http.replay`).

Starlette, hypercorn, warcio and tinycss2 come with the ``serve`` extra
(``pip install 'anyurl[serve]'``).
"""

from __future__ import annotations

__all__: list[str] = []
