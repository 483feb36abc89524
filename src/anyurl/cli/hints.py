"""What to try, in the command line's words: ``--clobber`` where the API says ``clobber=True``.

Errors carry a ``remedy`` key (:class:`~anyurl.errors.AnyURLError`); their own ``hint`` is
written for programs. The command line prints the hint below instead, so a program's
exception never tells it to type an option, and a user is never told to pass a keyword.

A hint that comes without a remedy key is said in the command line's words by
:data:`CLI_FOR_HINT` (the login hints name ``-u``, not only the URL); one that still
speaks the library's language (a class name, ``keyword=True``, ``plan()``) is dropped
rather than shown (:func:`library_words`). ``tests/cli/test_cli_words.py`` walks every
hint and message in the source through this module.
"""

from __future__ import annotations

import re

from anyurl.errors import AnyURLError

__all__ = ["CLI_FOR_HINT", "CLI_HINTS", "cli_hint", "library_words", "scheme_hints"]

#: remedy -> the hint as a user of ``anyurl get`` acts on it ({0}: the remedy's argument).
CLI_HINTS: dict[str, str] = {
    "resume": "Run it again with -C to continue the file where it stopped (--retry N "
              "does so by itself).",
    "read_timeout": "The server may be stalled; raise --max-time or --read-timeout, or retry.",
    "connect_timeout": "Check the host and port, or raise --connect-timeout.",
    "output_is_directory": "Name a file inside it, or use -O with --output-dir for remote "
                           "names.",
    "clobber": "Use --clobber to overwrite it, or -C to continue it.",
    "binary_output": "Use -o FILE to save it, or '-o -' (--output -) to print it anyway.",
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
    "mail_from": "Give the sender with --mail-from ADDRESS (or mail_from in the config "
                 "file, or $EMAIL).",
    "search": "This is a search item: give a term with --search TEXT (or in the URL after "
              "%09).",
    "answers": "Give the answers with --answers FILE.json, an object mapping each prompt to "
               "its answer.",
    "answers_prompts": "The form asks {0}; give each in --answers FILE.json.",
    "plan": "--plan is available for schemes whose dialogue is fixed by the URL.",
    "keep_error_body": "--keep-error-body saves what the server sent.",
    "max_time": "Raise --max-time if it needs longer.",
    "write_timeout": "The server stopped reading what anyurl sends; write_timeout in the "
                     "config file raises the limit if it is merely slow.",
    "compressed": "Run it without --compressed to save the bytes as the server sent them.",
}


#: Hints the library gives without a remedy key -> the same advice for ``anyurl get``.
CLI_FOR_HINT: dict[str, str] = {
    "Check the user name and password (in the URL or ~/.netrc).":
        "Check the user name and password (-u, the URL or ~/.netrc).",
    "Give one in the URL (lenient parsing), the password option or ~/.netrc.":
        "Give it with -u USER:PASSWORD or in ~/.netrc.",
    "Check the user and password in the URL.":
        "Check the user and password (-u or the URL).",
    "Try again with resume (resume=True) to continue where it stopped.":
        CLI_HINTS["resume"],
}

#: What a program reads and a command-line user cannot type: ``keep_error_body=True``,
#: ``Config.read_timeout``, ``HTTPOptions(...)``, ``plan()``.
_LIBRARY_WORDS = re.compile(
    r"\b[a-z_]+=(?:True|False|None|\.\.\.|\{)"
    r"|\b[A-Z][A-Za-z]*(?:Options|Config|Policy|Error)\b"
    r"|\bConfig[.(]"
    r"|\b[a-z_]+\(\)")


def library_words(text: str) -> list[str]:
    """The library's words in ``text`` (class names, keywords, calls), for tests and
    for :func:`cli_hint`'s last resort."""
    return [m.group() for m in _LIBRARY_WORDS.finditer(text)]


def scheme_hints() -> dict[str, str]:
    """Every scheme's own words (its descriptor's ``cli_hints``): remedies and hints."""
    from anyurl import registry

    return {key: text for spec in registry.specs() for key, text in spec.cli_hints.items()}


def cli_hint(exc: AnyURLError) -> str | None:
    """The hint to print for ``exc`` on the command line, or None for none.

    The remedy's CLI words first, then :data:`CLI_FOR_HINT`'s for a known hint; the
    error's own hint when it has no library words, else nothing.
    """
    if exc.remedy:
        template = CLI_HINTS.get(exc.remedy[0]) or scheme_hints().get(exc.remedy[0])
        if template is not None:
            return template.format(*exc.remedy[1:])
    if not exc.hint:
        return None
    translated = CLI_FOR_HINT.get(exc.hint) or scheme_hints().get(exc.hint)
    if translated is not None:
        return translated
    return None if library_words(exc.hint) else exc.hint
