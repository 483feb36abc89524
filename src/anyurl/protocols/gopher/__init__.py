"""Gopher (RFC 1436) and Gopher+ as a sans-I/O core: request bytes out, response events in.

Split by idea:

==============  ==================================================================
``requests``    selector lines and +ASK data blocks (what the client sends)
``framing``     how a response ends, and :class:`ResponseReader`, the h11-style reader
``menus``       menu lines and their URLs
``plus``        Gopher+ attributes and +ASK forms
``errors``      the core's errors, by side
==============  ==================================================================

Presentation (menus and attributes as text) is the handler's
(:mod:`anyurl.schemes.gopher.render`), and what the loopback servers encode lives with
them in :mod:`anyurl.schemes.gopher.loopback`: this package holds client protocol only.
"""

from anyurl.protocols.common import NEED_DATA, NeedData
from anyurl.protocols.gopher.errors import (
    FormError,
    GopherCommandError,
    GopherCoreError,
    GopherReplyError,
)
from anyurl.protocols.gopher.framing import (
    BINARY_TYPES,
    MENU_TYPES,
    Data,
    EndOfData,
    Framing,
    PlusError,
    PlusHeader,
    ReaderState,
    ResponseReader,
    framing_for_type,
)
from anyurl.protocols.gopher.menus import (
    MenuItem,
    MenuParser,
    error_item_message,
    parse_menu,
    parse_menu_line,
)
from anyurl.protocols.gopher.plus import (
    AskForm,
    AttributeBlock,
    ItemAttributes,
    Question,
    View,
    answer_lines,
    parse_ask,
    parse_attributes,
)
from anyurl.protocols.gopher.requests import CRLF, build_request, data_block, form_request

__all__ = [
    "BINARY_TYPES",
    "CRLF",
    "MENU_TYPES",
    "NEED_DATA",
    "AskForm",
    "AttributeBlock",
    "Data",
    "EndOfData",
    "FormError",
    "Framing",
    "GopherCommandError",
    "GopherCoreError",
    "GopherReplyError",
    "ItemAttributes",
    "MenuItem",
    "MenuParser",
    "NeedData",
    "PlusError",
    "PlusHeader",
    "Question",
    "ReaderState",
    "ResponseReader",
    "View",
    "answer_lines",
    "build_request",
    "data_block",
    "error_item_message",
    "form_request",
    "framing_for_type",
    "parse_ask",
    "parse_attributes",
    "parse_menu",
    "parse_menu_line",
]
