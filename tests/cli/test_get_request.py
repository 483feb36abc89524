"""``anyurl get`` reads its command line once into a frozen GetRequest (issue 22): the
namespace argparse made is never written to, by the get run or any other command, and
what the options come to is typed (``-C OFFSET`` to stdout a range, ``--json DATA`` a
body and headers, ``-C URL`` a URL)."""

from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from anyurl.cli import get_cmd
from anyurl.cli.get_request import GetRequest, read_request
from anyurl.cli.main import build_parser
from anyurl.options import HTTPOptions
from anyurl.schemes.http.flags import JSON_HEADERS
from anyurl.schemes.http.loopback import serve_http
from anyurl.testing._server import serving_in_thread

CLI = Path(__file__).resolve().parents[2] / "src" / "anyurl" / "cli"


class FrozenNamespace(argparse.Namespace):
    """A namespace that refuses every write once :meth:`freeze` was called."""

    def freeze(self) -> None:
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AssertionError(f"the namespace was written to: args.{name} = {value!r}")
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if getattr(self, "_frozen", False):
            raise AssertionError(f"the namespace was written to: del args.{name}")
        super().__delattr__(name)


def _parsed(*argv: str) -> FrozenNamespace:
    args = FrozenNamespace()
    build_parser("get").parse_args(["get", *argv], namespace=args)
    args.freeze()
    return args


@pytest.fixture
def served(tmp_path: Path) -> str:
    (tmp_path / "a.txt").write_bytes(b"0123456789\n")
    return f"file://{tmp_path}/a.txt"


BACKENDS = pytest.mark.parametrize("backend", ["asyncio", "trio"])


@BACKENDS
def test_c_offset_to_stdout_runs_on_a_frozen_namespace(backend: str, tmp_path: Path,
                                                       capfdbinary) -> None:
    """``-C 3`` to stdout is the range ``3-`` (once ``args.range`` was rewritten)."""
    (tmp_path / "a.txt").write_bytes(b"0123456789\n")
    with serving_in_thread(serve_http, str(tmp_path)) as port:
        args = _parsed("-s", "--backend", backend, "-C", "3", f"http://127.0.0.1:{port}/a.txt")
        assert get_cmd.run(args) == 0
    assert capfdbinary.readouterr().out == b"3456789\n"


@BACKENDS
def test_json_data_remote_header_name_and_write_out_on_a_frozen_namespace(
        backend: str, served: str, tmp_path: Path, capfdbinary) -> None:
    """``--json DATA`` (taken from the URLs), ``-J`` (its temporary names were counted
    on the namespace), ``-w``, ``-b``/``-c`` (the jar was hung on it) and ``-u``."""
    dest = tmp_path / "dest"
    dest.mkdir()
    args = _parsed("-s", "--backend", backend, "-O", "-J", "--output-dir", str(dest),
                   "-w", "%{exitcode} %{filename_effective}\\n", "-b", str(tmp_path / "none"),
                   "-c", str(tmp_path / "jar.txt"), "-u", "user:secret",
                   "--json", '{"a": 1}', served)
    assert get_cmd.run(args) == 0
    assert (dest / "a.txt").read_bytes() == b"0123456789\n"
    assert capfdbinary.readouterr().out == f"0 {dest / 'a.txt'}\n".encode()
    assert (tmp_path / "jar.txt").exists()
    assert args.urls == ['{"a": 1}', served] and args.json is True  # as typed


def test_continue_into_a_file_on_a_frozen_namespace(served: str, tmp_path: Path) -> None:
    (tmp_path / "out.txt").write_bytes(b"0123")
    args = _parsed("-s", "-C", "4", "-o", str(tmp_path / "out.txt"), served)
    assert get_cmd.run(args) == 0
    assert (tmp_path / "out.txt").read_bytes() == b"0123456789\n"
    assert args.resume == "4"  # the option as given, not the bool it comes to


def test_a_refused_request_keeps_its_message_and_status(served: str, capsys) -> None:
    assert get_cmd.run(_parsed("-r", "0-1", "-C", "-", served)) == 2
    assert capsys.readouterr().err == ("anyurl: -r and -C cannot be combined: a range is "
                                       "fetched whole\n")


def _request(*argv: str) -> GetRequest:
    args = _parsed(*argv)
    before = copy.deepcopy(vars(args))
    request = read_request(args)
    assert vars(args) == before
    assert isinstance(request, GetRequest)
    return request


def test_c_offset_comes_to_a_range_to_stdout_and_an_offset_with_a_file() -> None:
    to_stdout = _request("-C", "100", "http://h/x")
    assert (to_stdout.resume, to_stdout.resume_from, to_stdout.byte_range) == (
        False, None, (100, None))
    to_file = _request("-C", "100", "-o", "x", "http://h/x")
    assert (to_file.resume, to_file.resume_from, to_file.byte_range) == (True, 100, None)
    assert _request("-C", "-", "-O", "http://h/x").resume is True
    assert _request("-r", "5-9", "http://h/x").byte_range == (5, 9)


def test_c_followed_by_a_url_is_continue_and_that_url() -> None:
    request = _request("-O", "-C", "http://h/a", "http://h/b")
    assert request.urls == ("http://h/a", "http://h/b")
    assert (request.resume, request.resume_from) == (True, None)


def test_json_data_is_a_body_and_headers_and_no_url() -> None:
    request = _request("-H", "X-One: 1", "--json", '{"a": 1}', "http://h/x")
    assert request.urls == ("http://h/x",)
    assert (request.json, request.json_data) == (False, ('{"a": 1}',))
    http = next(o for o in request.scheme_options if isinstance(o, HTTPOptions))
    assert http.body == b'{"a": 1}'
    names = [name for name, _ in http.headers]
    assert names == [h.split(":")[0] for h in JSON_HEADERS] + ["X-One"]
    assert _request("--json", "-O", "http://h/x").json is True  # anyurl's own --json


def test_the_request_is_frozen() -> None:
    request = _request("http://h/x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.resume = True  # type: ignore[misc]


def _writes_to_args(tree: ast.AST) -> list[int]:
    """Lines that assign to, augment or delete an attribute of ``args``, or setattr it."""
    def on_args(target: ast.AST) -> bool:
        if isinstance(target, ast.Tuple | ast.List):
            return any(on_args(t) for t in target.elts)
        return (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "args")

    lines = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("setattr", "delattr") and node.args
              and isinstance(node.args[0], ast.Name) and node.args[0].id == "args"):
            lines.append(node.lineno)
        if any(on_args(t) for t in targets):
            lines.append(node.lineno)
    return lines


def test_no_command_writes_to_its_namespace() -> None:
    written = {path.name: lines for path in sorted(CLI.glob("*.py"))
               if (lines := _writes_to_args(ast.parse(path.read_text(encoding="utf-8"))))}
    assert written == {}


def test_the_check_finds_a_write() -> None:
    tree = ast.parse("args.resume = True\nargs.a, b = 1, 2\nargs.n += 1\n"
                     "setattr(args, 'x', 1)\nother.x = 1\n")
    assert _writes_to_args(tree) == [1, 2, 3, 4]
