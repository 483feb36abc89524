"""The mailto scheme's command-line flags (its descriptor's :class:`~anyurl.registry.Flags`):
``--subject``, ``--mail-from``, ``--smtp-relay`` (the run's ``smtp_relay``) and
``--data-file``; the message's body is ``-d`` (curl's, shared with http) or
``--data-file``. Light: :class:`MailtoOptions` is made only when one is given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from anyurl.registry.spec import Flags

if TYPE_CHECKING:
    from anyurl.schemes.mailto.options import MailtoOptions

__all__ = ["FLAGS"]


def _add(group: Any) -> None:
    group.add_argument("--subject", metavar="TEXT", help="mailto: the subject of the message")
    group.add_argument("--mail-from", metavar="ADDRESS",
                       help="mailto: the sender (as curl's --mail-from; else mail_from or "
                       "anonymous_email in the config, else $EMAIL)")
    group.add_argument("--smtp-relay", metavar="HOST[:PORT]",
                       help="mailto: the SMTP server to submit through (default "
                       "localhost:25)")
    group.add_argument("--data-file", metavar="FILE",
                       help="mailto: read the body from FILE ('-' for stdin)")


def _options(args: Any) -> MailtoOptions | None:
    """MailtoOptions from --subject, --mail-from, and the body of -d (the text as
    written) or --data-file; None when none was given."""
    body: bytes | None = None
    if args.data and args.data_file:
        raise ValueError("give the message body with --data or --data-file, not both")
    if args.data:
        body = "\n".join(args.data).encode("utf-8")  # the text as written
    elif args.data_file and args.data_file != "-":
        with open(args.data_file, "rb") as f:
            body = f.read()
    if not (args.subject is not None or body is not None or args.data_file == "-"
            or args.mail_from):
        return None
    from anyurl.schemes.mailto.options import MailtoOptions

    return MailtoOptions(subject=args.subject, body=body,
                         body_from_stdin=args.data_file == "-", mail_from=args.mail_from)


def _config(args: Any) -> Mapping[str, Any]:
    return {"smtp_relay": args.smtp_relay} if args.smtp_relay else {}


#: mailto's own flags, ``get``'s.
FLAGS = Flags(add=_add, options=_options, commands=("get",), config=_config,
              shared_help={"--data": "the body of the message"})
