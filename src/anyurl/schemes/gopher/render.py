"""Gopher menus and Gopher+ attributes as readable text, for a terminal.

Presentation, not protocol: the core (:mod:`anyurl.protocols.gopher`) parses, this
renders. Each line shows a type label, the display string and the item's URL, so a menu
on a terminal is a list of URLs to fetch next. Text the server chose is shown with its
control characters escaped (:func:`~anyurl.url.charset.printable`), so a menu cannot
carry terminal escape sequences to the screen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from anyurl.protocols.gopher import ItemAttributes, MenuItem
from anyurl.url.charset import printable

__all__ = ["TYPE_LABELS", "render_attributes", "render_menu"]

#: Short labels for rendering menus (RFC 1436 3.8 and the de-facto types).
TYPE_LABELS: Final[Mapping[str, str]] = {
    "0": "TXT", "1": "DIR", "2": "CSO", "3": "ERR", "4": "HQX", "5": "DOS",
    "6": "UUE", "7": "FIND", "8": "TEL", "9": "BIN", "+": "MIRR", "T": "3270",
    "g": "GIF", "I": "IMG", "h": "HTML", "s": "SND", "P": "PDF", "M": "MIME",
    ";": "MOV", ":": "BMP", "<": "SND", "d": "DOC", "w": "WWW", "c": "CAL", "e": "EVT",
}


def render_menu(items: Iterable[MenuItem]) -> str:
    """A menu as readable text: a type label, the display string, the item's URL."""
    out = []
    for item in items:
        name = printable(item.display) or ""
        if item.is_info:
            out.append(f"       {name}".rstrip())
            continue
        label = "(" + TYPE_LABELS.get(item.fetch_type, "?" + (printable(item.type) or "")) + ")"
        line = f"{label:<7}{name}"
        if item.plus == "?":
            line += " [form]"
        url = item.url()
        if url:
            line += f"  <{url}>"
        out.append(line)
    return "".join(line + "\n" for line in out)


def render_attributes(items: Iterable[ItemAttributes]) -> str:
    """Attributes as readable text: each item, its views (as ``--view`` takes them),
    then every block with its lines indented."""
    out: list[str] = []
    for attrs in items:
        if attrs.info is not None:
            out.extend(render_menu([attrs.info]).splitlines())
        for view in attrs.views:
            size = f"  ({view.size})" if view.size else ""
            out.append(f"  view: {view.view_string}{size}")
        for b in attrs.blocks:
            if b.name == "+INFO" or (b.name == "+VIEWS" and attrs.views):
                continue  # the views are listed above, as --view takes them
            out.append(f"  {b.name}:" + (f" {printable(b.value)}" if b.value else ""))
            out.extend(f"    {printable(line)}".rstrip() for line in b.lines)
        out.append("")
    return "\n".join(out)
