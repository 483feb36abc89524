"""``anyurl get``: fetch URLs to stdout or to files, as curl, wget and aria2 users expect.

One URL streams to stdout unless ``-o FILE`` or ``-O`` is given. Many URLs (on the
command line, or from ``-i FILE``) run through :class:`anyurl.downloads.downloader.Downloader`:
``-Z N`` at once with at most ``--per-host`` to one host, each retried on transient
failures (``--retry``) from where it stopped, bounded by ``--max-time`` and
``--stall-timeout``, capped by ``--limit-rate``. Files are written as ``FILE.part``
and renamed when complete (``-C`` continues a ``.part``), so neither a failure nor
Ctrl-C leaves a truncated file under its final name.

``--json`` has two meanings, told apart by where the bodies go: with ``-o``/``-O``
(bodies in files, stdout free) it prints one JSON line per transfer for scripts;
without (bodies on stdout) it asks handlers for menus and listings as JSON items.
Followed by JSON text or ``@FILE`` it is curl's ``--json DATA``
(:func:`~anyurl.cli.get_request.split_json_data`).

The command line is read once, by :func:`~anyurl.cli.get_request.read_request`, into a
frozen :class:`~anyurl.cli.get_request.GetRequest`; the run reads only that.

The exit status is the first failure's curl-compatible code, in the order the URLs
were given; each failure is printed when it happens and, when there are several,
summarised at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import os
import re
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import anyio

from anyurl.cli.common import (
    COMMANDS,
    RawDescriptionHelpFormatter,
    error_text,
    escape_controls,
    late_help,
    print_error,
    print_note,
    print_warning,
)
from anyurl.cli.get_request import (
    WRITE_OUT_PATTERN,
    GetRequest,
    guess_scheme,
    login_from,
    read_request,
    read_url_list,
)
from anyurl.cli.numbers import (
    non_negative_int,
    parse_rate,
    parse_size,
    positive_int,
    seconds,
)
from anyurl.cli.policy_flags import add_policy_flags
from anyurl.cli.scheme_options import add_scheme_arguments, save_state
from anyurl.cli.suggest import looks_like_a_word, suggest
from anyurl.cli.terminal import wanted
from anyurl.downloads.downloader import (
    Downloader,
    DownloadEvents,
    DownloadPolicy,
    Job,
    TransferResult,
)
from anyurl.downloads.names import disposition_filename, remote_name, safe_name
from anyurl.errors import (
    Aborted,
    AnyURLError,
    FileExists,
    LocalWriteError,
    ResumeFailed,
    URLError,
    URLSyntaxError,
)
from anyurl.request import with_login
from anyurl.resolver import Resolver
from anyurl.resource import ResourceInfo
from anyurl.schemes.base import FetchOptions
from anyurl.url import URL, mask, parse
from anyurl.url.model import masked_position

if TYPE_CHECKING:
    from anyurl.cli.progress import TransferProgress
    from anyurl.registry import SchemeSpec

__all__ = ["add_arguments", "add_parser", "guess_scheme", "login_from", "parse_rate",
           "read_url_list", "run"]

EXAMPLES = """examples, one per scheme:
  anyurl get file:///etc/hostname
  anyurl get -o motd.txt 'ftp://ftp.example.org/%2Fetc/motd'
  anyurl get 'ftp://ftp.example.org/pub;type=d'          (a directory listing)
  anyurl get -O http://www.example.org/file.tar.gz
  anyurl get gopher://gopher.example.org/                (a menu, as text)
  anyurl get --json gopher://gopher.example.org/         (the menu as JSON items)
  anyurl get --search 'rfc 1738' gopher://gopher.example.org/7/search
  anyurl get --view 'text/plain De_DE' 'gopher://gopher.example.org/0/doc%09%09+'
  anyurl get --nntp-server news.example.org 'news:comp.infosystems.www'
  anyurl get 'nntp://news.example.org/comp.lang.c/42'
  anyurl get 'wais://wais.example.org:210/db?query'
  anyurl get --follow 'prospero://prospero.example.org//pub/README'
  anyurl get --telnet-command uptime 'telnet://user:secret@host.example.org/'
  anyurl get --smtp-relay mail.example.org --subject hi --data 'Hello.' mailto:a@example.org
  anyurl get --plan 'ftp://user:secret@ftp.example.org/pub/file;type=i'  (what would be sent)

many URLs:
  anyurl get -O -Z 8 --per-host 2 URL URL URL ...        (8 at once, 2 per host)
  anyurl get -O -i urls.txt --output-dir downloads --create-dirs
  anyurl get -O -C --retry 5 --stall-timeout 30 URL      (retry, resuming, when stalled)
  anyurl get -O --json -i mail.txt | jq .status          (a JSON line per transfer)
"""

JSON_HELP = ("with -o/-O: one JSON line per transfer on stdout (url, status, exit_code, "
             "bytes, seconds, file, error); without (bodies on stdout): menus and "
             "listings as JSON items. Followed by JSON data ('{...}', '[...]') or "
             "@FILE: curl's --json, POST it as application/json")


class _WithSchemes(RawDescriptionHelpFormatter):
    """``get --help`` ends with the schemes the registry knows, plug-ins included: asked
    only when the help is printed, so a plain run loads no scheme it does not use."""

    def format_help(self) -> str:
        from anyurl import registry

        rows = []
        for spec in sorted(registry.specs(), key=lambda s: s.names[0]):
            port = f" (port {spec.default_port})" if spec.default_port else ""
            rows.append(f"  {', '.join(spec.names):<16}{spec.summary}{port}")
        return super().format_help() + "\nschemes:\n" + "\n".join(rows) + "\n"


def add_parser(sub: Any) -> None:
    """Add ``anyurl get`` to the subcommands."""
    p = sub.add_parser(
        "get",
        help="fetch URLs (to stdout, or to files with -o/-O)",
        description="Fetch each URL by speaking its scheme's own protocol; many at once.",
        epilog=EXAMPLES,
        formatter_class=_WithSchemes,
    )
    add_arguments(p)
    p.set_defaults(func=run)




def _add_many_arguments(many: Any) -> None:
    """Parallel transfers, retries and limits: curl's names where curl has them."""
    many.add_argument("-Z", "--parallel", type=positive_int, metavar="N",
                      help="transfers at once (default: 'parallel' of the config, 4); "
                      "-Z alone is curl's: 50")
    many.add_argument("--parallel-max", dest="parallel", type=positive_int, metavar="N",
                      help="as -Z N (curl's name)")
    many.add_argument("--dask", metavar="ADDRESS",
                      help="fetch on the Dask cluster whose scheduler is at ADDRESS "
                      "(tcp://host:8786), each host on one worker; needs -O and an "
                      "--output-dir every worker can write (pip install 'anyurl[dask]')")
    many.add_argument("--per-host", type=positive_int, metavar="N",
                      help="transfers at once to one host (default: 'per_host', 2)")
    late_help(many.add_argument("--retry", type=non_negative_int, metavar="N",
                                help="retry a transfer that failed transiently up to N "
                                "times, resuming where the scheme allows"), _retry_help)
    many.add_argument("--retry-delay", type=seconds, metavar="SECONDS",
                      help="wait before the first retry (default 1); each further wait "
                      "doubles, up to --retry-max-delay (default 60)")
    many.add_argument("--retry-max-delay", type=seconds, metavar="SECONDS",
                      help="the longest wait between attempts (default 60), a server's "
                      "Retry-After (429, 503) included")
    many.add_argument("--retry-all-errors", action="store_true", default=None,
                      help="with --retry: retry after any error, not only transient ones "
                      "(as curl's --retry-all-errors)")
    many.add_argument("--retry-jitter", choices=("equal", "full", "none"),
                      help="spread each wait so that clients do not retry in step: 'equal' "
                      "(the default: half the wait plus a random part of the other half), "
                      "'full' (a random part of it), 'none' (the exact doubled wait, as curl)")
    many.add_argument("--stall-timeout", type=seconds, metavar="SECONDS",
                      help="fail (exit 28, retried) when no byte arrives for SECONDS")
    many.add_argument("--limit-rate", type=parse_rate, metavar="RATE",
                      help="cap each transfer at RATE bytes per second (500K, 2M)")
    many.add_argument("--max-filesize", type=parse_size, metavar="BYTES",
                      help="fail (exit 63) a transfer larger than BYTES (500K, 2M, 1G), "
                      "counted after --compressed decoding")


def _add_output_arguments(out: Any) -> None:
    """Where the bodies go: curl's -o/-O/-J, wget's --output-dir, resume, the archive."""
    out.add_argument("-o", "--output", metavar="FILE",
                     help="write to FILE (one URL only; '-' is stdout); an existing FILE "
                     "is replaced when the transfer completes, a device or FIFO written "
                     "in place")
    out.add_argument("-O", "--remote-name", action="store_true",
                     help="save each URL under its remote name (made safe: no '/', no "
                     "leading dots, no control characters)")
    out.add_argument("-J", "--remote-header-name", action="store_true",
                     help="with -O: save under the name the server gives in "
                     "Content-Disposition (filename*= per RFC 6266 too), made safe as -O "
                     "names are; the URL's name without one; never overwriting unless "
                     "--clobber")
    out.add_argument("--output-dir", metavar="DIR", default=".", help="directory for -O")
    out.add_argument("--create-dirs", action="store_true",
                     help="create missing directories of -o FILE and --output-dir")
    clobber = out.add_mutually_exclusive_group()
    clobber.add_argument("--clobber", action="store_true",
                         help="overwrite existing files, remote names (-O) too")
    clobber.add_argument("--no-clobber", action="store_true",
                         help="never overwrite an existing file, not even -o FILE")
    out.add_argument("-C", "--continue", dest="resume", nargs="?", const="-", default=None,
                     metavar="-|OFFSET",
                     help="continue a partial download where it ends, as curl's '-C -' "
                     "and wget's -c: FILE.part of an interrupted run, else FILE itself "
                     "(appended to only when the server sends the bytes after it); "
                     "'-C OFFSET' checks that the file holds OFFSET bytes (to stdout: "
                     "the bytes from OFFSET)")
    late_help(out.add_argument("-R", "--remote-time", action="store_true",
                               help="give a saved file the server's modification time, "
                               "as curl's -R"), _remote_time_help)
    out.add_argument("-D", "--dump-header", metavar="FILE",
                     help="write the response heads as they arrived to FILE ('-' for "
                     "stdout), as curl's -D: each status line and its header lines "
                     "(redirects too) followed by an empty line, else the server's reply "
                     "lines")
    out.add_argument("--raw", action="store_true",
                     help="the bytes the server sent (a menu or a listing as sent), not a "
                     "rendering")
    out.add_argument("--json", action="store_true", help=JSON_HELP)
    late_help(out.add_argument("--warc", metavar="FILE.warc.gz",
                               help="also record every response in a new WARC/1.1 file"),
              _warc_help)
    out.add_argument("--no-progress", action="store_true",
                     help="no progress bars (they are drawn only when stderr is a terminal)")


def _by_scheme(described: Callable[[SchemeSpec], str | None]) -> str:
    """``described(spec)`` of every known scheme that has one, as ``names: text``, the
    schemes of one description together (help text read from the descriptors)."""
    from anyurl.registry import specs

    grouped: dict[str, list[str]] = {}
    for spec in specs():
        text = described(spec)
        if text is not None:
            grouped.setdefault(text, []).extend(spec.names)
    return "; ".join(f"{', '.join(names)}: {text}" if text else ", ".join(names)
                     for text, names in grouped.items())


def _statuses(transient: Callable[[int], bool]) -> str:
    """The statuses 100-599 ``transient`` takes, written short: ``4xx`` for a whole
    hundred, else each one (``408/429/503``)."""
    shown: list[str] = []
    for hundred in range(100, 600, 100):
        codes = [code for code in range(hundred, hundred + 100) if transient(code)]
        if len(codes) == 100:
            shown.append(f"{hundred // 100}xx")
        else:
            shown += map(str, codes)
    return "/".join(shown)


def _retry_help() -> str:
    statuses = _by_scheme(lambda spec: None if spec.transient_status is None
                          else _statuses(spec.transient_status))
    return ("retry a transfer that failed transiently (timeout, lost connection, short "
            f"transfer, a server status that may pass: {statuses}) up to N times, resuming "
            "where the scheme allows")


def _remote_time_help() -> str:
    asked = _by_scheme(lambda spec: "" if spec.time_asked_first else None)
    return ("give a saved file the server's modification time, as curl's -R (from the "
            f"response; asked for first, only then, by {asked})")


def _warc_help() -> str:
    records = _by_scheme(lambda spec: "" if spec.warc_record == "response" else None)
    return (f"also record every response in a new WARC/1.1 file ({records} as response "
            "and request records, other schemes as resource and the dialogue)")


def _user_help() -> str:
    takers = _by_scheme(lambda spec: "" if spec.login else None)
    return (f"the login for {takers}, instead of the URL's (asked for on a terminal "
            "without ':PASSWORD')")


def _scheme_examples() -> str:
    """Schemes as a URL starts with them: those curl would guess for a bare host."""
    from anyurl.registry import specs

    return ", ".join(f"{spec.name}://" for spec in specs() if spec.host_prefixes)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``anyurl get`` (output, many URLs, protocol, scheme options)."""
    p.add_argument("urls", nargs="*", metavar="URL")
    p.add_argument("-i", "--input-file", metavar="FILE", action="append", default=[],
                   help="read URLs from FILE ('-' for stdin): one per line, or found in "
                   "free text as RFC 1738's Appendix describes")
    _add_output_arguments(p.add_argument_group("output"))
    _add_many_arguments(p.add_argument_group("many URLs, retries, limits"))
    proto = p.add_argument_group("protocol")
    proto.add_argument("--plan", action="store_true",
                       help="print the commands that would be sent, without connecting")
    proto.add_argument("-v", "--verbose", action="store_true",
                       help="print the protocol dialogue on stderr (passwords masked)")
    proto.add_argument("-s", "--silent", action="store_true",
                       help="no warnings, no progress bars and no error messages (as "
                       "curl; add -S for the errors)")
    proto.add_argument("-S", "--show-error", action="store_true",
                       help="with -s: still print error messages")
    late_help(proto.add_argument("-u", "--user", metavar="USER[:PASSWORD]",
                                 help="the login instead of the URL's (asked for on a "
                                 "terminal without ':PASSWORD')"), _user_help)
    proto.add_argument("-w", "--write-out", metavar="FORMAT",
                       help="after each transfer print FORMAT with curl's variables: "
                       "%%{response_code} %%{num_redirects} %%{time_starttransfer} "
                       "%%{time_total} %%{url_effective} %%{json} ... (docs/cli.md; an "
                       "unknown one is refused); '@FILE' reads FORMAT from FILE")
    family = proto.add_mutually_exclusive_group()
    family.add_argument("-4", "--ipv4", dest="ip_version", action="store_const", const=4,
                        help="connect over IPv4 only")
    family.add_argument("-6", "--ipv6", dest="ip_version", action="store_const", const=6,
                        help="connect over IPv6 only")
    proto.add_argument("--strict", action="store_true", help="parse URLs strictly")
    proto.add_argument("--search", metavar="TEXT",
                       help="the search term of a URL that names a search without one")
    add_policy_flags(proto)
    proto.add_argument("--connect-timeout", type=seconds, metavar="SECONDS")
    proto.add_argument("--read-timeout", type=seconds, metavar="SECONDS",
                       help="fail when one read waits longer than SECONDS")
    proto.add_argument("-m", "--max-time", type=seconds, metavar="SECONDS",
                       help="fail an attempt that takes longer than SECONDS (exit 28)")
    proto.add_argument("--file-ftp-fallback", action="store_true",
                       help="retry file://otherhost/ URLs as ftp://otherhost/")
    proto.add_argument("--config", metavar="FILE", help="config file (TOML)")
    add_scheme_arguments(p)
    proto.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio",
                       help=argparse.SUPPRESS)


def make_password_prompt() -> Callable[[URL], Any]:
    """A prompt without echo (RFC 1738 3.2.1), one at a time; None when not interactive."""
    lock = anyio.Lock()

    async def ask_password(url: URL) -> str | None:
        if not sys.stdin.isatty():
            return None
        async with lock:
            prompt = f"Password for {url.user}@{url.host}: "
            import getpass

            return await anyio.to_thread.run_sync(getpass.getpass, prompt)

    return ask_password


def make_options(request: GetRequest, *, index: int | None = None,
                 password: Callable[[URL], Any] | None = None,
                 menu_json: bool | None = None,
                 record: Callable[[str], None] | None = None) -> FetchOptions:
    """The FetchOptions of one URL: trace (on stderr with -v, and to ``record``: the
    dialogue kept for a WARC file), password prompt, format, scheme options."""
    trace = None
    if request.verbose or record is not None:
        prefix = f"[{index + 1}] " if index is not None else ""
        verbose = request.verbose

        def trace(line: str) -> None:
            if record is not None:
                record(line)
            if verbose:
                print(escape_controls(prefix + line), file=sys.stderr, flush=True)
    json_format = request.json if menu_json is None else menu_json
    return FetchOptions(trace=trace, password_callback=password, search=request.search,
                        raw=request.raw, format="json" if json_format else "text",
                        byte_range=request.byte_range, schemes=request.scheme_options)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _both(first: Callable[[str], None] | None,
          second: Callable[[str], None] | None) -> Callable[[str], None] | None:
    """Two trace hooks as one (either may be None)."""
    if first is None or second is None:
        return first or second

    def both(line: str) -> None:
        first(line)
        second(line)

    return both


def output_path(request: GetRequest, url: URL, index: int = 0) -> Path | None:
    """Where ``url`` (the run's URL ``index``) goes: ``-o``, ``--output-dir``/remote name
    with ``-O``, or stdout (None)."""
    if request.output:
        return None if request.output == "-" else Path(request.output)
    if not request.remote_name:
        return None
    if request.remote_header_name:
        # -J: the name comes with the response; the file is written under a name of
        # ours, then given its own (CLIEvents.finished, name_from_header).
        return Path(request.output_dir) / f".anyurl-J-{os.getpid()}-{index + 1}"
    return Path(request.output_dir) / remote_name(url)


def name_from_header(request: GetRequest, result: TransferResult) -> None:
    """``-J``: give a completed file the name of the response's ``Content-Disposition``
    (:func:`anyurl.downloads.names.disposition_filename`, made safe by
    :func:`~anyurl.downloads.names.safe_name`), else the URL's as ``-O`` names it. An existing
    file of that name is kept (73; the download is removed), unless ``--clobber``: then
    it is replaced, a symbolic link there too, never written through."""
    temporary = result.job.target
    if temporary is None:
        return
    if not result.ok:  # nothing can continue it (-J refuses -C): no debris left
        with contextlib.suppress(OSError):
            os.unlink(temporary.with_name(temporary.name + ".part"))
        return
    headers = result.info.headers if result.info is not None else ()
    given = disposition_filename(
        next((v for k, v in headers if k.lower() == "content-disposition"), None))
    url = result.job.url
    name = safe_name(given) if given else remote_name(
        url if isinstance(url, URL) else parse(url))
    final = temporary.with_name(name)
    try:
        if request.clobber:
            os.replace(temporary, final)
        else:
            os.link(temporary, final)  # fails on any existing name, a link's included
            os.unlink(temporary)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, FileExistsError):
            result.error = FileExists(
                f"{os.fsdecode(final)!r} exists; not overwriting it with {result.job.shown} "
                "(the name its Content-Disposition gives)",
                hint="Add --clobber to overwrite it, or remove it.")
        else:
            result.error = LocalWriteError(
                f"cannot save {result.job.shown} as {os.fsdecode(final)!r}: "
                f"{exc.strerror or exc}")
        return
    result.job.target = final


class CLIEvents(DownloadEvents):
    """What ``anyurl get`` shows: errors as they happen, retries, JSON lines, bars."""

    def __init__(self, request: GetRequest, bars: TransferProgress | None):
        self.request = request
        self.bars = bars
        self.json_lines = request.json and request.writes_files
        #: When each transfer's response began, and the redirects it followed (-w).
        self.began: dict[int, float] = {}
        self.redirects: dict[int, int] = {}
        self.retries = 0
        #: Set by Ctrl-C / SIGTERM.
        self.interrupted = False
        #: ``-D``: where the heads go, and each transfer's lines not yet written there.
        self.dump: BinaryIO | None = None
        self.heads: dict[int, _Heads] = {}

    #: The WARC recorder of ``--warc`` (None without it).
    archive: _Archive | None = None
    #: Where bodies without a file go (set by the run).
    stdout: _Stdout | None = None

    def started(self, job: Job, info: ResourceInfo, have: int) -> None:
        """Start a progress bar for the transfer (and a WARC capture of stdout)."""
        if self.request.write_out:
            self.began[job.index] = time.monotonic()  # -w %{time_starttransfer}
        stdout = self.stdout
        if job.target is None and stdout is not None and stdout.refuse_binary:
            stdout.current = job.shown  # its only reader: the binary refusal's message
        if self.bars:
            self.bars.started(job, info, have)
        if self.archive is not None:
            self.archive.begin(job)
        self.dump_heads(job.index)  # before the body (-D - writes them to stdout first)

    def progress(self, job: Job, done: int, total: int | None) -> None:
        """Move the transfer's progress bar."""
        if self.bars:
            self.bars.progress(job, done, total)

    def retrying(self, job: Job, error: AnyURLError, retry: int, delay: float,
                 resume_at: int) -> None:
        """Say on stderr that a transfer is retried, when, and from which byte."""
        if not self.request.silent:
            where = f" from byte {resume_at}" if resume_at else ""
            asked = (f" (the server asked for {error.retry_after:.3g}s)"
                     if error.retry_after is not None else "")
            # The message only: what to try is this very retry, not the library's hint.
            print_warning(f"{error.message.rstrip('.')}; retry {retry} of {self.retries} in "
                          f"{delay:.3g}s{asked}{where}")

    def tracer(self, index: int) -> Callable[[str], None] | None:
        """With ``-w %{num_redirects}`` (or ``%{json}``): a trace hook counting the
        redirects URL ``index`` follows (the handlers' ``* following redirect`` lines)."""
        template = self.request.write_out
        if not template or not re.search(r"%\{(num_redirects|json)\}", template):
            return None

        def count(line: str) -> None:
            if line.startswith("* following redirect to "):
                self.redirects[index] = self.redirects.get(index, 0) + 1

        return count

    def header_recorder(self, index: int) -> Callable[[str], None] | None:
        """With ``-D``: a trace hook keeping the server's lines of URL ``index``."""
        if self.dump is None:
            return None
        heads = self.heads.setdefault(index, _Heads())
        return heads.trace

    def dump_heads(self, index: int) -> None:
        """Write what ``-D`` kept of URL ``index`` so far (the open HTTP head ended)."""
        heads = self.heads.get(index)
        if self.dump is None or heads is None:
            return
        data = heads.take()
        if data:
            try:
                self.dump.write(data)
                self.dump.flush()
            except OSError as exc:
                print_warning(f"cannot write the headers (-D): {exc.strerror or exc}")
                self.dump = None

    def finished(self, result: TransferResult) -> None:
        """Report a finished transfer: its error, its --json line, its bar."""
        if self.request.remote_header_name:
            name_from_header(self.request, result)
        self.dump_heads(result.job.index)
        self.heads.pop(result.job.index, None)
        if self.bars:
            self.bars.finished(result)
        if result.error is not None and self.request.shows_errors:
            print_error(result.error)
        if self.archive is not None and result.ok:
            self.archive.record(result)
        if self.json_lines:
            line = result.to_json()
            if result.error is not None:  # in the command line's words, as printed
                line["error"] = error_text(result.error)
            import json  # --json only: not paid by every start

            print(json.dumps(line), flush=True)
        if self.request.write_out:
            index = result.job.index
            began = self.began.pop(index, None)
            start_transfer = None
            if began is not None:  # from the transfer's start to its response
                start_transfer = max(0.0, result.seconds - (time.monotonic() - began))
            sys.stdout.write(write_out(self.request.write_out, result,
                                       redirects=self.redirects.pop(index, 0),
                                       start_transfer=start_transfer))
            sys.stdout.flush()


class _Heads:
    """``-D``: the server's lines of one transfer, from the ``-v`` trace (``< `` lines), as
    curl writes them: each HTTP head (a redirect's too) as its status line and header
    lines, then an empty line; the reply lines of ftp, nntp, smtp ... one after another.
    Header names are lower-cased, as the HTTP handler (and HTTP/2) gives them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.in_head = False

    def trace(self, line: str) -> None:
        if not line.startswith("< "):
            self.end_head()
            return
        text = line[2:]
        if _STATUS_LINE.match(text):
            self.end_head()
            self.in_head = True
        self.lines.append(text)

    def end_head(self) -> None:
        if self.in_head:
            self.lines.append("")
            self.in_head = False

    def take(self) -> bytes:
        """The lines kept so far, CR LF ended, and forgotten."""
        self.end_head()
        lines, self.lines = self.lines, []
        return "".join(f"{line}\r\n" for line in lines).encode("utf-8", "surrogateescape")


#: A status line that starts a head (``PROTOCOL/1.1 200``, the web's and its kin's);
#: reply lines (``226 ...``) are not heads.
_STATUS_LINE = re.compile(r"[A-Z]+/[0-9](\.[0-9])? [0-9]{3}")


class _Archive:
    """``--warc``: the records of each finished transfer, from its file or, for bodies on
    stdout, from a copy taken as they are written (stdout jobs run one after another)."""

    def __init__(self, path: str):
        from anyurl.downloads.warc import WARCOutput

        self.out = WARCOutput(path)
        self.dialogues: dict[int, list[str]] = {}
        self.spool: Any = None

    def recorder(self, index: int) -> Callable[[str], None]:
        """Where URL ``index`` leaves its protocol dialogue."""
        return self.dialogues.setdefault(index, []).append

    def begin(self, job: Job) -> None:
        if job.target is None:
            import tempfile

            self.spool = tempfile.SpooledTemporaryFile(max_size=16 << 20)  # noqa: SIM115 - closed in record()

    def record(self, result: TransferResult) -> None:
        info, job = result.info, result.job
        if info is None:
            return
        dialogue = self.dialogues.pop(job.index, [])
        if job.target is not None:
            with open(job.target, "rb") as payload:
                self.out.write_result(info, payload, dialogue)
        elif self.spool is not None:
            self.spool.seek(0)
            self.out.write_result(info, self.spool, dialogue)
            self.spool.close()
            self.spool = None

    def tee(self, sink: _Stdout) -> _Teed:
        return _Teed(sink, self)

    def close(self) -> None:
        self.out.close()


class _Teed:
    """stdout that also keeps what it is given for the WARC record (no ``fileno``: the
    bytes pass through Python so that they can be kept)."""

    def __init__(self, sink: _Stdout, archive: _Archive):
        self.sink = sink
        self.archive = archive

    def write(self, data: bytes) -> int:
        if self.archive.spool is not None:
            self.archive.spool.write(data)
        return self.sink.write(data)

    def flush(self) -> None:
        self.sink.flush()


class _Stdout:
    """stdout for bodies; once the reader has gone (EPIPE), later writes go nowhere.

    On a terminal (unless ``-o -`` asks for it), a body with a NUL byte is refused, as
    curl refuses it: binary output can leave the terminal in a state its user cannot
    read or type in. Such a body is checked chunk by chunk, so it is never moved by the
    kernel (no ``fileno``).
    """

    def __init__(self, *, refuse_binary: bool = False) -> None:
        self.buffer: BinaryIO = sys.stdout.buffer
        self.refuse_binary = refuse_binary
        #: The URL being written (set as each transfer to stdout starts), for messages.
        self.current = ""

    def write(self, data: bytes) -> int:
        if self.refuse_binary and b"\0" in data:
            raise LocalWriteError(
                f"{self.current} is binary, which can mess up your terminal; not "
                "writing it there", hint="Save it to a file, or pass it on with a pipe.",
                remedy=("binary_output",))
        try:
            return self.buffer.write(data)
        except BrokenPipeError:
            self._detach()
            raise

    def flush(self) -> None:
        try:
            self.buffer.flush()
        except BrokenPipeError:
            self._detach()
            raise

    def fileno(self) -> int:
        """stdout's descriptor: a raw body is moved into it by the kernel (anyurl.net.bulk);
        none while bodies are checked for binary bytes (they must pass :meth:`write`)."""
        if self.refuse_binary:
            raise OSError("stdout is a terminal: bodies are checked, not moved")
        return self.buffer.fileno()

    def broken(self) -> None:
        """A move into stdout failed (the reader went away): later writes go nowhere."""
        self._detach()

    def _detach(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _resolver(request: GetRequest) -> Resolver:
    return Resolver(request.config, strict=request.strict,
                    warn=(lambda m: None) if request.silent else print_warning,
                    note=print_note if request.verbose else (lambda m: None))


async def _plan(request: GetRequest) -> int:
    failures: list[AnyURLError] = []
    urls = request.urls
    async with _resolver(request) as resolver:
        for text in urls:
            try:
                for line in resolver.plan(text, make_options(request)):
                    print(line)
            except AnyURLError as exc:
                print_error(exc)
                failures.append(exc)
    if len(failures) > 1:
        print(f"anyurl: {len(failures)} of {len(urls)} URLs failed", file=sys.stderr)
    return failures[0].exit_code if failures else 0


async def fetch_all(request: GetRequest) -> int:
    """Fetch every URL of the run (or print plans); the exit status."""
    if request.plan:
        return await _plan(request)
    bars = _progress_bars(request)
    events = CLIEvents(request, bars)
    results: dict[int, TransferResult] = {}
    async with _resolver(request) as resolver:
        policy = DownloadPolicy.from_config(
            request.config, resume=request.resume,
            clobber=True if request.clobber else False if request.no_clobber else None,
            create_dirs=request.create_dirs, remote_time=request.remote_time)
        events.retries = policy.retry
        downloader = Downloader(resolver, policy, events=events, sink=_open_outputs(events))
        jobs = _jobs(request, resolver, events, results)
        try:
            done = await _run_jobs(downloader, jobs, bars, events)
        finally:
            _close_outputs(events)
    saved = save_state(request.state, shows_errors=request.shows_errors)
    if events.interrupted:
        return _report_interrupt(jobs)
    for job, result in zip(jobs, done, strict=True):
        results[job.index] = result
    return _summary([results[i] for i in sorted(results)], request, bars, otherwise=saved)


def _progress_bars(request: GetRequest) -> TransferProgress | None:
    """The progress bars of the run, when they are wanted (a terminal, not ``-s``)."""
    files = request.writes_files
    if request.no_progress or not wanted(silent=request.silent, body_to_stdout=not files):
        return None
    from anyurl.cli.progress import TransferProgress  # rich costs 50 ms to import

    return TransferProgress(len(request.urls))


def _open_outputs(events: CLIEvents) -> Any:
    """Where the run's bodies without a file go (stdout, teed into ``--warc``'s
    archive), and ``-D``'s file: set on ``events``; the sink for the downloader."""
    request = events.request
    sink = _Stdout(refuse_binary=request.output != "-" and _isatty(sys.stdout))
    events.stdout = sink
    if request.dump_header is not None:
        events.dump = open_dump(request.dump_header)
    if not request.warc:
        return sink
    events.archive = _Archive(request.warc)
    return events.archive.tee(sink)


def _close_outputs(events: CLIEvents) -> None:
    """Close what :func:`_open_outputs` opened (not stdout)."""
    if events.archive is not None:
        events.archive.close()
    if events.dump is not None and events.request.dump_header != "-":
        events.dump.close()


def _jobs(request: GetRequest, resolver: Resolver, events: CLIEvents,
          results: dict[int, TransferResult]) -> list[Job]:
    """A job of each URL of the run; a URL refused before any connection (it does not
    parse, its file cannot be continued) goes to ``results`` as failed instead."""
    password = make_password_prompt()
    jobs: list[Job] = []
    # Without a trace hook every URL's options are the same: one object for all
    # (a FetchOptions built and checked per URL cost about 5 µs of a small file).
    shared: FetchOptions | None = None
    for i, text in enumerate(request.urls):
        try:
            url, target = _url_and_target(request, resolver, text, i)
        except AnyURLError as exc:
            results[i] = TransferResult(Job(text, index=i), error=exc)
            events.finished(results[i])
            continue
        record = _both(_both(events.archive.recorder(i) if events.archive is not None
                             else None, events.tracer(i)), events.header_recorder(i))
        if record is None and not request.verbose and shared is not None:
            options = shared
        else:
            options = make_options(
                request, index=i if len(request.urls) > 1 else None, password=password,
                menu_json=request.json and not request.writes_files, record=record)
            if record is None and not request.verbose:
                shared = options
        jobs.append(Job(url, target, options, index=i,
                        named_by_user=not (request.remote_name and not request.output)))
    return jobs


def _url_and_target(request: GetRequest, resolver: Resolver, text: str,
                    index: int) -> tuple[URL, Path | None]:
    """URL ``index`` of the run, parsed once (the job carries the URL, not its text),
    with ``-u``'s login, and where it goes (``-C OFFSET`` checked against it)."""
    try:
        url = resolver.parse(text)
    except URLSyntaxError as exc:
        raise not_a_url(text, exc) from None
    url = with_login(url, request.login)
    target = output_path(request, url, index)
    if target is not None and request.resume_from is not None:
        check_resume_from(target, request.resume_from)
    return url, target


async def _run_jobs(downloader: Downloader, jobs: list[Job], bars: TransferProgress | None,
                    events: CLIEvents) -> list[TransferResult]:
    """The jobs' results, the bars drawn meanwhile; Ctrl-C or SIGTERM cancels the run
    (``events.interrupted``: the results are then not all there)."""
    done: list[TransferResult] = []
    with bars if bars is not None else contextlib.nullcontext():
        async with anyio.create_task_group() as tg:
            tg.start_soon(_cancel_on_signal, tg.cancel_scope, events)
            done = await downloader.run(jobs)
            tg.cancel_scope.cancel()  # the run is over: stop listening for signals
    return done


def _summary(ordered: list[TransferResult], request: GetRequest,
             bars: TransferProgress | None, *, otherwise: int) -> int:
    """The failures of several, listed on stderr unless the bars' table has listed them;
    the first failure's exit status, or ``otherwise`` when none failed."""
    failures = [r for r in ordered if r.error is not None]
    if len(failures) > 1 and request.shows_errors and bars is None:
        # (with bars the summary table has listed them: not twice)
        print(f"anyurl: {len(failures)} of {len(ordered)} URLs failed:", file=sys.stderr)
        for r in failures:
            print(escape_controls(f"  {r.job.shown}: exit {r.exit_code}"), file=sys.stderr)
    return failures[0].exit_code if failures else otherwise


def open_dump(name: str) -> BinaryIO:
    """``-D FILE``: the file the heads go to (replaced, as curl does), or stdout for '-'."""
    if name == "-":
        return sys.stdout.buffer
    try:
        return open(name, "wb")
    except OSError as exc:
        raise LocalWriteError(f"cannot write the headers to {name!r} (-D): "
                              f"{exc.strerror or exc}") from exc


async def _cancel_on_signal(scope: anyio.CancelScope, events: CLIEvents) -> None:
    """Ctrl-C (or SIGTERM) cancels the run: connections close, ``.part`` files stay."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            events.interrupted = True
            scope.cancel()
            return


def not_a_url(text: str, exc: URLSyntaxError) -> URLError:
    """A URL that does not parse, named (password masked), and what was probably meant:
    a command (``mirorr``), an option without its dashes (``plan``)."""
    meant = suggest(text, COMMANDS, _option_strings())
    hint = f"Did you mean '{meant}'?" if meant else None
    if hint is None and looks_like_a_word(text):
        hint = f"A URL starts with its scheme ({_scheme_examples()}, ...); 'anyurl --help' " \
               "lists the commands."
    shown = masked_position(text, exc.position)  # where the problem is in what is shown
    return URLError(f"{mask(text)!r} is not a URL: {exc.problem} at position {shown}",
                    hint=hint)


@functools.cache
def _option_strings() -> tuple[str, ...]:
    """Every option of ``anyurl get``: built once, not once per unparsable URL."""
    return tuple(o for a in _option_actions() for o in a.option_strings)


def _option_actions() -> list[argparse.Action]:
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    return list(parser._actions)


def check_resume_from(target: Path, offset: int) -> None:
    """``-C OFFSET`` with a file: what is continued (``FILE.part``, else ``FILE``) must
    hold exactly OFFSET bytes. curl appends after whatever is there; anyurl neither
    leaves a gap nor cuts bytes off a file, so a mismatch is refused before connecting."""
    part = target.with_name(target.name + ".part")
    have = None
    try:  # the .part of an interrupted run first, as the write path continues it
        have = (os.lstat(part) if os.path.lexists(part) else os.stat(target)).st_size
    except OSError:
        pass  # none there (or the write path says why, when it plans the target)
    if (have or 0) == offset:
        return
    what = (f"there is no {str(target)!r} to continue" if have is None
            else f"{str(target)!r} holds {have} bytes, not {offset}")
    raise ResumeFailed(f"-C {offset}: {what}",
                       hint="'-C -' continues a file from its end; '-r OFFSET-' fetches the "
                       "bytes from OFFSET on their own.")


def _report_interrupt(jobs: list[Job]) -> int:
    parts = [job.target.with_name(job.target.name + ".part") for job in jobs
             if job.target is not None]
    kept = [str(p) for p in parts if p.exists()]
    error = Aborted("interrupted; no file was left under its final name",
                      hint=f"Partial data is kept in {', '.join(kept)}; continue with -C."
                      if kept else None)
    print_error(error)
    return error.exit_code


def _fetch_on_dask(request: GetRequest) -> int:
    """``--dask``: the URLs sharded by host over the cluster's workers (anyurl.mirror.scale)."""
    config, urls = request.config, list(request.urls)
    if not request.remote_name:
        print("anyurl: --dask saves files on the workers: add -O (and --output-dir DIR "
              "on storage they share)", file=sys.stderr)
        return 2
    try:
        from anyurl.mirror.scale import fetch_many_dask
    except ImportError:  # pragma: no cover - the dask extra is missing
        print("anyurl: --dask needs Dask: pip install 'anyurl[dask]'", file=sys.stderr)
        return 2
    settings = {name: getattr(config, name) for name in (
        "connect_timeout", "read_timeout", "max_time", "stall_timeout", "limit_rate",
        "max_filesize", "ip_version", "use_netrc")}
    try:
        results = fetch_many_dask(urls, request.dask, os.path.abspath(request.output_dir),
                                  config=settings, retry=config.retry,
                                  per_host=config.per_host, parallel=config.parallel,
                                  backend=request.backend)
    except OSError as exc:
        print(f"anyurl: cannot use the Dask cluster at {request.dask}: {exc}",
              file=sys.stderr)
        return 7
    failures = [r for r in results if r.exit_code]
    for r in failures:
        if request.shows_errors:
            print(escape_controls(f"anyurl: {r.url}: {r.error}"), file=sys.stderr)
    if request.json:
        import json

        for r in results:
            print(json.dumps(dataclasses.asdict(r)))
    if not request.silent:
        workers = len({r.worker for r in results})
        print(f"anyurl: {len(results) - len(failures)} of {len(results)} URLs done on "
              f"{workers} worker(s), {len(failures)} failed", file=sys.stderr)
    order = {u: i for i, u in enumerate(urls)}
    failures.sort(key=lambda r: order.get(r.url, len(order)))
    return failures[0].exit_code if failures else 0


def run(args: argparse.Namespace) -> int:
    """``anyurl get``: read the URLs and options once (:func:`read_request`), fetch, and
    return the exit status."""
    request = read_request(args)
    if isinstance(request, int):  # refused, and said why
        return request
    if request.dask:
        return _fetch_on_dask(request)
    try:
        return anyio.run(fetch_all, request, backend=request.backend)
    except KeyboardInterrupt:  # before the signal handler was in place, or after
        print_error(Aborted("interrupted"))
        return Aborted.exit_code


def write_out_values(result: TransferResult, *, redirects: int = 0,
                     start_transfer: float | None = None) -> dict[str, Any]:
    """curl's ``-w`` variables for ``result``, typed as ``%{json}`` prints them.

    ``http_code``/``response_code`` is what the server last answered
    (:attr:`ResourceInfo.response_code`: the HTTP status, FTP's last reply code; 0 when no
    answer came; for a failed transfer, the status that failed it); ``redirects`` and
    ``start_transfer`` (seconds until the response began) are what the run observed.
    """
    info = result.info
    code = info.response_code if info is not None else 0
    if not code and result.error is not None and result.error.status is not None:
        code = result.error.status  # the answer that failed it (404 ...)
    url = result.job.url
    scheme = (url.scheme if isinstance(url, URL) else url.partition(":")[0]).upper()
    version = info.extra.get("http_version") if info is not None else None
    return {
        "content_type": info.content_type if info is not None else None,
        "errormsg": error_text(result.error) if result.error is not None else None,
        "exitcode": result.exit_code,
        "filename_effective": (os.fsdecode(result.job.target) if result.job.target
                               else None),
        "http_code": code,
        "http_version": str(version) if version else "0",
        "num_redirects": redirects,
        "response_code": code,
        "scheme": scheme,
        "size_download": result.bytes,
        "speed_download": int(result.bytes / result.seconds) if result.seconds else 0,
        "time_starttransfer": start_transfer if start_transfer is not None else 0.0,
        "time_total": result.seconds,
        "url": result.job.shown,
        "url_effective": info.url.masked() if info is not None else result.job.shown,
        "urlnum": result.job.index,
    }


def write_out(template: str, result: TransferResult, *, redirects: int = 0,
              start_transfer: float | None = None) -> str:
    """curl's ``-w``: the template with ``%{variable}``, ``%%`` and ``\\n`` replaced
    (the variables of :data:`WRITE_OUT_VARIABLES`; :func:`read_write_out` refused the
    others). Times have six decimals and a missing value is empty, as curl prints them;
    ``%{json}`` is every variable as one JSON object. Control characters of a value are
    written ``\\xNN`` (:func:`escape_controls`); the template's own ``\\n`` stays."""
    values = write_out_values(result, redirects=redirects, start_transfer=start_transfer)
    escapes = {"%%": "%", "\\n": "\n", "\\r": "\r", "\\t": "\t", "\\\\": "\\"}

    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name is None:
            return escapes[m.group(0)]
        if name == "json":
            import json

            return json.dumps(values)
        value = values[name]
        if name == "http_code":
            return f"{value:03d}"
        if isinstance(value, float):
            return f"{value:.6f}"
        # Text a server or a URL chose (a Content-Type, a reply in errormsg, a name
        # from -J or the URL) reaches the terminal inert, as the error line does;
        # %{json} needs nothing: json.dumps writes every control as \uNNNN.
        return "" if value is None else escape_controls(str(value))

    return WRITE_OUT_PATTERN.sub(one, template)
