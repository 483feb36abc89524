"""What to try, in the command line's words: ``--clobber`` where the API says ``clobber=True``.

Errors carry a ``remedy`` key (:class:`~anyurl.errors.AnyURLError`); their own ``hint`` is
written for programs. The command line prints the hint below instead, so a program's
exception never tells it to type an option, and a user is never told to pass a keyword.
"""

from __future__ import annotations

from anyurl.errors import AnyURLError

__all__ = ["cli_hint"]

#: remedy -> the hint as a user of ``anyurl get`` acts on it ({0}: the remedy's argument).
CLI_HINTS: dict[str, str] = {
    "resume": "Try again with resume (-C) to continue where it stopped.",
    "read_timeout": "The server may be stalled; raise --max-time or --read-timeout, or retry.",
    "connect_timeout": "Check the host and port, or raise --connect-timeout.",
    "output_is_directory": "Name a file inside it, or use -O with --output-dir for remote "
                           "names.",
    "clobber": "Use --clobber to overwrite it, or -C to continue it.",
    "continue_whole": "Run without -C to fetch the whole file again (with -O, add "
                      "--clobber).",
    "create_dirs": "Create it, or add --create-dirs.",
    "cacert": "Give a PEM file to --cacert, or a directory made by c_rehash to --capath.",
    "client_cert": "Give a PEM certificate to --cert, and its key to --key if it is in "
                   "another file.",
    "allow_port": "If you trust this URL, allow it with --allow-port {0}.",
    "max_filesize": "Raise --max-filesize if you want it anyway.",
    "stall_timeout": "Raise --stall-timeout if the server is merely slow.",
    "mail_body": "Give the message body with --data or --data-file.",
    "gopher_view": "Drop --view, or the Gopher+ string (%09%09...) from the URL.",
    "search": "This is a search item: give a term with --search TEXT (or in the URL after "
              "%09).",
    "answers": "Give the answers with --answers FILE.json, an object mapping each prompt to "
               "its answer.",
    "answers_prompts": "The form asks {0}; give each in --answers FILE.json.",
    "plan": "--plan is available for schemes whose dialogue is fixed by the URL.",
    "keep_error_body": "--keep-error-body saves what the server sent.",
    "max_time": "Raise --max-time if it needs longer.",
    "file_ftp_fallback": "Use file:///path for a local file, or an ftp:// URL for that host "
                         "(--file-ftp-fallback retries it as ftp).",
}


def cli_hint(exc: AnyURLError) -> str | None:
    """The command line's hint for ``exc``, or None to keep the error's own."""
    if not exc.remedy:
        return None
    template = CLI_HINTS.get(exc.remedy[0])
    return None if template is None else template.format(*exc.remedy[1:])
