"""The prospero view (RFC 1738 3.11): the hsoname and its fields, decoded.

Imported when the view is first asked for (:mod:`anyurl.url.views`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anyurl.url.charset import UCHAR_PLAIN, decode, display
from anyurl.url.grammar import Grammar, Reader
from anyurl.url.parse import FSEGMENT, segments

if TYPE_CHECKING:
    from anyurl.url.model import URL

__all__ = ["ProsperoPath", "prospero_path"]


@dataclass(frozen=True)
class ProsperoPath:
    """``<hsoname>;<field>=<value>...`` of section 3.11, decoded."""

    hsoname: str
    fields: tuple[tuple[str, str], ...]

    def to_json(self) -> dict[str, Any]:
        """The ``view`` object of ``anyurl parse --json``."""
        return {
            "hsoname": display(self.hsoname),
            "fields": [[display(k), display(v)] for k, v in self.fields],
        }


def prospero_path(path: str | None) -> ProsperoPath:
    """The :class:`ProsperoPath` of a raw prospero url-path and its field specs."""
    if path is None:
        return ProsperoPath("", ())
    ppath, *specs = path.split(";")
    fields = []
    for spec in specs:
        name, _, value = spec.partition("=")
        fields.append((decode(name), decode(value)))
    return ProsperoPath(decode(ppath), tuple(fields))


# -- its grammar (section 5), which the parser asks for (anyurl.url.grammar) ----------


def _path(reader: Reader, url: URL, start: int, end: int) -> URL:
    """``ppath *[ ";" fieldname "=" fieldvalue ]``."""
    s = reader.s
    raw = s[start:end]
    semi = raw.find(";")
    ppath_end = end if semi < 0 else start + semi
    for seg_start, seg_end in segments(start, ppath_end, s, "/"):
        reader.check_chars(seg_start, seg_end, FSEGMENT, "the prospero hsoname")
    path = reader.norm(s[start:ppath_end], FSEGMENT | frozenset("/"))
    if semi >= 0:
        fieldchars = UCHAR_PLAIN | frozenset("?:@&")
        for f_start, f_end in segments(ppath_end + 1, end, s, ";"):
            eq = s.find("=", f_start, f_end)
            if eq < 0:
                raise reader.fail("prospero field without '='", f_start)
            reader.check_chars(f_start, eq, fieldchars, "a prospero field name")
            reader.check_chars(eq + 1, f_end, fieldchars, "a prospero field value")
            path += (f";{reader.norm(s[f_start:eq], fieldchars)}"
                     f"={reader.norm(s[eq + 1:f_end], fieldchars)}")
    return url.replace(path=path)


#: Section 3.11's prosperourl.
GRAMMARS = {"prospero": Grammar(
    ip=True, part="the prospero name or fields", path=_path,
    needs_path="a prospero URL needs '/' after the host (section 5: "
               "prospero://hostport/ppath)")}
