"""The package's imports go one way: down its layer packages (pazaak_cli/__init__.py lists them).

Every module is parsed with ``ast`` (nothing is imported), its imports of ``pazaak_cli`` modules
are collected, at module level and inside functions, and the graph is checked: no circle, no
import inside a function, every import to the module's own layer or below. The one documented
exception is ``cli``, which imports each command's module by name when the command runs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = "pazaak_cli"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE
LAZY_LOADER = f"{PACKAGE}.cli"
"""The one module allowed to import by name inside a function (the commands, on first use)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


class Import:
    """One import of a package module found in the source."""

    def __init__(self, module: str, target: str, line: int, in_function: bool) -> None:
        self.module, self.target, self.line, self.in_function = module, target, line, in_function

    def __repr__(self) -> str:
        where = "inside a function" if self.in_function else "at module level"
        return f"{self.module}:{self.line} imports {self.target} {where}"


def _resolve(module: str, node: ast.ImportFrom) -> str | None:
    """The absolute module an ``import from`` names (relative imports resolved)."""
    if not node.level:
        return node.module
    package = module.split(".")
    if MODULES[module].name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The package modules one import statement loads."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                yield alias.name
        return
    source = _resolve(module, node)
    if source is None or not (source == PACKAGE or source.startswith(PACKAGE + ".")):
        return
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        # ``from pazaak_cli import x``: x is a module when there is a file for it; otherwise
        # a name of the package (its version, or the compiled extension, which imports nothing)
        yield submodule if submodule in MODULES else source


def _lazy_commands(tree: ast.Module) -> list[str]:
    """The command modules the lazy group loads by name: the first item of each value of its
    ``COMMANDS`` table."""
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "COMMANDS" for t in targets):
                assert node.value is not None
                table = ast.literal_eval(node.value)
                return [module for module, _ in table.values()]
    raise AssertionError("cli.py has no COMMANDS table")


def _scan(module: str) -> tuple[list[Import], list[int]]:
    """Every import of a package module in ``module``, and the lines that may import a package
    module by name (``importlib.import_module`` or ``__import__`` not given a literal name
    outside the package)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    imports: list[Import] = []
    by_name: list[int] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            for target in _targets(module, node):
                imports.append(Import(module, target, node.lineno, in_function))
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0] if node.args else None
            named = first.value if isinstance(first, ast.Constant) else None
            # a literal name outside the package (an optional third-party module) is no concern
            if name in ("import_module", "__import__") and not (
                isinstance(named, str) and not named.startswith(PACKAGE)
            ):
                by_name.append(node.lineno)
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(tree, False)
    if module == LAZY_LOADER:
        imports.extend(Import(module, target, 0, True) for target in _lazy_commands(tree))
    return imports, by_name


SCANS = {module: _scan(module) for module in MODULES}
IMPORTS = [found for imports, _ in SCANS.values() for found in imports]


LAYERS = (
    "engine",
    "runtime",
    "policies",
    "solve",
    "players",
    "tools",
    "rl",
    "terminal",
    "commands",
)
"""The layer packages, from the bottom up; ``cli``, ``__main__`` and ``api`` stand above them
all and the package's ``__init__`` (its version) below."""

TOP = ("cli", "__main__", "api")


def _layers() -> dict[str, int]:
    """Module -> layer number (0 the lowest): a module's layer is its package's."""
    found: dict[str, int] = {PACKAGE: 0}
    for module in MODULES:
        parts = module.split(".")[1:]
        if parts and parts[0] in LAYERS:
            found[module] = 1 + LAYERS.index(parts[0])
        elif parts and parts[0] in TOP:
            found[module] = 1 + len(LAYERS)
    return found


def test_the_package_docstring_lists_the_layers_from_the_top_down() -> None:
    """The layers a reader sees in pazaak_cli/__init__.py are the ones checked here."""
    docstring = ast.get_docstring(ast.parse(MODULES[PACKAGE].read_text(encoding="utf-8")))
    assert docstring, "pazaak_cli/__init__.py has no docstring"
    listed = [
        re.findall(r"``([\w.]+)``", match.group(1))
        for match in re.finditer(r"^\d+\. (.*?):", docstring, re.MULTILINE)
    ]
    assert listed == [list(TOP), *([name] for name in reversed(LAYERS))]


def test_the_scan_sees_the_imports_it_must_see() -> None:
    """The scanner is not vacuous: it finds the imports known to be there."""
    edges = {(i.module, i.target) for i in IMPORTS}
    assert ("pazaak_cli.solve.advice", "pazaak_cli.solve.kotor_reply") in edges
    assert ("pazaak_cli.players.roster", "pazaak_cli.players.expert") in edges
    assert ("pazaak_cli.cli", "pazaak_cli.commands.play_cmd") in edges
    assert len(MODULES) >= 25


def test_no_package_module_is_imported_inside_a_function() -> None:
    inside = [i for i in IMPORTS if i.in_function and i.module != LAZY_LOADER]
    assert inside == []


def test_only_the_command_group_imports_by_name() -> None:
    by_name = {module: lines for module, (_, lines) in SCANS.items() if lines}
    assert list(by_name) == [LAZY_LOADER]
    assert len(by_name[LAZY_LOADER]) == 1


def test_the_import_graph_has_no_circle() -> None:
    graph: dict[str, set[str]] = {module: set() for module in MODULES}
    for found in IMPORTS:
        if found.target != found.module:
            graph[found.module].add(found.target)
    done: set[str] = set()
    path: list[str] = []

    def walk(module: str) -> None:
        if module in path:
            circle = path[path.index(module) :] + [module]
            pytest.fail("import circle: " + " -> ".join(circle))
        if module in done:
            return
        path.append(module)
        for target in sorted(graph.get(module, ())):
            walk(target)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        walk(module)


def test_every_module_lives_in_a_layer_package() -> None:
    missing = sorted(set(MODULES) - set(_layers()))
    assert missing == []


def test_every_import_goes_to_its_own_layer_or_below() -> None:
    layer = _layers()
    upward = [
        f"{i!r} (layer {layer[i.module]} -> {layer[i.target]})"
        for i in IMPORTS
        if i.module in layer and i.target in layer and layer[i.target] > layer[i.module]
    ]
    assert upward == []


COMPILED = ("_fastsolve", "_fastreply", "_fastmatch", "_fastkotormatch")
"""The C extensions: modules with a leading underscore by convention, imported by name."""


def test_no_private_name_is_imported_from_another_module() -> None:
    """A module uses another's public names only: a private helper two modules need is made
    public where it lives, so that its users are visible."""
    private = [
        f"{module}:{node.lineno} imports {alias.name} from {node.module}"
        for module, path in MODULES.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE)
        for alias in node.names
        if alias.name.startswith("_") and alias.name not in ("__version__", *COMPILED)
    ]
    assert private == []
