"""The options of gopher: URLs and Gopher+ (:class:`GopherOptions`), imported when first asked for
(:mod:`anyurl.options`, PEP 562).
"""

from __future__ import annotations

from dataclasses import dataclass

from anyurl.options import AnswerSource, SchemeOptions

__all__ = ["GopherOptions"]


@dataclass(frozen=True)
class GopherOptions(SchemeOptions):
    """gopher: URLs and Gopher+ (RFC 1738 3.4, RFC 1436)."""

    #: The Gopher+ view to fetch, ``'TYPE LANG'`` as in ``'text/plain De_DE'``.
    view: str | None = None
    #: Answers to a Gopher+ ``+ASK`` form.
    answers: AnswerSource | None = None
    #: Menus and attribute blocks rendered as text with URLs (True), or saved as the
    #: server framed them (False: the terminating ``.`` removed, dot-stuffing undone),
    #: which is what the command line writes to files and pipes (``--render`` forces it).
    render: bool = True
