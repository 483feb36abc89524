"""Gopher+ attributes (``!`` and ``$`` responses) and +ASK forms (RFC 1738 3.4.9).

:func:`parse_attributes` reads the ``+INFO``/``+ADMIN``/``+VIEWS``/``+ABSTRACT``/``+ASK``
blocks; :func:`parse_ask` and :func:`answer_lines` turn a form and its answers into the
lines :func:`~anyurl.protocols.gopher.requests.form_request` sends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from anyurl.protocols.gopher.errors import FormError
from anyurl.protocols.gopher.menus import MenuItem, _text, parse_menu_line
from anyurl.url import encode_wire
from anyurl.url.charset import display

__all__ = [
    "AskForm",
    "AttributeBlock",
    "ItemAttributes",
    "Question",
    "View",
    "answer_lines",
    "parse_ask",
    "parse_attributes",
]


@dataclass(frozen=True)
class AttributeBlock:
    """One attribute block: ``+NAME: value`` and its lines (leading space removed)."""

    name: str
    value: str
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The block as a JSON object: its name, first-line value and lines."""
        return {"name": self.name, "value": display(self.value),
                "lines": [display(line) for line in self.lines]}


@dataclass(frozen=True)
class View:
    """One line of ``+VIEWS``: content type, optional language and approximate size."""

    content_type: str
    language: str | None = None
    size: str | None = None

    @property
    def view_string(self) -> str:
        """What ``--view`` takes and the request sends after ``+`` (UMN VIgetViewnLang)."""
        return self.content_type + (f" {self.language}" if self.language else "")

    def to_json(self) -> dict[str, Any]:
        """The view as a JSON object: content type, language, size and the view string."""
        return {"content_type": self.content_type, "language": self.language,
                "size": self.size, "view": self.view_string}


_ASK_KINDS = {k.lower(): k for k in
              ("Ask", "AskP", "AskL", "AskF", "Select", "Choose", "ChooseF", "Note")}
_NO_ANSWER = frozenset({"Note", "AskF"})


@dataclass(frozen=True)
class Question:
    """One line of a +ASK form. ``kind`` is normalised (``Ask``, ``AskP``, ``AskL``,
    ``AskF``, ``Select``, ``Choose``, ``ChooseF``, ``Note``) or kept as sent if unknown."""

    kind: str
    prompt: str
    default: str | None = None
    choices: tuple[str, ...] = ()

    @property
    def needs_answer(self) -> bool:
        """False for text shown only (``Note``), local file names (``AskF``), unknowns."""
        return self.kind in _ASK_KINDS.values() and self.kind not in _NO_ANSWER

    @property
    def secret(self) -> bool:
        """Whether the answer is a password (``AskP``: asked without echo)."""
        return self.kind == "AskP"

    def to_json(self) -> dict[str, Any]:
        """The question as a JSON object."""
        return {"kind": self.kind, "prompt": display(self.prompt),
                "default": display(self.default), "choices": [display(c) for c in self.choices],
                "needs_answer": self.needs_answer}


@dataclass(frozen=True)
class AskForm:
    """A parsed +ASK block: the questions in the order their answers are sent."""

    questions: tuple[Question, ...]

    @property
    def answerable(self) -> tuple[Question, ...]:
        """The questions that take an answer (not the ``Note`` lines)."""
        return tuple(q for q in self.questions if q.needs_answer)

    def to_json(self) -> dict[str, Any]:
        """The form as a JSON object: its questions."""
        return {"questions": [q.to_json() for q in self.questions]}


def parse_ask(lines: Iterable[str]) -> AskForm:
    """The questions of a +ASK block (``Kind: prompt[TAB default-or-choices...]``)."""
    questions = []
    for line in lines:
        if not line.strip():
            continue
        kind_text, sep, rest = line.partition(":")
        if not sep:
            questions.append(Question("Note", line.strip()))
            continue
        kind = _ASK_KINDS.get(kind_text.strip().lower(), kind_text.strip())
        rest = rest[1:] if rest.startswith(" ") else rest
        prompt, *values = rest.split("\t")
        default: str | None = None
        choices: tuple[str, ...] = ()
        if kind in ("Choose", "ChooseF"):
            choices = tuple(values)
        elif values:
            default = "\t".join(values)
        if kind == "Select":
            # UMN form.c: the default 0/1 follows the last ':' of the prompt.
            head, colon, flag = prompt.rpartition(":")
            if colon and flag.strip() in ("0", "1"):
                prompt, default = head, flag.strip()
        questions.append(Question(kind, prompt.strip(), default, choices))
    return AskForm(tuple(questions))


_TRUE = {"1", "yes", "true", "on", "y"}
_FALSE = {"0", "no", "false", "off", "n", ""}


def answer_lines(form: AskForm, answers: Mapping[str, Any]) -> tuple[list[str], bytes | None]:
    """The lines of the data block for ``answers`` ({prompt: value}), and the file if any.

    Values: text for ``Ask``/``AskP``; a list of lines (or text with line ends) for
    ``AskL``, sent as a count and the lines (G+ 2.8); a bool or ``0``/``1``/yes/no for
    ``Select``; one of the choices for ``Choose``; the file's bytes for ``ChooseF``.
    A question without an answer takes its default; without one it is an error naming
    every such prompt.
    """
    lines: list[str] = []
    file: bytes | None = None
    missing: list[str] = []
    for q in form.answerable:
        value = answers.get(q.prompt)
        if value is None:
            value = q.default
        if value is None:
            missing.append(q.prompt)
            continue
        if q.kind == "AskL":
            items = value.splitlines() if isinstance(value, str) else [str(v) for v in value]
            lines.append(str(len(items)))
            lines.extend(_one_line(q, v) for v in items)
        elif q.kind == "Select":
            flag = str(value).strip().lower() if not isinstance(value, bool) else str(int(value))
            if flag not in _TRUE | _FALSE:
                raise FormError(f"the answer to {q.prompt!r} must be yes or no, not {value!r}")
            lines.append("1" if flag in _TRUE else "0")
        elif q.kind == "Choose":
            lines.append(_choice(q, str(value)))
        elif q.kind == "ChooseF":
            if file is not None:
                raise FormError("a +ASK form may send only one file")
            if not isinstance(value, bytes | bytearray):
                raise FormError(f"the answer to {q.prompt!r} must be the file's bytes")
            file = bytes(value)
        else:
            lines.append(_one_line(q, str(value)))
    if missing:
        raise FormError("no answer for " + ", ".join(repr(p) for p in missing))
    return lines, file


def _one_line(q: Question, value: str) -> str:
    if "\r" in value or "\n" in value:
        raise FormError(f"the answer to {q.prompt!r} must be one line")
    return value


def _choice(q: Question, value: str) -> str:
    if value in q.choices:
        return value
    folded = [c for c in q.choices if c.lower() == value.lower()]
    if len(folded) == 1:
        return folded[0]
    raise FormError(
        f"{value!r} is not a choice of {q.prompt!r} (choose one of "
        + ", ".join(repr(c) for c in q.choices) + ")"
    )


@dataclass(frozen=True)
class ItemAttributes:
    """The attribute blocks of one item; ``info`` is its ``+INFO`` menu line."""

    info: MenuItem | None
    blocks: tuple[AttributeBlock, ...] = field(default=())

    def block(self, name: str) -> AttributeBlock | None:
        """The block called ``name`` (``"+VIEWS"`` or ``"VIEWS"``); exact case first."""
        want = name if name.startswith("+") else "+" + name
        for b in self.blocks:
            if b.name == want:
                return b
        for b in self.blocks:
            if b.name.lower() == want.lower():
                return b
        return None

    @property
    def views(self) -> tuple[View, ...]:
        """The alternate views of the item (``+VIEWS``), as the server listed them."""
        b = self.block("+VIEWS")
        if b is None:
            return ()
        views = []
        for line in b.lines:
            head, _, tail = line.partition(":")
            if not head.strip():
                continue
            ctype, _, lang = head.strip().partition(" ")
            m = re.search(r"<([^>]*)>", tail)
            views.append(View(ctype, lang.strip() or None, m.group(1) if m else None))
        return tuple(views)

    @property
    def abstract(self) -> str | None:
        """The ``+ABSTRACT`` text, or None."""
        b = self.block("+ABSTRACT")
        return None if b is None else "\n".join(b.lines).strip("\n")

    @property
    def admin(self) -> dict[str, str]:
        """The ``+ADMIN`` fields (``Admin``, ``Mod-Date`` ...) by name."""
        b = self.block("+ADMIN")
        out: dict[str, str] = {}
        for line in b.lines if b else ():
            key, sep, value = line.partition(":")
            if sep:
                out[key.strip()] = value.strip()
        return out

    @property
    def ask(self) -> AskForm | None:
        """The ``+ASK`` form of the item, or None."""
        b = self.block("+ASK")
        return None if b is None else parse_ask(b.lines)

    def to_json(self) -> dict[str, Any]:
        """The attributes as a JSON object (``--json``)."""
        ask = self.ask
        return {
            "info": self.info.to_json() if self.info else None,
            "views": [v.to_json() for v in self.views],
            "admin": self.admin,
            "abstract": display(self.abstract),
            "ask": ask.to_json() if ask else None,
            "blocks": [b.to_json() for b in self.blocks],
        }


def parse_attributes(body: bytes) -> tuple[ItemAttributes, ...]:
    """The items of a ``!`` (one item) or ``$`` (every item of a menu) answer.

    A line starting with ``+`` opens a block (its name runs to ``:``, a space or the end
    of the line: G+ 2.8 writes ``+ADMIN`` without a colon); lines starting with a space
    are its value lines. Each ``+INFO`` begins a new item. Other lines are kept as value
    lines of the open block, since being lenient costs nothing here.
    """
    items: list[ItemAttributes] = []
    info: MenuItem | None = None
    blocks: list[AttributeBlock] = []
    name: str | None = None
    value = ""
    lines: list[str] = []

    def close_block() -> None:
        nonlocal name, lines
        if name is not None:
            blocks.append(AttributeBlock(name, value, tuple(lines)))
        name, lines = None, []

    def close_item() -> None:
        nonlocal info, blocks
        close_block()
        if info is not None or blocks:
            items.append(ItemAttributes(info, tuple(blocks)))
        info, blocks = None, []

    texts = [_text(raw.rstrip(b"\r")) for raw in body.split(b"\n")]
    while texts and texts[-1].strip() in ("", "."):
        texts.pop()  # a "." line when the server framed the answer as gopher0 text
    for line in texts:
        if line.startswith("+"):
            m = re.match(r"(\+[^:\s]*):?\s?(.*)", line)
            assert m is not None
            new_name, new_value = m.group(1), m.group(2)
            if new_name == "+INFO":
                close_item()
                info = parse_menu_line(encode_wire(new_value))
            close_block()
            name, value = new_name, new_value
        elif name is not None and line:
            lines.append(line[1:] if line.startswith(" ") else line)
    close_item()
    return tuple(items)
