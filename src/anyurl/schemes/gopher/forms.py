"""Gopher+ forms (an item marked ``?``): the ``+ASK`` block, the answers, the filled-in
form of RFC 1738 3.4.9.

A form is done in two connections: the item's ``!`` attributes for its ``+ASK`` block,
then the request with a data block of one line per answer. The answers come from
``GopherOptions.answers``: a mapping {prompt: value}, or a callback (sync or async)
given the :class:`~anyurl.protocols.gopher.AskForm` that returns one. ``AskP`` answers
are shown as ``****`` in the trace. The answer to the form is a menu or an item like
any other.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import anyio

from anyurl.config import Config
from anyurl.errors import AnyURLError, ProtocolError
from anyurl.net.transport import Dialer
from anyurl.protocols.gopher import (
    MENU_TYPES,
    AskForm,
    FormError,
    Framing,
    ItemAttributes,
    answer_lines,
    build_request,
    form_request,
    framing_for_type,
    parse_attributes,
    parse_menu,
)
from anyurl.resource import Resource
from anyurl.schemes.base import FetchOptions
from anyurl.schemes.gopher.content import content
from anyurl.schemes.gopher.exchange import collect, raise_error_item, send
from anyurl.schemes.gopher.menus import menu
from anyurl.schemes.gopher.options import GopherOptions
from anyurl.schemes.gopher.view import GopherPath
from anyurl.url import URL

__all__ = ["fill_in"]


async def fill_in(dialer: Dialer, config: Config, url: URL, parts: GopherPath,
                  search: str | None, options: FetchOptions) -> Resource:
    """The answer to the form of ``url``, filled in from ``options``' answers; connections
    are made with ``dialer`` and ``config``'s timeouts."""
    wire = build_request(GopherPath(parts.gophertype, parts.selector, None, None),
                         gopher_plus="!")
    attrs_exchange = await send(dialer, config, url, wire, options, Framing.DOT,
                                gopher_plus=True)
    body = await collect(attrs_exchange)
    attrs = parse_attributes(body)
    if not attrs:
        raise_error_item(url, parse_menu(body))
    form = _find_form(attrs, parts.selector)
    if form is None:
        raise ProtocolError(
            f"{url.masked()} is marked as a Gopher+ form (?) but its attributes have no "
            "+ASK block",
            url=url,
            hint="Fetch it without the form: replace the final ? of the URL with +.",
        )
    lines, file, secrets = await _answers(url, form, options)
    view = options.get(GopherOptions).view or ""
    wire = form_request(parts.selector, lines, file=file, search=search or None,
                        view=str(view))
    head = wire.split(b"\r\n", 1)[0] + b"\r\n"
    shown = [("****" if line in secrets else line) for line in lines]
    exchange = await send(dialer, config, url, head, options,
                          framing_for_type(parts.gophertype), gopher_plus=True)
    try:
        for line in ["+-1", *shown, "."]:
            exchange.trace(f"> {line}")
        await exchange.stream.send(wire[len(head):])
    except BaseException:
        with anyio.CancelScope(shield=True):
            await exchange.stream.aclose()
        raise
    if parts.gophertype in MENU_TYPES:
        return await menu(exchange)
    return await content(exchange, parts, str(view).split(" ")[0] or None)


def _find_form(attrs: tuple[ItemAttributes, ...], selector: str) -> AskForm | None:
    ordered = sorted(attrs, key=lambda a: a.info is None or a.info.selector != selector)
    for item in ordered:
        if item.ask is not None:
            return item.ask
    return None


async def _answers(url: URL, form: AskForm,
                   options: FetchOptions) -> tuple[list[str], bytes | None, set[str]]:
    """The data block lines, the file, and the AskP answers (masked in the trace)."""
    source = options.get(GopherOptions).answers
    prompts = ", ".join(repr(q.prompt) for q in form.answerable)
    if source is None:
        raise AnyURLError(
            f"{url.masked()} is a Gopher+ form asking {prompts}, and no answers were given",
            url=url,
            hint="Give the answers as GopherOptions(answers=...), a mapping of each "
            "prompt to its answer.", remedy=("answers",),
        )
    answers: Any = source
    if callable(source):
        answers = source(form)
        if inspect.isawaitable(answers):
            answers = await answers
    if not isinstance(answers, Mapping):
        raise AnyURLError(f"the answers for the form of {url.masked()} are not a mapping "
                          "of prompt to answer", url=url)
    answers = dict(answers)
    for q in form.answerable:
        value = answers.get(q.prompt)
        if q.kind == "ChooseF" and isinstance(value, str):
            answers[q.prompt] = await anyio.Path(value).read_bytes()
    secrets = {str(answers[q.prompt]) for q in form.answerable
               if q.secret and answers.get(q.prompt)}
    try:
        lines, file = answer_lines(form, answers)
    except FormError as exc:
        raise AnyURLError(
            f"the answers do not fill in the form of {url.masked()}: {exc}", url=url,
            hint=f"The form asks {prompts}; give each in GopherOptions(answers=...).",
            remedy=("answers_prompts", prompts),
        ) from None
    return lines, file, secrets
