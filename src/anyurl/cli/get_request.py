"""What ``anyurl get`` is asked to do: the command line read once into a :class:`GetRequest`.

argparse gives a namespace of strings as they were typed; several of them mean something
only together (``-C 100`` to stdout is the range ``100-``; ``--json '{...}'`` is a body
and two headers, not a URL; ``-C URL`` is ``-C -`` and a URL). :func:`read_request`
works all of that out, checks it, reads the files it names (``-i``, ``-w @FILE``,
``-b FILE``, ``--answers``) and builds the config and the scheme options, once. The run
(:mod:`anyurl.cli.get_cmd`) then reads only the frozen result, never the namespace, and
nothing writes to the namespace: what a flag was given as stays what it was.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anyurl.cli.common import print_error, print_warning
from anyurl.cli.policy_flags import apply_policy_flags
from anyurl.cli.scheme_options import apply_to_config, byte_range, flag_state, scheme_options
from anyurl.cli.suggest import JSON_DATA
from anyurl.config import Config, load_config
from anyurl.errors import AnyURLError, FileExists
from anyurl.numbers import ascii_int, is_ascii_digits
from anyurl.options import SchemeOptions

if TYPE_CHECKING:
    from anyurl.registry import RunState

__all__ = ["WRITE_OUT_PATTERN", "WRITE_OUT_VARIABLES", "GetRequest", "build_config",
           "guess_scheme", "login_from", "read_request", "read_url_list", "read_write_out",
           "split_json_data"]

@dataclass(frozen=True)
class GetRequest:
    """One run of ``anyurl get``, as the command line asks for it: typed, checked, final.

    Made once by :func:`read_request`; the fields the command line only passes on
    (``output``, ``silent`` ...) hold the option as given, the others what it comes to
    (``resume`` a bool, ``byte_range`` parsed, ``-C OFFSET`` to stdout as that range).
    """

    #: Every URL to fetch, in order: the arguments', then the ``-i`` files'; a bare
    #: host has its guessed scheme.
    urls: tuple[str, ...]
    #: The config file with the command line's settings over it (timeouts, gateways ...).
    config: Config
    #: ``-o FILE`` (``'-'``: stdout), or None.
    output: str | None = None
    #: ``-O``: each URL under its remote name in ``output_dir``.
    remote_name: bool = False
    #: ``-J``: the name of ``Content-Disposition`` (with ``-O`` only).
    remote_header_name: bool = False
    #: ``--output-dir``.
    output_dir: str = "."
    #: ``--create-dirs``.
    create_dirs: bool = False
    #: ``--clobber`` / ``--no-clobber`` (neither: the policy's default).
    clobber: bool = False
    no_clobber: bool = False
    #: ``-C``: continue partial files (False for ``-C OFFSET`` to stdout: a range then).
    resume: bool = False
    #: ``-C OFFSET`` with files: the size the file continued must have.
    resume_from: int | None = None
    #: ``-R``.
    remote_time: bool = False
    #: ``-D FILE`` (``'-'``: stdout).
    dump_header: str | None = None
    #: ``--warc FILE``.
    warc: str | None = None
    #: anyurl's ``--json`` (JSON lines with files, JSON items without); False when the
    #: flag was curl's ``--json DATA``.
    json: bool = False
    #: curl's ``--json DATA``: the JSON bodies (text or ``@FILE``), sent as
    #: ``--data-binary`` with :data:`anyurl.schemes.http.flags.JSON_HEADERS`.
    json_data: tuple[str, ...] = ()
    #: ``--no-progress``.
    no_progress: bool = False
    #: ``-w``: the format (``@FILE`` read), its variables checked.
    write_out: str | None = None
    #: ``--dask ADDRESS``.
    dask: str | None = None
    #: ``--plan``.
    plan: bool = False
    #: ``-v``, ``-s``, ``-S``.
    verbose: bool = False
    silent: bool = False
    show_error: bool = False
    #: ``--strict``.
    strict: bool = False
    #: ``-u USER[:PASSWORD]`` (the password asked for on a terminal), or None.
    login: tuple[str, str | None] | None = None
    #: ``--search`` (gopher type 7).
    search: str | None = None
    #: ``--raw``.
    raw: bool = False
    #: ``-r FIRST-[LAST]`` (or ``-C OFFSET`` to stdout) as (first, last or None).
    byte_range: tuple[int, int | None] | None = None
    #: The handlers' typed options, shared by every URL.
    scheme_options: tuple[SchemeOptions, ...] = ()
    #: What the schemes' flags ask the run to keep, written back when it ends (HTTP's
    #: cookie jar of ``-b FILE``/``-c FILE``: :func:`~anyurl.cli.scheme_options.flag_state`).
    state: tuple[RunState, ...] = ()
    #: The event loop (asyncio or trio).
    backend: str = "asyncio"

    @property
    def writes_files(self) -> bool:
        """Whether bodies go to files (``-o FILE``, ``-O``) rather than stdout."""
        return _to_files(self.output, self.remote_name)

    @property
    def shows_errors(self) -> bool:
        """Error messages are printed unless ``-s`` without ``-S`` (curl's rule)."""
        return not self.silent or self.show_error


def _to_files(output: str | None, remote_name: bool) -> bool:
    return bool((output and output != "-") or remote_name)


def read_request(args: argparse.Namespace) -> GetRequest | int:
    """The :class:`GetRequest` of ``anyurl get``'s parsed command line, or the exit
    status when it is refused (said on stderr: 2 for options that do not go together,
    the error's code for a file that cannot be read or an option that is wrong).

    ``args`` is only read: the namespace stays as argparse made it.
    """
    given, json_data = split_json_data(args.json, list(args.urls))
    resume_from = None
    if args.resume is not None and args.resume != "-":
        resume_from = ascii_int(args.resume)  # ``-C OFFSET``, as curl
        if resume_from is None:  # ``-C URL``: the flag without its optional '-', then a URL
            given = [args.resume, *given]
    resume = args.resume is not None
    try:
        urls = _urls(given, args.input_file)
    except OSError as exc:
        print(f"anyurl: cannot read the URL list: {exc}", file=sys.stderr)
        return 2
    if not urls:
        print("anyurl: no URL given (as arguments or with -i FILE)", file=sys.stderr)
        return 2
    if args.output and len(urls) > 1:
        print("anyurl: -o names one file; use -O or --output-dir for several URLs",
              file=sys.stderr)
        return 2
    if args.warc and os.path.lexists(args.warc):
        return print_error(FileExists(f"{args.warc!r} exists; not adding to it",
                                      hint="Name a new WARC file."))
    if args.remote_header_name and (not args.remote_name or args.output or resume
                                    or args.dask):
        print("anyurl: -J names the files of -O from the server's Content-Disposition; "
              "it needs -O, and cannot be combined with -o or -C (as curl), nor --dask",
              file=sys.stderr)
        return 2
    range_text: str | None = args.range
    if range_text is not None and resume:
        print("anyurl: -r and -C cannot be combined: a range is fetched whole",
              file=sys.stderr)
        return 2
    if resume_from is not None and not _to_files(args.output, args.remote_name):
        # ``-C OFFSET`` to stdout: the bytes from OFFSET, as curl writes them
        range_text, resume, resume_from = f"{resume_from}-", False, None
    try:
        config = build_config(args)
        state = flag_state(args, None if args.silent else print_warning,
                           spread="--dask" if args.dask else None)
        options = scheme_options(args, json_data=json_data, state=state)
        parsed_range = byte_range(range_text)
        template = read_write_out(args.write_out)
        login = login_from(args.user)
    except AnyURLError as exc:  # before OSError/ValueError: some of ours are those too
        print_error(exc)
        return exc.exit_code
    except (OSError, ValueError) as exc:
        print(f"anyurl: {exc}", file=sys.stderr)
        return 2
    return GetRequest(
        urls=tuple(urls), config=config, output=args.output, remote_name=args.remote_name,
        remote_header_name=args.remote_header_name, output_dir=args.output_dir,
        create_dirs=args.create_dirs, clobber=args.clobber, no_clobber=args.no_clobber,
        resume=resume, resume_from=resume_from, remote_time=args.remote_time,
        dump_header=args.dump_header, warc=args.warc, json=args.json and not json_data,
        json_data=tuple(json_data), no_progress=args.no_progress, write_out=template,
        dask=args.dask, plan=args.plan, verbose=args.verbose, silent=args.silent,
        show_error=args.show_error, strict=args.strict, login=login, search=args.search,
        raw=args.raw, byte_range=parsed_range, scheme_options=options, state=state,
        backend=args.backend)


def split_json_data(json: bool, urls: list[str]) -> tuple[list[str], list[str]]:
    """curl 7.82's ``--json DATA``: ``--json`` followed by JSON text (``{...}``, ``[...]``)
    or ``@FILE`` posts it as JSON, as curl does (``--data-binary DATA`` with
    ``Content-Type`` and ``Accept: application/json``). Such text is never a URL, so
    anyurl's own ``--json`` (JSON lines with -o/-O, JSON items without) stays as it is
    when what follows is a URL. The URLs, and the JSON data taken from among them."""
    if not json:
        return urls, []
    data = [u for u in urls if JSON_DATA.match(u) or u.startswith("@")]
    return [u for u in urls if u not in data], data


def build_config(args: argparse.Namespace) -> Config:
    """The Config of a run: the config file, then the command line's options."""
    config = load_config(args.config)
    changes: dict[str, Any] = {}
    for name in ("connect_timeout", "read_timeout", "max_time", "parallel", "per_host",
                 "retry", "retry_delay", "retry_max_delay", "retry_jitter",
                 "retry_all_errors", "stall_timeout", "limit_rate",
                 "max_filesize", "ip_version"):
        value = getattr(args, name, None)
        if value is not None:
            changes[name] = value
    if args.file_ftp_fallback:
        changes["file_ftp_fallback"] = True
    return apply_to_config(args, apply_policy_flags(args, config.replace(**changes)))


def read_url_list(text: str) -> list[str]:
    """The URLs of an ``-i`` file.

    When every line that is not blank or a ``#`` comment is one URL, those are the
    URLs, in order (unknown schemes included: they fail, and say why). Otherwise the
    text is prose (mail, notes) and the URLs in it are found as RFC 1738's Appendix
    says: ``<URL:...>`` wrappers first, folded lines joined.
    """
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    # A list line is one word that starts like a URL; it is parsed once, when fetched
    # (a list of 100,000 URLs is not parsed twice), and one that fails says why then.
    if all(_LIST_LINE.match(line) for line in lines):
        return lines
    from anyurl.url.text import find_urls  # prose only: a plain list needs no finder

    return [found.url for found in find_urls(text)]


#: "scheme:" (RFC 1738 2.1's scheme characters) and no white space: a line of a URL list.
_LIST_LINE = re.compile(r"[A-Za-z0-9+.-]+:[^\s]*\Z")


def _read_inputs(paths: list[str]) -> list[str]:
    urls: list[str] = []
    for path in paths:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        urls += read_url_list(text)
    return urls


_SCHEMELESS = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]+)?(/.*)?\Z", re.S)


def guess_scheme(text: str) -> str | None:
    """``example.org/x`` as curl reads it: ``ftp://`` for an ``ftp.`` host, else
    ``http://`` (the scheme whose descriptor names the longest prefix of the host, ``""``
    any host's); None when ``text`` has a scheme or is not a bare host[/path], or no
    scheme claims the host."""
    head = text.split("/", 1)[0]
    if "://" in text or not _SCHEMELESS.match(text) or "." not in head:
        return None
    if ":" in head and not is_ascii_digits(head.rsplit(":", 1)[1]):
        return None  # "scheme:rest" with a scheme of its own (mailto:, news:)
    from anyurl.registry import specs

    host = head.lower()
    claims = [(len(prefix), spec.name) for spec in specs() for prefix in spec.host_prefixes
              if host.startswith(prefix)]
    if not claims:
        return None
    return f"{max(claims, key=lambda claim: claim[0])[1]}://{text}"


def _urls(given: list[str], input_files: list[str]) -> list[str]:
    urls = []
    for text in given + _read_inputs(input_files):
        guessed = guess_scheme(text)
        if guessed is not None:
            print(f"anyurl: note: {text!r} has no scheme; fetching {guessed} "
                  "(as curl guesses)", file=sys.stderr)
            text = guessed
        urls.append(text)
    return urls


def login_from(text: str | None) -> tuple[str, str | None] | None:
    """``-u USER[:PASSWORD]``; without a password one is asked on a terminal (as curl)."""
    if text is None:
        return None
    user, colon, password = text.partition(":")
    if not user:
        raise ValueError("-u needs a user name (-u USER[:PASSWORD])")
    if colon:
        return user, password
    if sys.stdin.isatty():
        import getpass

        return user, getpass.getpass(f"Enter password for user '{user}': ")
    return user, None  # a server that wants one says so; ftp asks through its callback


#: A ``-w`` variable, ``%%`` or a backslash escape.
WRITE_OUT_PATTERN = re.compile(r"%\{([^{}]*(?:\{[^{}]*\})?)\}|%%|\\[nrt\\]")

#: curl's ``-w`` variables anyurl fills in (all that apply to a transfer here).
WRITE_OUT_VARIABLES = (
    "content_type", "errormsg", "exitcode", "filename_effective", "http_code",
    "http_version", "json", "num_redirects", "response_code", "scheme", "size_download",
    "speed_download", "time_starttransfer", "time_total", "url", "url_effective", "urlnum",
)


def read_write_out(text: str | None) -> str | None:
    """``-w FORMAT``, or the format in FILE for ``-w @FILE`` (``@-``: stdin); a variable
    anyurl does not know is refused (ValueError) before anything is fetched, rather than
    printed as written."""
    if text is None:
        return None
    if text == "@-":
        text = sys.stdin.read()
    elif text.startswith("@"):
        with open(text[1:], encoding="utf-8") as f:
            text = f.read()
    unknown = sorted({m.group(1) for m in WRITE_OUT_PATTERN.finditer(text)
                      if m.group(1) is not None and m.group(1) not in WRITE_OUT_VARIABLES})
    if unknown:
        raise ValueError(
            f"-w: {', '.join('%{' + u + '}' for u in unknown)} is not a variable anyurl "
            f"fills in; it knows {' '.join('%{' + v + '}' for v in WRITE_OUT_VARIABLES)}")
    return text
