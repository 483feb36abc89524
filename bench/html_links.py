"""The link extractor of a mirror, old against new, on real pages: same links, less CPU.

Usage::

    PYTHONPATH=src python bench/html_links.py                     # python3-doc's pages
    PYTHONPATH=src python bench/html_links.py --root DIR --old-rev d27188f --repeat 3

It reads every ``*.html`` under ``--root`` (Debian's ``python3-doc``, 530 pages, 50.7
MB, by default) as if served at ``http://127.0.0.1:8080/``, and runs on each:

* the extractor of ``--old-rev`` (``html.parser``; its module loaded from git as it was),
* the current one (Lexbor's tree for a page up to ``TREE_MAX``, libxml2's events
  through lxml as a parser target for a bigger one; tinycss2 for style sheets), from
  the bytes (``html_links``) and from the file (``file_links``, a mirror's way: the two
  must give the very same links),
* each of the current one's two ways on every page (``TREE_MAX`` set above the largest
  page, then to 0), against the extractor of ``--same-rev`` (libxml2's events alone):
  the very same links, URL for URL, with the same kinds, labels and requisite flags,
  in the same order,
* each C parser alone, building its tree and no links: lxml (libxml2) and selectolax
  (Lexbor), the two this change chose from (selectolax when it is installed), and the
  peak memory each takes on the largest page (a child process each).

It prints the CPU seconds of each (process time, the best of ``--repeat``) and checks, per
page, that the new extractor's links are the old ones plus requisites only: the new list
restricted to the URLs the old one had is the old list, in order, with the same kinds and
labels, and every URL it adds is a requisite (``srcset``, ``url()`` in a style ...); and
that each of the current ways gives ``--same-rev``'s very links. It exits 1 and names
the first pages that differ otherwise.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

from anyurl.links import Link
from anyurl.resource import ResourceInfo
from anyurl.schemes.http import html_links as extractor
from anyurl.schemes.http.html_links import file_links, html_links
from anyurl.url import parse

REPO = Path(__file__).resolve().parents[1]
DOCS = Path("/usr/share/doc/python3.11/html")
#: The commit before this change: the html.parser extractor.
OLD_REV = "d27188f"
#: The extractor the current one must match link for link: libxml2's events alone,
#: before Lexbor's tree (issue 30).
SAME_REV = "e98f38a"


def old_extractor(rev: str) -> Callable[[ResourceInfo, bytes], list[Link]]:
    """``html_links`` of the module as it was at ``rev`` (it imports only what still is)."""
    text = subprocess.run(["git", "-C", str(REPO), "show",
                           f"{rev}:src/anyurl/schemes/http/html_links.py"],
                          check=True, capture_output=True, text=True).stdout
    module = types.ModuleType("old_html_links")
    exec(compile(text, f"{rev}:html_links.py", "exec"), module.__dict__)
    return module.__dict__["html_links"]  # type: ignore[no-any-return]


#: Code run in a child process on the largest page (``page``: its bytes) whose peak
#: RSS growth is measured past the imports.
PEAKS = {
    "old extractor": "old(INFO, page)",
    "new extractor": "html_links(INFO, page)",
    "new extractor, from the file": "file_links(INFO, open(PAGE, 'rb'))",
    "selectolax tree": "LexborHTMLParser(page)",
    "lxml tree": "lxml.html.document_fromstring(page)",
}
#: (VmHWM, the peak of this process's own memory: ``ru_maxrss`` would start at the
#: parent's peak, which Linux keeps across execve)
GROWTH = """
import sys
from pathlib import Path
sys.path.insert(0, {bench!r})
from html_links import old_extractor, info_of
import lxml.html
from anyurl.schemes.http import html_links as extractor
from anyurl.schemes.http.html_links import file_links, html_links
try:
    from selectolax.lexbor import LexborHTMLParser
except ImportError:
    pass
old = old_extractor({rev!r})
PAGE = Path({page!r})
page = PAGE.read_bytes()
INFO = info_of("http://127.0.0.1:8080/page.html")
def peak():
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0])
before = peak()
{code}
print((peak() - before) / 1024)
"""


def info_of(url: str) -> ResourceInfo:
    return ResourceInfo(url=parse(url), content_type="text/html; charset=utf-8")


def growth(code: str, page: Path, rev: str) -> float:
    """MiB the peak RSS of a fresh process grows by while ``code`` runs on ``page``."""
    out = subprocess.run([sys.executable, "-c", GROWTH.format(
        bench=str(Path(__file__).parent), rev=rev, page=str(page), code=code)],
        check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def cpu(work: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best


def differs(old: list[Link], new: list[Link]) -> str | None:
    """Why ``new`` is not ``old`` plus requisites, or None."""
    before = {link.url for link in old}
    kept = [(link.url, link.kind, link.text) for link in new if link.url in before]
    if kept != [(link.url, link.kind, link.text) for link in old]:
        for a, b in zip(kept, [(x.url, x.kind, x.text) for x in old], strict=False):
            if a != b:
                return f"new {a} where the old had {b}"
        return f"{len(kept)} of the old links kept, of {len(old)}"
    extra = [link.url for link in new if link.url not in before and not link.requisite]
    return f"links that are no requisites added: {extra[:3]}" if extra else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DOCS)
    parser.add_argument("--old-rev", default=OLD_REV)
    parser.add_argument("--same-rev", default=SAME_REV)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files = sorted(args.root.rglob("*.html"))
    if not files:
        print(f"no pages under {args.root}: apt-get install python3-doc", file=sys.stderr)
        return 2
    pages = []
    for path in files:
        url = parse("http://127.0.0.1:8080/" + path.relative_to(args.root).as_posix())
        pages.append((ResourceInfo(url=url, content_type="text/html; charset=utf-8"),
                      path.read_bytes()))
    size = sum(len(body) for _, body in pages)
    print(f"{len(pages)} pages, {size / 1e6:.1f} MB under {args.root}")
    old = old_extractor(args.old_rev)
    results: dict[str, list[list[Link]]] = {}

    def run(name: str, extract: Callable[[ResourceInfo, bytes], list[Link]]) -> None:
        results[name] = [extract(info, body) for info, body in pages]

    timings = {
        f"old extractor ({args.old_rev}, html.parser)": cpu(lambda: run("old", old),
                                                            args.repeat),
        "new extractor (lxml target, tinycss2)": cpu(lambda: run("new", html_links),
                                                     args.repeat),
    }
    streamed: list[list[Link]] = []

    def from_files() -> None:
        streamed.clear()
        for path, (info, _) in zip(files, pages, strict=True):
            with path.open("rb") as f:
                streamed.append(file_links(info, f))

    timings["new extractor, each page read from its file"] = cpu(from_files, args.repeat)
    import lxml.html

    timings["lxml (libxml2) tree alone"] = cpu(
        lambda: [lxml.html.document_fromstring(body) for _, body in pages], args.repeat)
    if importlib.util.find_spec("selectolax") is not None:
        from selectolax.lexbor import LexborHTMLParser

        timings["selectolax (Lexbor) tree alone"] = cpu(
            lambda: [LexborHTMLParser(body) for _, body in pages], args.repeat)
    same = old_extractor(args.same_rev)
    timings[f"extractor of {args.same_rev} (libxml2's events)"] = cpu(
        lambda: run("same", same), args.repeat)
    ways = {"tree": 1 << 62, "events": 0}
    for way, limit in ways.items():
        kept, extractor.TREE_MAX = extractor.TREE_MAX, limit
        try:
            timings[f"current extractor, every page by {way}"] = cpu(
                lambda way=way: run(way, html_links), args.repeat)
        finally:
            extractor.TREE_MAX = kept
    for name, seconds in timings.items():
        print(f"  {name:48} {seconds:7.3f} s CPU")
    largest = max(files, key=lambda p: p.stat().st_size)
    for name, code in PEAKS.items():
        if name.startswith("selectolax") and importlib.util.find_spec("selectolax") is None:
            continue
        print(f"  peak RSS growth on {largest.name} ({largest.stat().st_size / 1e6:.1f} MB), "
              f"{name}: {growth(code, largest, args.old_rev):.1f} MiB")
    old_count = sum(map(len, results["old"]))
    new_count = sum(map(len, results["new"]))
    added = sum(1 for links in results["new"] for link in links if link.requisite)
    print(f"links: old {old_count}, new {new_count} ({new_count - old_count} more; "
          f"{added} requisites in all)")
    bad = [(path, why) for path, a, b in zip(files, results["old"], results["new"], strict=True)
           if (why := differs(a, b)) is not None]
    for path, why in bad[:10]:
        print(f"  DIFFERS {path.relative_to(args.root)}: {why}")
    print(f"{len(pages) - len(bad)} of {len(pages)} pages: the old links plus requisites")
    unlike = [path for path, a, b in zip(files, results["new"], streamed, strict=True)
              if a != b]
    for path in unlike[:10]:
        print(f"  FROM THE FILE DIFFERS {path.relative_to(args.root)}")
    print(f"{len(pages) - len(unlike)} of {len(pages)} pages: the same links read from "
          "the file (file_links) as from the bytes (html_links)")
    fields = ("url", "kind", "text", "requisite")
    mismatched = 0
    for way in ways:
        apart = [(path, a, b) for path, a, b in zip(files, results["same"], results[way],
                                                     strict=True)
                 if [[getattr(x, f) for f in fields] for x in a]
                 != [[getattr(x, f) for f in fields] for x in b]]
        for path, a, b in apart[:5]:
            first = next((x, y) for x, y in zip(a + [None] * len(b), b + [None] * len(a),
                                                strict=False) if x != y)
            print(f"  {way.upper()} DIFFERS {path.relative_to(args.root)}: {first}")
        print(f"{len(pages) - len(apart)} of {len(pages)} pages: {way}, link for link the "
              f"links of {args.same_rev}")
        mismatched += len(apart)
    return 1 if bad or unlike or mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
