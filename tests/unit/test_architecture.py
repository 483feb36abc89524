"""The layering of src/anyurl, read from the source: what the architecture promises.

* no import cycles between anyurl's modules, neither in the imports that run (lazy
  imports inside functions count too: a cycle hidden in a function is still a cycle) nor
  once the imports under ``if TYPE_CHECKING:`` are added (a loop the type checker alone
  walks is still a loop in the layering: the lower module knows the upper one);
* the HTTP package's modules do not import its handler (only ``__init__`` re-exports it):
  the handler uses them, they serve it through their own interfaces;
* the sans-I/O cores (``protocols/``) import no I/O, no handler and no transport (a
  scheme's view, of the URL model's layer, they may read);
* handlers reach other URLs through the resolver's gate only: no handler imports the
  resolver or the built-in registry;
* every core shares one vocabulary (``protocols/common.py``): one ``NEED_DATA``, one
  ``ConnectionClosed``, ``Data`` and ``EndOfData`` (no core defines its own), one base
  for command lines, and one naming rule for each core's errors
  (``<Proto>CoreError``, ``<Proto>ReplyError``, ``<Proto>CommandError``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import io
import re
import tokenize
from pathlib import Path

import pytest

from anyurl.protocols import common

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "anyurl"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING"))


def _imports(name: str, typing_too: bool = False) -> set[str]:
    """Every anyurl module ``name`` imports, at any depth of its code; ``typing_too``:
    with those imported under ``if TYPE_CHECKING:`` for annotations only."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    typing_only = {id(n) for block in ast.walk(tree) if _is_type_checking_block(block)
                   for n in ast.walk(block)}
    for node in ast.walk(tree):
        if id(node) in typing_only and not typing_too:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            targets = [module]
            # ``from anyurl.schemes import base`` imports the module anyurl.schemes.base
            targets += [f"{module}.{alias.name}" for alias in node.names]
        for target in targets:
            if target in MODULES and target != name:
                found.add(target)
    return found


#: The imports that run.
GRAPH: dict[str, set[str]] = {name: _imports(name) for name in MODULES}
#: Every import, ``if TYPE_CHECKING:`` ones included.
TYPED_GRAPH: dict[str, set[str]] = {name: _imports(name, typing_too=True) for name in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def _without_package_inits(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    # A package's __init__ re-exporting its submodules is not a cycle with them: Python
    # imports the parent first whatever the submodule says. Edges *to* a package that
    # only re-exports are kept, edges from a package __init__ to its own children go.
    out: dict[str, set[str]] = {}
    for name, targets in graph.items():
        if MODULES[name].name == "__init__.py":
            targets = {t for t in targets if not t.startswith(name + ".")}
        out[name] = targets
    return out


def test_the_import_graph_was_read() -> None:
    assert "anyurl.resolver" in GRAPH
    assert "anyurl.schemes.base" in GRAPH["anyurl.resolver"]


def test_no_import_cycles() -> None:
    assert _cycles(_without_package_inits(GRAPH)) == []


def test_no_import_cycles_even_for_the_type_checker() -> None:
    """No loop of imports once the ``TYPE_CHECKING`` ones count (the registry sits
    below the URL model although its descriptors take URLs: it names no URL type)."""
    assert _cycles(_without_package_inits(TYPED_GRAPH)) == []


def test_the_typed_graph_reads_type_checking_imports() -> None:
    assert "anyurl.schemes.ftp.options" not in GRAPH["anyurl"]
    assert "anyurl.schemes.ftp.options" in TYPED_GRAPH["anyurl"]
    assert GRAPH["anyurl.resolver"] <= TYPED_GRAPH["anyurl.resolver"]


def test_the_registry_imports_nothing_above_it() -> None:
    """The registry names no module of anyurl, not even for the type checker: the URL
    model and everything above ask it, never the other way round."""
    for name in MODULES:
        if name.startswith("anyurl.registry"):
            assert {t for t in TYPED_GRAPH[name]
                    if not t.startswith("anyurl.registry")} == set(), name


#: anyurl's layers as docs/architecture.md draws them, the top first: a module imports
#: from its own layer and those below (the modules beside the resolver, its public API
#: such as ``anyurl.resource`` or ``anyurl.config``, are not ranked here).
LAYERS = ("anyurl.cli", "anyurl.serve", "anyurl.mirror", "anyurl.downloads",
          "anyurl.resolver", "anyurl.schemes", "anyurl.net", "anyurl.protocols",
          "anyurl.timeouts", "anyurl.url", "anyurl.registry", "anyurl.scheme_policy",
          "anyurl.errors", "anyurl.numbers")
#: The imports that run up a layer, each with why (docs/architecture.md names them);
#: the list only shrinks.
UPWARD = {
    ("anyurl.resolver", "anyurl.downloads.downloader"):
        "lazily, for Resolver.download, which is the downloader's download",
    ("anyurl.schemes.http.responses", "anyurl.downloads.names"):
        "a Content-Disposition's file name, read where -O names are made",
    ("anyurl.schemes.wais.spec", "anyurl.downloads.names"):
        "lazily, remote_name for a WAIS document's -O name",
    ("anyurl.serve.app", "anyurl.cli.hints"):
        "lazily, the command line's hint for an error a page shows",
}


#: A scheme's view (``schemes/<name>/view.py``, the parser's section 3 reading of its
#: parts) is of the URL model's layer: pure data, which its sans-I/O core reads too.
VIEW = re.compile(r"anyurl\.schemes\.\w+\.view\Z")


def _layer(name: str) -> int | None:
    if VIEW.match(name):
        name = "anyurl.url.views"
    for rank, layer in enumerate(LAYERS):
        if name == layer or name.startswith(layer + "."):
            return rank
    return None


def _upward(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    found = set()
    for name, targets in graph.items():
        rank = _layer(name)
        for target in targets:
            to = _layer(target)
            if rank is not None and to is not None and to < rank:
                found.add((name, target))
    return found


def test_nothing_else_imports_upwards() -> None:
    """Every import that runs up a layer is one the architecture names (the type
    checker's imports included), and each named one is still there."""
    assert _upward(TYPED_GRAPH) == set(UPWARD)


def test_the_layer_check_finds_an_upward_import() -> None:
    assert _upward({"anyurl.url.model": {"anyurl.registry", "anyurl.cli.main"}}) == {
        ("anyurl.url.model", "anyurl.cli.main")}


HTTP_HANDLER = "anyurl.schemes.http.handler"


def test_the_http_package_serves_its_handler() -> None:
    """Only the package's __init__ imports the HTTP handler: its other modules (the
    batches, the redirect loop, the connection choice ...) are used by it, and reach
    what they need of it through :mod:`anyurl.schemes.http.interfaces`."""
    importers = {name for name, targets in TYPED_GRAPH.items()
                 if name.startswith("anyurl.schemes.http.") and HTTP_HANDLER in targets}
    assert importers == set()


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


CORES = sorted(n for n in MODULES if n.startswith("anyurl.protocols."))
#: Modules every layer may import, the cores included: they import nothing of anyurl's.
BELOW_ALL = frozenset({"anyurl.numbers", "anyurl.lazy"})
IO_MODULES = {"anyio", "socket", "ssl", "asyncio", "trio", "selectors"}


def _top_level_foreign_imports(name: str) -> set[str]:
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("core", CORES)
def test_cores_import_no_io_and_no_handler(core: str) -> None:
    assert not (_top_level_foreign_imports(core) & IO_MODULES)
    for target in GRAPH[core]:
        assert (target.startswith(("anyurl.protocols", "anyurl.url")) or target in BELOW_ALL
                or VIEW.match(target)), (core, target)


HANDLERS = sorted(n for n in MODULES if n.startswith("anyurl.schemes.")
                  and n not in ("anyurl.schemes.base",))


@pytest.mark.parametrize("handler", HANDLERS)
def test_handlers_go_through_the_gate(handler: str) -> None:
    """A handler never reads the registry or builds another handler from it."""
    assert "anyurl.resolver" not in GRAPH[handler]
    source = MODULES[handler].read_text(encoding="utf-8")
    assert "BUILTIN_HANDLERS" not in source
    assert "_load(" not in source


@pytest.mark.parametrize(
    "core", [c for c in CORES if c not in ("anyurl.protocols", "anyurl.protocols.common")]
)
def test_cores_share_one_sentinel(core: str) -> None:
    source = MODULES[core].read_text(encoding="utf-8")
    assert "class NeedData" not in source, f"{core} defines its own NEED_DATA type"
    assert "NEED_DATA = " not in source and "NEED_DATA: Final" not in source


def test_the_modules_below_all_import_nothing_of_ours() -> None:
    for name in BELOW_ALL:
        assert GRAPH[name] == set(), name


def test_downloader_does_not_depend_on_the_resolver() -> None:
    assert "anyurl.resolver" not in GRAPH["anyurl.downloads.downloader"]


# -- the core vocabulary ----------------------------------------------------------------------

#: Names only protocols/common.py may define: its events, sentinel type and bases.
SHARED = frozenset(
    name for name in common.__all__ if inspect.isclass(getattr(common, name))
)
CORE_MODULES = [c for c in CORES if c not in ("anyurl.protocols", "anyurl.protocols.common")]


def _vocabulary_problems(source: str) -> list[str]:
    """Classes in a core's source that redefine a shared name, or a second closed event."""
    problems = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        if node.name in SHARED:
            problems.append(f"class {node.name} redefines common.{node.name}")
        elif re.search(r"Closed$|^(EndOf|Data$)", node.name):
            problems.append(f"class {node.name} is a second {node.name!r}: use common's")
    return problems


def test_the_shared_names_are_known() -> None:
    assert {"ConnectionClosed", "Data", "EndOfData", "NeedData", "CommandLine"} <= SHARED


def test_vocabulary_checker_finds_a_redefinition() -> None:
    bad = "class ConnectionClosed:\n    pass\nclass Closed:\n    pass\nclass EndOfBody: pass\n"
    assert len(_vocabulary_problems(bad)) == 3
    assert _vocabulary_problems("class Reply:\n    pass\n") == []


@pytest.mark.parametrize("core", CORE_MODULES)
def test_cores_define_no_shared_event(core: str) -> None:
    assert _vocabulary_problems(MODULES[core].read_text(encoding="utf-8")) == []


#: The cores that send command lines of their own (a ``Command`` class); the others
#: (Gopher's selectors, Telnet's stream, WAIS's APDUs, Prospero's and ARDP's datagrams,
#: the shared reply reader) send none. A new core with commands adds its line here.
COMMAND_CORES = ("anyurl.protocols.ftp", "anyurl.protocols.nntp", "anyurl.protocols.smtp")


def _own_command(core: str) -> type | None:
    command = importlib.import_module(core).__dict__.get("Command")
    return command if inspect.isclass(command) and command.__module__ == core else None


def test_the_cores_with_commands_are_known() -> None:
    """Every core that defines a ``Command`` is in :data:`COMMAND_CORES` (so the check
    below covers it), and every core named there defines one."""
    assert [c for c in CORE_MODULES if _own_command(c) is not None] == list(COMMAND_CORES)


@pytest.mark.parametrize("core", COMMAND_CORES)
def test_command_lines_share_one_base(core: str) -> None:
    command = _own_command(core)
    assert command is not None and issubclass(command, common.CommandLine), f"{core}.Command"


#: Each core module's error prefix; a new core adds its line here.
PREFIXES = {
    "anyurl.protocols.ardp": "ARDP",
    "anyurl.protocols.ftp": "FTP",
    "anyurl.protocols.gopher": "Gopher",
    "anyurl.protocols.gopher.errors": "Gopher",
    "anyurl.protocols.gopher.framing": "Gopher",
    "anyurl.protocols.gopher.menus": "Gopher",
    "anyurl.protocols.gopher.plus": "Gopher",
    "anyurl.protocols.gopher.requests": "Gopher",
    "anyurl.protocols.nntp": "NNTP",
    "anyurl.protocols.prospero": "Prospero",
    "anyurl.protocols.replies": "",  # shared by FTP and SMTP: raises its core's classes
    "anyurl.protocols.smtp": "SMTP",
    "anyurl.protocols.telnet": "Telnet",
    "anyurl.protocols.wais": "WAIS",
}
#: Exceptions of a core that are no protocol error, and why.
NOT_PROTOCOL_ERRORS = {
    # the caller's +ASK answers do not fill in the form: reported before anything is sent
    "anyurl.protocols.gopher.errors.FormError",
}


def _error_problems(prefix: str, errors: list[type[BaseException]]) -> list[str]:
    """How ``errors`` (one core's exception classes) break the naming rule."""
    names = {e.__name__: e for e in errors}
    base = names.get(f"{prefix}CoreError")
    problems = []
    for error in errors:
        name = error.__name__
        if f"{error.__module__}.{name}" in NOT_PROTOCOL_ERRORS:
            continue
        if name == f"{prefix}CoreError" and prefix:
            ok = error.__bases__[0] is common.CoreProtocolError
        elif name == f"{prefix}ReplyError" and prefix:
            ok = base is not None and issubclass(error, base) and issubclass(
                error, common.RemoteProtocolError)
        elif name == f"{prefix}CommandError" and prefix:
            ok = base is not None and issubclass(error, base) and issubclass(
                error, common.LocalProtocolError)
        else:
            ok = False
        if not ok:
            problems.append(
                f"{name}: a core's errors are {prefix or '<Proto>'}CoreError(CoreProtocolError), "
                f"{prefix or '<Proto>'}ReplyError(...CoreError, RemoteProtocolError) and "
                f"{prefix or '<Proto>'}CommandError(...CoreError, LocalProtocolError)"
            )
    return problems


def _defined_errors(core: str) -> list[type[BaseException]]:
    module = importlib.import_module(core)
    return [v for v in vars(module).values()
            if inspect.isclass(v) and issubclass(v, BaseException) and v.__module__ == core]


def test_every_core_has_an_error_prefix() -> None:
    assert sorted(PREFIXES) == CORE_MODULES


@pytest.mark.parametrize("core", CORE_MODULES)
def test_core_errors_follow_one_naming_rule(core: str) -> None:
    assert _error_problems(PREFIXES[core], _defined_errors(core)) == []


def test_error_rule_finds_odd_names() -> None:
    class WAISCoreError(common.CoreProtocolError):
        pass

    class WAISError(common.RemoteProtocolError):  # the old name
        pass

    class WAISReplyError(common.RemoteProtocolError):  # not under WAISCoreError
        pass

    class WAISCommandError(WAISCoreError, common.RemoteProtocolError):  # the wrong side
        pass

    problems = _error_problems("WAIS", [WAISCoreError, WAISError, WAISReplyError,
                                        WAISCommandError])
    assert [p.split(":")[0] for p in problems] == ["WAISError", "WAISReplyError",
                                                   "WAISCommandError"]
    assert _error_problems("", [WAISCoreError]) != []  # the shared reader defines none


# -- a scheme lives in its package: its name is not code elsewhere ----------------------------

#: The words that name each scheme in code (``file`` is everyday code's word too: not
#: counted), and each one's own places: its package and its sans-I/O core.
SCHEME_WORDS = {
    "http": ("http", "https"),
    "ftp": ("ftp", "ftps"),
    "gopher": ("gopher",),
    "news": ("news", "nntp", "nntps", "snews"),
    "wais": ("wais",),
    "prospero": ("prospero",),
    "telnet": ("telnet",),
    "mailto": ("mailto", "smtp"),
}
OWN = {
    "http": ("schemes/http/",),
    "ftp": ("schemes/ftp/", "protocols/ftp.py"),
    "gopher": ("schemes/gopher/", "protocols/gopher/"),
    "news": ("schemes/news/", "protocols/nntp.py"),
    "wais": ("schemes/wais/", "protocols/wais.py"),
    "prospero": ("schemes/prospero/", "protocols/prospero.py", "protocols/ardp.py"),
    "telnet": ("schemes/telnet/", "protocols/telnet.py"),
    "mailto": ("schemes/mailto/", "protocols/smtp.py"),
}
#: The most files outside its own places a scheme may be named in: the registry's list of
#: the built-ins, the public re-exports (``anyurl/__init__.py``) and one more.
LIMIT = 3
#: The files that name a scheme outside its own places today, beyond what the limit will
#: allow once every part of the program asks the registry: each may go, none may come,
#: and one that no longer names it must leave the list, so the list only shrinks.
NAMED_ELSEWHERE: dict[str, frozenset[str]] = {
    "ftp": frozenset({
        "__init__.py", "cli/get_cmd.py", "cli/get_request.py",
        "config.py", "protocols/prospero.py", "registry/index.py", "schemes/file/handler.py",
        "schemes/file/spec.py", "schemes/prospero/loopback.py",
    }),
    "gopher": frozenset({
        "__init__.py", "mirror/engine.py", "protocols/prospero.py",
        "registry/index.py", "schemes/prospero/loopback.py", "schemes/wais/loopback.py",
        "schemes/wais/spec.py",
    }),
    "http": frozenset({
        "__init__.py", "cli/get_cmd.py", "cli/get_request.py", "cli/serve_cmd.py",
        "downloads/warc.py", "errors.py",
        # mirror/engine.py's, split by idea (issue 31): the same code, one file each
        "mirror/archive.py", "mirror/fetching.py", "mirror/outcomes.py", "mirror/watch.py",
        "mirror/refresh.py", "net/routing.py", "registry/index.py", "request.py",
        "resource.py", "schemes/gateway.py", "schemes/gopher/loopback.py",
        "schemes/gopher/menu_links.py", "serve/app.py", "testing/hostile_socks.py",
    }),
    "mailto": frozenset({
        "__init__.py", "config.py", "registry/index.py",
    }),
    "news": frozenset({
        "__init__.py", "config.py", "registry/index.py",
    }),
    "prospero": frozenset({
        "__init__.py", "registry/index.py", "resource.py", "schemes/wais/loopback.py",
    }),
    "telnet": frozenset({
        "__init__.py", "protocols/gopher/menus.py", "protocols/prospero.py",
        "registry/index.py", "schemes/gopher/handler.py", "schemes/prospero/loopback.py",
    }),
    "wais": frozenset({
        "__init__.py", "protocols/prospero.py", "registry/index.py", "resource.py",
        "schemes/prospero/loopback.py",
    }),
}


def _code_words(source: str) -> set[str]:
    """The words of ``source``'s code, lower case: each name split at ``_`` and at a
    lower-to-upper case change (``FTPOptions``: ftpoptions, ``nntp_path``: nntp, path),
    and the words of its strings but docstrings (triple-quoted strings are not counted)."""
    words: list[str] = []
    # Python 3.12 tokenizes an f-string as FSTRING_START, its parts and FSTRING_END
    # (3.11: one STRING): the parts of one that is not a docstring count the same way.
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    fstring_middle = getattr(tokenize, "FSTRING_MIDDLE", None)
    fstring_end = getattr(tokenize, "FSTRING_END", None)
    triple: list[bool] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME:
            words += re.split(r"_|(?<=[a-z])(?=[A-Z])", tok.string)
        elif tok.type == tokenize.STRING and not re.match(r"[rbfRBF]*(\"\"\"|''')", tok.string):
            words += re.findall(r"[A-Za-z]+", tok.string)
        elif tok.type == fstring_start:
            triple.append(tok.string.endswith(('"""', "'''")))
        elif tok.type == fstring_middle and triple and not triple[-1]:
            words += re.findall(r"[A-Za-z]+", tok.string)
        elif tok.type == fstring_end and triple:
            triple.pop()
    return {word.lower() for word in words}


WORDS = {str(path.relative_to(PACKAGE).as_posix()): _code_words(path.read_text(encoding="utf-8"))
         for path in MODULES.values()}


def _naming(scheme: str, words: dict[str, set[str]] | None = None) -> set[str]:
    """Files outside ``scheme``'s own places whose code names it."""
    return {rel for rel, found in (words or WORDS).items()
            if found & set(SCHEME_WORDS[scheme]) and not rel.startswith(OWN[scheme])}


@pytest.mark.parametrize("scheme", sorted(SCHEME_WORDS))
def test_a_scheme_is_named_in_no_new_place(scheme: str) -> None:
    """No file names a scheme outside its own places but those the list allows (a new
    one asks the registry, or the scheme's descriptor or handler, instead)."""
    assert sorted(_naming(scheme) - NAMED_ELSEWHERE.get(scheme, frozenset())) == []


@pytest.mark.parametrize("scheme", sorted(SCHEME_WORDS))
def test_the_list_of_places_only_shrinks(scheme: str) -> None:
    """A file that no longer names the scheme leaves :data:`NAMED_ELSEWHERE`."""
    assert sorted(NAMED_ELSEWHERE.get(scheme, frozenset()) - _naming(scheme)) == []


def test_a_scheme_within_the_limit_stays_there() -> None:
    """The schemes the list already holds to the limit are not given more."""
    over = {scheme for scheme, files in NAMED_ELSEWHERE.items() if len(files) > LIMIT}
    assert {scheme for scheme in SCHEME_WORDS if len(_naming(scheme)) > LIMIT} == over


def test_the_name_rule_reads_names_and_strings_but_not_docstrings() -> None:
    source = ('"""A gopher menu."""\nfrom anyurl.schemes.ftp.options import FTPOptions\n'
              'x = nntp_path("g/1")\nif scheme == "mailto": pass\n')
    words = _code_words(source)
    assert {"ftp", "ftpoptions", "nntp", "mailto"} <= words and "gopher" not in words
    assert "mirror/stray.py" in _naming("news", {"mirror/stray.py": words})
    assert _naming("news", {"schemes/news/stray.py": words}) == set()
