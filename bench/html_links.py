"""The link extractor of a mirror, old against new, on real pages: same links, less CPU.

Usage::

    PYTHONPATH=src python bench/html_links.py                     # python3-doc's pages
    PYTHONPATH=src python bench/html_links.py --root DIR --old-rev d27188f --repeat 3

It reads every ``*.html`` under ``--root`` (Debian's ``python3-doc``, 530 pages, 50.7
MB, by default) as if served at ``http://127.0.0.1:8080/``, and runs on each:

* the extractor of ``--old-rev`` (``html.parser``; its module loaded from git as it was),
* the current one (Lexbor through selectolax, tinycss2 for style sheets),
* each C parser alone, without building links: selectolax (Lexbor) and lxml (libxml2),
  the two this change chose from (lxml is measured when it is installed).

It prints the CPU seconds of each (process time, the best of ``--repeat``) and checks, per
page, that the new extractor's links are the old ones plus requisites only: the new list
restricted to the URLs the old one had is the old list, in order, with the same kinds and
labels, and every URL it adds is a requisite (``srcset``, ``url()`` in a style ...). It
exits 1 and names the first pages that differ otherwise.
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
from anyurl.schemes.http.html_links import html_links
from anyurl.url import parse

REPO = Path(__file__).resolve().parents[1]
DOCS = Path("/usr/share/doc/python3.11/html")
#: The commit before this change: the html.parser extractor.
OLD_REV = "d27188f"


def old_extractor(rev: str) -> Callable[[ResourceInfo, bytes], list[Link]]:
    """``html_links`` of the module as it was at ``rev`` (it imports only what still is)."""
    text = subprocess.run(["git", "-C", str(REPO), "show",
                           f"{rev}:src/anyurl/schemes/http/html_links.py"],
                          check=True, capture_output=True, text=True).stdout
    module = types.ModuleType("old_html_links")
    exec(compile(text, f"{rev}:html_links.py", "exec"), module.__dict__)
    return module.__dict__["html_links"]  # type: ignore[no-any-return]


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
        "new extractor (selectolax/Lexbor, tinycss2)": cpu(lambda: run("new", html_links),
                                                           args.repeat),
    }
    from selectolax.lexbor import LexborHTMLParser

    timings["selectolax (Lexbor) parse alone"] = cpu(
        lambda: [LexborHTMLParser(body) for _, body in pages], args.repeat)
    if importlib.util.find_spec("lxml") is not None:
        import lxml.html

        timings["lxml (libxml2) parse alone"] = cpu(
            lambda: [lxml.html.document_fromstring(body) for _, body in pages], args.repeat)
    for name, seconds in timings.items():
        print(f"  {name:48} {seconds:7.3f} s CPU")
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
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
