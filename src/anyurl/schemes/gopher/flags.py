"""The gopher scheme's command-line flags (its descriptor's :class:`~anyurl.registry.Flags`):
``--view`` and ``--answers`` (Gopher+) and ``--render`` (``get``'s), ``--gopher-views``
(``mirror``'s). Light: :class:`GopherOptions` is made only when one applies (a menu
saved to a file or a pipe is saved as sent: that too), and a +ASK form's prompts
(anyio's thread, getpass) only when a form asks."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from anyurl.registry.spec import Flags

if TYPE_CHECKING:
    from anyurl.options import AnswerSource
    from anyurl.schemes.gopher.options import GopherOptions

__all__ = ["FLAGS"]


def _add(group: Any) -> None:
    group.add_argument("--view", metavar="'TYPE LANG'",
                       help="gopher+: the alternate view to fetch, e.g. 'text/plain De_DE'")
    group.add_argument("--render", action="store_true",
                       help="gopher: render menus and attributes as text with URLs even "
                       "into a file or pipe (the default on a terminal; elsewhere they are "
                       "saved as the server sent them)")
    group.add_argument("--answers", metavar="FILE.json",
                       help="gopher+: answers to a +ASK form, a JSON object {prompt: value} "
                       "(on a terminal, anyurl asks instead)")


async def _ask_on_terminal(form: Any) -> dict[str, str]:
    """Prompt for each question of a Gopher+ +ASK form; AskP without echo."""
    import anyio

    def ask() -> dict[str, str]:
        answers: dict[str, str] = {}
        for q in form.questions:
            if q.kind == "Note":
                print(q.prompt, file=sys.stderr)
                continue
            if not q.needs_answer:
                continue
            hint = ""
            if q.choices:
                hint = " [" + "/".join(q.choices) + "]"
            elif q.default:
                hint = f" [{q.default}]"
            prompt = f"{q.prompt}{hint}: "
            import getpass  # a Gopher+ form's secret only

            value = getpass.getpass(prompt) if q.secret else input(prompt)
            answers[q.prompt] = value or (q.default or "")
        return answers

    return await anyio.to_thread.run_sync(ask)


def _answers(args: Any) -> AnswerSource | None:
    """The answers of ``--answers FILE.json``; on a terminal, a prompt; else None."""
    if args.answers:
        import json  # --answers only: not paid by every start

        with open(args.answers, encoding="utf-8") as f:
            loaded = json.load(f)
        if not isinstance(loaded, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in loaded.items()
        ):
            raise ValueError(f"{args.answers}: the answers must be a JSON object of strings")
        return loaded
    return _ask_on_terminal if sys.stdin.isatty() else None


def _options(args: Any) -> GopherOptions | None:
    """GopherOptions from --view, --answers (or a terminal to ask on) and --render; a
    downloader saves what the server sent (as curl, wget and Lynx -source do): a menu is
    rendered for a terminal, or when asked. None when all is as by default."""
    answers = _answers(args)
    to_files = bool((args.output and args.output != "-") or args.remote_name)
    render = bool(args.render or (not to_files and sys.stdout.isatty()))
    if not (args.view or answers is not None or not render):
        return None
    from anyurl.schemes.gopher.options import GopherOptions

    return GopherOptions(view=args.view, answers=answers, render=render)


def _add_mirror(group: Any) -> None:
    """``anyurl mirror``'s gopher flag: what a crawl fetches of a Gopher+ item."""
    group.add_argument("--gopher-views", action="store_true",
                       help="gopher+: also fetch each item's attributes and alternate views "
                       "(NAME.attributes, NAME@VIEW beside NAME)")


def _mirror(args: Any) -> dict[str, Any]:
    """The crawl's setting of ``--gopher-views``."""
    return {"gopher_views": bool(args.gopher_views)}


#: gopher's own flags: ``get``'s, and ``mirror``'s ``--gopher-views`` (a setting of the
#: crawl, no options of the scheme's).
FLAGS = Flags(add=_add, options=_options, commands=("get", "mirror"),
              add_for={"mirror": _add_mirror}, options_for={"mirror": None}, mirror=_mirror)
