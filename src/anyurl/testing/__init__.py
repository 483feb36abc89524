"""Loopback servers for every scheme: for anyurl's tests, ``anyurl demo`` and users' tests.

Each module serves one protocol on 127.0.0.1 from a small data set, either in-process
(from a test fixture) or as ``python -m anyurl.testing.<protocol> --host H --port N``.
They exist for what no packaged server offers (Prospero, WAIS, the corners of
Gopher+) and so that the demo runs on a machine with nothing installed.
"""
