"""``anyurl mirror``: copy a Gopher hole, an FTP tree, a site or a newsgroup, resumably.

The crawl itself is :mod:`anyurl.mirror`; this module reads the options, shows
progress (found / done / failed / bytes on one line of stderr, on a terminal) and says
at the end what was done and what failed.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from anyurl.cli.common import (
    error_text,
    escape_controls,
    human_bytes,
    late_help,
    print_error,
    print_warning,
)
from anyurl.cli.numbers import (
    non_negative_int,
    parse_rate,
    parse_size,
    positive_int,
    seconds,
)
from anyurl.cli.policy_flags import add_policy_flags, apply_policy_flags
from anyurl.cli.terminal import wanted
from anyurl.errors import Aborted, AnyURLError

if TYPE_CHECKING:
    from anyurl.config import Config
    from anyurl.mirror import MirrorOptions, MirrorSummary
    from anyurl.registry import RunState

__all__ = ["add_parser", "run"]

EXAMPLES = """\
examples:
  anyurl mirror -o hole gopher://gopher.example.org/1/
  anyurl mirror -o tree --depth 3 --exclude '*.iso' ftp://ftp.example.org/pub/
  anyurl mirror -o site --warc site.warc.gz https://example.org/docs/
  anyurl mirror -o news nntp://news.example.org/comp.lang.python
  anyurl mirror -o hole            # resume the crawl kept in hole/ after Ctrl-C or a kill,
                                   # or, once it is finished, refresh it: fetch what is
                                   # new or changed, report what is gone
  anyurl mirror -o site --warc site.warc.gz --warc-cdx https://example.org/docs/

The tree mirrors the URLs (DIR/SCHEME/HOST[_PORT]/PATH); listings and menus are kept as
the server sent them (.listing, gophermap, index.html, .group); DIR/manifest.jsonl has
one line per file (url, file, size, sha256, time); the crawl's state is
DIR/.anyurl-mirror.sqlite, so the same command continues where it stopped.
"""


def _add_keeping_arguments(p: argparse.ArgumentParser) -> None:
    """What a crawl keeps beside the files it fetches: more views, renderings, links
    recorded or followed, the WARC archive (its own group of options, as wget's; a
    scheme's own, Gopher+'s views, FTP's symbolic links, are its flags')."""
    p.add_argument("--render", action="store_true",
                   help="also save a rendering beside each menu (gophermap.txt: text with "
                   "URLs); the raw listing is always kept")
    p.add_argument("--warc", metavar="FILE.warc.gz",
                   help="also write every response to this WARC file (appended on resume)")
    p.add_argument("--warc-cdx", action="store_true",
                   help="with --warc: also write the archive's CDXJ index beside it "
                   "(site.cdxj, as pywb reads it)")
    p.add_argument("--warc-max-size", metavar="SIZE",
                   help="with --warc: start a new file (site-00001.warc.gz ...) once one "
                   "reaches SIZE (500M, 1G)")


def add_parser(sub: Any) -> None:
    """Add ``anyurl mirror`` to the subcommands."""
    p = sub.add_parser(
        "mirror", help="copy what URLs lead to, recursively",
        description="Copy what the URLs lead to, recursively, into a directory; resumable.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    late_help(sub._choices_actions[-1], _command_help)  # the line of 'anyurl --help'

    p.add_argument("urls", nargs="*", metavar="URL",
                   help="where to start (none: resume the crawl in -o DIR)")
    p.add_argument("-o", "--output-dir", metavar="DIR", default=".",
                   help="the mirror's directory (default: the current one)")
    p.add_argument("--depth", type=non_negative_int, metavar="N",
                   help="follow links at most N deep (default: no limit)")
    p.add_argument("--include", metavar="PATTERN", action="append", default=[],
                   help="only URLs matching this shell pattern (repeatable)")
    p.add_argument("--exclude", metavar="PATTERN", action="append", default=[],
                   help="never URLs matching this shell pattern (repeatable; wins)")
    p.add_argument("--span-hosts", action="store_true",
                   help="follow links to other hosts (default: the start URLs' servers, "
                   "under their paths)")
    late_help(p.add_argument("--no-robots", action="store_true", help="ignore robots.txt"),
              _robots_help)
    p.add_argument("--no-page-requisites", action="store_true",
                   help="hold a page's style sheets, images, scripts and frames to the "
                   "start directory and --depth too (default: fetched wherever they are "
                   "on the server, so that saved pages render; wget's -p)")
    _add_keeping_arguments(p)
    p.add_argument("-Z", "--parallel", type=positive_int, default=4, metavar="N",
                   help="transfers at once (default 4)")
    p.add_argument("--per-host", type=positive_int, default=2, metavar="N",
                   help="transfers at once to one host (default 2)")
    p.add_argument("--wait", type=seconds, default=0.0, metavar="SECONDS",
                   help="pause between two requests to one host (default none: at most "
                   "--per-host connections to a host, and a robots.txt Crawl-delay is "
                   "honoured)")
    p.add_argument("--retry", type=non_negative_int, default=3, metavar="N",
                   help="retry a transient failure up to N times, with backoff (default 3)")
    p.add_argument("--retry-failed", action="store_true",
                   help="try the URLs that failed in an earlier run again")
    p.add_argument("--limit-rate", metavar="RATE",
                   help="cap each transfer at RATE bytes per second (500K, 2M)")
    p.add_argument("--dask", metavar="ADDRESS",
                   help="crawl on the Dask cluster at ADDRESS (tcp://host:8786): each start "
                   "URL's host on one worker, into DIR/<host>/ (storage every worker sees)")
    p.add_argument("--no-refresh", action="store_true",
                   help="run over a finished crawl without checking it again (default: "
                   "check every URL, fetch what is new or changed)")
    p.add_argument("--config", metavar="FILE", help="config file (TOML)")
    _add_request_arguments(p.add_argument_group("requests (as anyurl get and curl)"))
    p.add_argument("-s", "--silent", action="store_true",
                   help="no progress and no messages but errors")
    p.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio",
                   help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def _user_help() -> str:
    """``-u``'s help: the schemes a mirror walks whose descriptors take a login."""
    from anyurl.registry import specs

    takers = [name for spec in specs() if spec.login and spec.crawl is not None
              for name in spec.names]
    return f"the login for the start URLs' servers ({', '.join(takers)})"


def _command_help() -> str:
    """The command's line in ``anyurl --help``: what it copies, as the schemes' crawls
    call their trees (:attr:`~anyurl.registry.Crawl.called`)."""
    from anyurl.registry import specs

    called = list(dict.fromkeys(spec.crawl.called for spec in specs()  # one per scheme
                                if spec.crawl is not None and spec.crawl.called))
    listed = ", ".join(called[:-1]) + (" or " if len(called) > 1 else "") + called[-1] \
        if called else "what URLs lead to"
    return f"copy {listed} recursively"


def _robots_help() -> str:
    """``--no-robots``' help: the schemes whose crawl obeys robots.txt (RFC 9309)."""
    from anyurl.registry import specs

    obeying = [name for spec in specs() if spec.crawl is not None and spec.crawl.robots
               for name in spec.names]
    return f"ignore robots.txt ({', '.join(obeying)})"


def _add_request_arguments(r: argparse._ArgumentGroup) -> None:
    """The request options ``mirror`` shares with ``anyurl get`` and curl."""
    r.add_argument("-v", "--verbose", action="store_true",
                   help="show each protocol line (passwords masked)")
    late_help(r.add_argument("-u", "--user", metavar="USER[:PASSWORD]",
                             help="the login for the start URLs' servers"), _user_help)
    from anyurl.cli.scheme_options import add_tls_arguments, add_verify_arguments

    add_verify_arguments(r)
    add_tls_arguments(r)
    r.add_argument("--connect-timeout", type=seconds, metavar="SECONDS")
    r.add_argument("--read-timeout", type=seconds, metavar="SECONDS",
                   help="fail when one read waits longer than SECONDS")
    r.add_argument("-m", "--max-time", type=seconds, metavar="SECONDS",
                   help="fail a transfer that takes longer than SECONDS (exit 28)")
    add_policy_flags(r)


class _Status:
    """found / done / failed / bytes, the rate and the URL done last, on one line of
    stderr (cut to the terminal's width), redrawn at most 5 times a second."""

    def __init__(self, show: bool):
        self.show = show
        self.last = 0.0
        self.drawn = False
        self.started = time.monotonic()
        self.first_bytes: int | None = None

    def __call__(self, counts: dict[str, int], current: str | None = None) -> None:
        if not self.show:
            return
        now = time.monotonic()
        if self.first_bytes is None:
            self.first_bytes = counts.get("bytes", 0)
        if now - self.last < 0.2:
            return
        self.last = now
        rate = (counts.get("bytes", 0) - self.first_bytes) / max(now - self.started, 1e-3)
        line = f"{_line(counts)}, {human_bytes(int(rate))}/s"
        if current:
            line += f"  {current}"
        width = shutil.get_terminal_size((100, 24)).columns - 1
        sys.stderr.write("\r" + escape_controls(line)[:width] + "\x1b[K")
        sys.stderr.flush()
        self.drawn = True

    def end(self) -> None:
        if self.drawn:
            sys.stderr.write("\n")


def _line(counts: dict[str, int]) -> str:
    found = sum(counts.get(k, 0) for k in ("queued", "running", "done", "failed"))
    return (f"mirror: found {found}, done {counts.get('done', 0)}, failed "
            f"{counts.get('failed', 0)}, {human_bytes(counts.get('bytes', 0))}")


def run(args: argparse.Namespace) -> int:
    """``anyurl mirror``: crawl, and return the exit status (0, or the first failure's)."""
    from anyurl.cli.get_request import guess_scheme, login_from
    from anyurl.config import load_config
    from anyurl.mirror import Mirror, MirrorOptions
    from anyurl.resolver import Resolver

    try:
        config = _config(args, load_config(args.config))
        rate = parse_rate(args.limit_rate) if args.limit_rate else None
        max_size = parse_size(args.warc_max_size) if args.warc_max_size else None
        login = login_from(args.user)
        from anyurl.cli.scheme_options import flag_mirror, flag_state, scheme_options

        state = flag_state(args, None if args.silent else print_warning,
                           spread="--dask" if args.dask else None)
        schemes = scheme_options(args, state=state)
        settings = flag_mirror(args)
    except (OSError, ValueError, argparse.ArgumentTypeError, AnyURLError) as exc:
        print(escape_controls(f"anyurl: {exc}"), file=sys.stderr)
        return 2
    if (args.warc_cdx or args.warc_max_size) and not args.warc:
        print("anyurl: --warc-cdx and --warc-max-size need --warc FILE", file=sys.stderr)
        return 2
    urls = [guess_scheme(u) or u for u in args.urls]
    options = MirrorOptions(
        root=Path(args.output_dir), max_depth=args.depth, include=tuple(args.include),
        exclude=tuple(args.exclude), span_hosts=args.span_hosts, robots=not args.no_robots,
        parallel=max(1, args.parallel), per_host=max(1, args.per_host), wait=args.wait,
        retry=args.retry, limit_rate=rate,
        warc=Path(args.warc) if args.warc else None, retry_failed=args.retry_failed,
        render=args.render, refresh=not args.no_refresh,
        page_requisites=not args.no_page_requisites,
        warc_max_size=max_size, warc_cdx=args.warc_cdx,
        schemes=schemes, login=login,
        trace=_verbose if args.verbose else None, **settings)
    status = _Status(not args.silent and wanted(silent=args.silent, body_to_stdout=False))
    if args.dask:
        return _mirror_on_dask(args, options, urls, settings)

    async def crawl() -> MirrorSummary | None:
        """The summary; None when Ctrl-C or SIGTERM stopped it (the state is kept)."""
        async with Resolver(config.replace(per_host=options.per_host),
                            warn=(lambda m: None) if args.silent else print_warning,
                            note=lambda m: None) as resolver, anyio.create_task_group() as tg:
            tg.start_soon(_cancel_on_signal, tg.cancel_scope)
            summary = await Mirror(resolver, options, status).run(urls)
            tg.cancel_scope.cancel()
            return summary
        return None  # cancelled by a signal

    from anyurl.cli.memory import hold_mmap_threshold

    hold_mmap_threshold()  # a long crawl's heap stays its live data, not its history
    try:
        summary = anyio.run(crawl, backend=args.backend)
    except KeyboardInterrupt:
        summary = None
    except AnyURLError as exc:
        status.end()
        _save_state(args, state)
        return print_error(exc)
    status.end()
    saved = _save_state(args, state)
    if summary is None:
        return print_error(Aborted(
            f"the mirror in {args.output_dir} was interrupted; what it fetched is kept, "
            "with the URLs still to fetch",
            hint="Run the same command again to continue where it stopped."))
    _print_summary(args, urls, summary)
    return summary.exit_code or saved


def _print_summary(args: argparse.Namespace, urls: list[str], summary: MirrorSummary) -> None:
    """The failures, then (unless ``-s``) links skipped, the refresh and the totals."""
    _print_failures([(url, error_text(exc)) for url, exc in summary.failures],
                    summary.failed_now, args.output_dir)
    if args.silent:
        return
    _print_skipped(summary.links_found, summary.links_skipped)
    _print_refresh(summary)
    started = f"{len(urls)} start URL(s)" if urls else "the crawl stored"
    print(f"anyurl: mirror of {started} in "
          f"{args.output_dir}: {summary.done} done "
          f"({_now(summary.fetched_now, summary.not_modified_now)}), "
          f"{summary.failed} failed, {human_bytes(summary.bytes)}", file=sys.stderr)
    if summary.cdxj is not None:
        print(f"anyurl: CDXJ index: {summary.cdxj}", file=sys.stderr)


def _save_state(args: argparse.Namespace, state: tuple[RunState, ...]) -> int:
    """What the crawl kept (``-c FILE``: its cookies), written back as ``anyurl get``
    writes it."""
    from anyurl.cli.scheme_options import save_state

    return save_state(state, shows_errors=not args.silent)


def _print_refresh(summary: MirrorSummary) -> None:
    """What a refresh found: new, changed and unchanged URLs, and what is gone."""
    if summary.refreshed:
        outcomes = summary.outcomes
        print(f"anyurl: refreshed: {outcomes.get('new', 0)} new, "
              f"{outcomes.get('changed', 0)} changed, {outcomes.get('unchanged', 0)} "
              "unchanged", file=sys.stderr)
    if summary.gone:
        print(f"anyurl: {summary.gone} URL{'s' if summary.gone != 1 else ''} saved before "
              "no longer listed by the server (their files are kept):", file=sys.stderr)
        for url in summary.gone_sample:
            print(escape_controls(f"anyurl:   {url}"), file=sys.stderr)
        if summary.gone > len(summary.gone_sample):
            print(f"anyurl:   ... and {summary.gone - len(summary.gone_sample)} more",
                  file=sys.stderr)


def _verbose(line: str) -> None:
    """``-v``: one protocol line on stderr (the handlers mask passwords)."""
    print(escape_controls(line), file=sys.stderr, flush=True)


def _config(args: argparse.Namespace, config: Config) -> Config:
    """The config file's settings, then the command line's timeouts and ports."""
    changes: dict[str, Any] = {}
    for name in ("connect_timeout", "read_timeout", "max_time"):
        value = getattr(args, name, None)
        if value is not None:
            changes[name] = value
    return apply_policy_flags(args, config.replace(**changes))


def _mirror_on_dask(args: argparse.Namespace, options: MirrorOptions, urls: list[str],
                    settings: dict[str, Any]) -> int:
    """``--dask``: each start URL's host crawled by the worker that owns it (with the
    crawl's settings of the schemes' own flags, ``settings``)."""
    if not urls:
        print("anyurl: --dask needs the start URLs", file=sys.stderr)
        return 2
    from anyurl.mirror.scale import mirror_dask

    fields = {k: getattr(options, k) for k in (
        "max_depth", "include", "exclude", "span_hosts", "robots", "parallel", "per_host",
        "wait", "retry", "limit_rate", "retry_failed", "render", "refresh",
        "page_requisites", *settings)}
    if options.warc is not None:
        print("anyurl: with --dask each worker writes its own WARC file: "
              "DIR/<host>/mirror.warc.gz", file=sys.stderr)
    try:
        reports = mirror_dask(urls, args.dask, str(options.root.resolve()), options=fields,
                              warc_name="mirror.warc.gz" if options.warc else None,
                              backend=args.backend)
    except OSError as exc:
        print(f"anyurl: cannot use the Dask cluster at {args.dask}: {exc}", file=sys.stderr)
        return 7
    failed = 0
    for report in reports:
        failed += report.get("failed_now", len(report["errors"]))
        _print_failures(report["errors"], report.get("failed_now", len(report["errors"])),
                        report["root"])
        if not args.silent:
            _print_skipped(report.get("links_found", 0), report.get("links_skipped", 0))
            if report.get("refreshed"):
                outcomes = report.get("outcomes", {})
                print(f"anyurl: {report['root']} refreshed: {outcomes.get('new', 0)} new, "
                      f"{outcomes.get('changed', 0)} changed, "
                      f"{outcomes.get('unchanged', 0)} unchanged, "
                      f"{report.get('gone', 0)} no longer listed", file=sys.stderr)
            print(f"anyurl: {report['root']} on {report['worker']}: {report['done']} done "
                  f"({_now(report['fetched_now'], report.get('not_modified_now', 0))}), "
                  f"{report['failed']} failed, "
                  f"{human_bytes(report['bytes'])}", file=sys.stderr)
    return 1 if failed else 0


def _now(fetched: int, not_modified: int) -> str:
    """``3 now`` (bodies fetched in this run), and the 304s that cost no body."""
    return f"{fetched} now" + (f", {not_modified} not modified" if not_modified else "")


def _print_failures(errors: list[tuple[str, str]], count: int, where: str) -> None:
    """The failures kept as a sample (the first ones), and how many more the state holds."""
    for url, failure in errors:
        print(escape_controls(f"anyurl: {url}: {failure}"), file=sys.stderr)
    if count > len(errors):
        print(escape_controls(
            f"anyurl: ... and {count - len(errors)} more failures, kept in the crawl's state "
            f"({where}/.anyurl-mirror.sqlite); --retry-failed tries them again"),
            file=sys.stderr)


def _print_skipped(found: int, skipped: int) -> None:
    """Say so when a crawl followed none of the links it found (all out of scope)."""
    if found and skipped >= found:
        print(f"anyurl: {found} link{'s' if found != 1 else ''} found, "
              f"{'all' if found != 1 else 'it is'} out of scope: see --span-hosts, --include "
              "and --depth (the scope is the start URLs' servers, under their "
              "directories)", file=sys.stderr)


async def _cancel_on_signal(scope: anyio.CancelScope) -> None:
    """Ctrl-C or SIGTERM: stop every transfer; running URLs stay queued in the state."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for _ in signals:
            scope.cancel()
            return
