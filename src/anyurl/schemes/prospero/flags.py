"""The prospero scheme's command-line flag (its descriptor's :class:`~anyurl.registry.Flags`):
``--follow``. Light: :class:`ProsperoOptions` is made only when it is given."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from anyurl.registry.spec import Flags

if TYPE_CHECKING:
    from anyurl.schemes.prospero.options import ProsperoOptions

__all__ = ["FLAGS"]


def _add(group: Any) -> None:
    group.add_argument("--follow", action="store_true",
                       help="prospero: fetch the object through its first usable access "
                       "method")


def _options(args: Any) -> ProsperoOptions | None:
    if not args.follow:
        return None
    from anyurl.schemes.prospero.options import ProsperoOptions

    return ProsperoOptions(follow=True)


#: prospero's own flag, ``get``'s.
FLAGS = Flags(add=_add, options=_options, commands=("get",))
