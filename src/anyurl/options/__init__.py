"""Typed per-scheme options: one frozen dataclass per handler.

A request's common choices (resume offset, trace, output format) are fields of
:class:`~anyurl.schemes.base.FetchOptions`; what only one scheme understands is one of
the classes below, given in ``FetchOptions.schemes``::

    FetchOptions(schemes=(FTPOptions(passive=False), HTTPOptions(http2=True)))

A handler takes the instance of its own class (``options.get(FTPOptions)``, the defaults
when none was given) and ignores the others, so one ``FetchOptions`` serves a run of
URLs of several schemes, as the command line builds it. A misspelt field is a
``TypeError`` where the dataclass is built; a field of the wrong type is a
:class:`~anyurl.errors.OptionError` when the handler opens (:meth:`SchemeOptions.check`).

This package imports no handler, so the command line and programs can build options
without paying for the protocol code they do not use. Each scheme's class lives in its
scheme's package (``anyurl/schemes/<name>/options.py``, the module its descriptor's
``options_module`` names) and is imported when its name is first asked for here (PEP
562), found through :mod:`anyurl.registry`: a frozen dataclass costs about a millisecond
to create, and a plain ``anyurl get`` of an http URL has no use for the others. A
plug-in's options are found the same way, so ``from anyurl.options import FTPOptions``
works for every scheme, built in or not; anyurl's own modules import a scheme's class
from its module, which the type checker reads.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from anyurl.errors import OptionError
from anyurl.lazy import lazy_names

__all__ = ["AnswerSource", "SchemeOptions"]


@dataclass(frozen=True)
class SchemeOptions:
    """Base of every handler's options; subclasses are frozen dataclasses."""

    #: The name messages give these options: the class's name less ``Options``,
    #: lower case (``FTPOptions``: "ftp"), unless a subclass sets its own.
    label: ClassVar[str] = "scheme"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "label" not in cls.__dict__:
            cls.label = cls.__name__.removesuffix("Options").lower() or "scheme"

    def check(self) -> None:
        """Raise :class:`OptionError` for a field whose value has not the declared type.

        The check is shallow (a ``tuple[str, ...]`` must be a tuple, a mapping a
        mapping, a callable callable): enough to catch ``idle="2"`` or ``passive=1``
        from a program that built the options from untyped data.
        """
        if self.__dict__.get("_checked"):
            return  # frozen: once checked, always right (the check runs per request)
        hints = typing.get_type_hints(type(self), localns=self._hint_names())
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if not _conforms(value, hints[f.name]):
                raise OptionError(
                    f"{self.label} option {f.name}={value!r} is not of type "
                    f"{_type_name(hints[f.name])}"
                )
        object.__setattr__(self, "_checked", True)

    @classmethod
    def _hint_names(cls) -> dict[str, Any]:
        """Names of the field types imported only when checked (kept out of the import
        of this module, which the command line pays for at every start)."""
        return {}


def _conforms(value: object, hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if hint is Any:
        return True
    if origin in (Union, types.UnionType):
        return any(_conforms(value, arg) for arg in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is not None:
        if origin in (Callable, typing.get_origin(Callable[[], None])):
            return callable(value)
        return isinstance(value, origin)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def _loaded_class(module: str, name: str) -> type:
    """``module.name`` if ``module`` is imported, else a stand-in class of that name.

    Only a type check's namespace uses it: a value cannot be an instance of a class
    whose module was never imported, so the stand-in gives the same answer (and the same
    name in an error) without importing the module."""
    loaded = sys.modules.get(module)
    if loaded is not None:
        cls: type = getattr(loaded, name)
        return cls
    return type(name, (), {"__module__": module})


def _type_name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


#: Gopher+ form answers: {prompt: value}, or a callback given the form that returns them.
AnswerSource = Mapping[str, str] | Callable[[Any], Awaitable[Mapping[str, str]]]


def _options_module(name: str) -> str | None:
    """The module of the scheme options class ``name``: the registry asks the scheme the
    name reads as first (the class's label, ``FTPOptions``: ftp), then every scheme."""
    from anyurl import registry

    return registry.lender(name, "options_module", name.removesuffix("Options").lower())


def _every_options_name() -> list[str]:
    from anyurl import registry

    return list(registry.lent_names("options_module"))


_lent, __dir__ = lazy_names(__name__, globals(), _options_module, _every_options_name)


def __getattr__(name: str) -> Any:
    """A scheme's options class, imported from its scheme's package when first asked."""
    return _lent(name)
