"""The rooms of the package import only from rooms below them (docs/ARCHITECTURE.md draws them):

    files, hashing, games  <  tt  <  solvers  <  search  <  nn  <  engine  <  train, play, bench  <  cli

Checked on the source with ``ast``, function-level imports included (the lazy imports that keep
start-up fast are where a wrong one hides: ``solve gomoku`` once reached into play from search).
Inside a room, the modules imported at module level form no circle, and ``search/`` holds only
what the search uses.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "zeroplay"
LEVEL = {
    "files": 0, "hashing": 0, "games": 0,
    "tt": 1,
    "solvers": 2,
    "search": 3,
    "nn": 4,
    "engine": 5,
    "train": 6, "play": 6, "bench": 6,
}
TOP = 7  # cli.py, __main__.py, __init__.py: may import any room


def _room(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _module_name(path: Path) -> str:
    parts = ("zeroplay",) + path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, module_name: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module_name.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(path: Path, *, module_level_only: bool = False):
    """(line, imported module) for each import in ``path``; relative imports are returned as
    written (``.x``) unless resolved by ``_module_imports``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    nodes = _top_level(tree.body) if module_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            yield node.lineno, "." * node.level + (node.module or "")


def _top_level(body):
    """Statements run at import time: the module body and the blocks of its if / try / with."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield node
        if isinstance(node, ast.If) and not _is_type_checking(node.test):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *[h.body for h in node.handlers]):
                yield from _top_level(block)
        elif isinstance(node, ast.With):
            yield from _top_level(node.body)


def _is_type_checking(test) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module_imports(path: Path, *, module_level_only: bool) -> set[str]:
    """The zeroplay modules ``path`` imports, absolute; ``from pkg import name`` counts as an
    import of ``pkg.name`` when that is a module, else of ``pkg``."""
    name, is_package = _module_name(path), path.name == "__init__.py"
    tree = ast.parse(path.read_text(), filename=str(path))
    nodes = _top_level(tree.body) if module_level_only else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("zeroplay")}
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, name, is_package)
            if not module.startswith("zeroplay"):
                continue
            subs = {f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in _ALL_MODULES}
            found |= subs if len(subs) == len(node.names) else subs | {module}
    return found


_ALL_MODULES = {_module_name(p) for p in SRC.rglob("*.py")}


def test_rooms_import_only_from_rooms_below():
    wrong = []
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 50 and set(LEVEL) <= {_room(f) for f in files}
    unknown = sorted({_room(f) for f in files if len(f.relative_to(SRC).parts) > 1} - set(LEVEL))
    assert not unknown, f"rooms without a level in LEVEL: {unknown}"
    for path in files:
        level = LEVEL.get(_room(path), TOP)
        for line, module in _imports(path):
            parts = module.split(".")
            if module.startswith("."):
                continue  # relative imports stay inside their room
            if parts[0] != "zeroplay" or len(parts) < 2 or parts[1] not in LEVEL:
                continue
            if LEVEL[parts[1]] > level:
                wrong.append(f"{path.relative_to(SRC)}:{line} imports {module}")
    assert not wrong, "imports from a room above:\n" + "\n".join(wrong)


def test_the_check_sees_a_wrong_import(tmp_path, monkeypatch):
    room = tmp_path / "search"
    room.mkdir()
    (room / "bad.py").write_text("def f():\n    from zeroplay.engine.factory import describe\n")
    found = [m for _, m in _imports(room / "bad.py")]
    assert found == ["zeroplay.engine.factory"] and LEVEL["engine"] > LEVEL["search"]


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle per strongly connected part of more than one module (or a self-import)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):  # Tarjan; the package has a few hundred modules, recursion depth stays small
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1 or v in graph.get(v, ()):
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _room_graph(room: str, *, module_level_only: bool) -> dict[str, set[str]]:
    prefix = f"zeroplay.{room}"
    graph = {}
    for path in sorted((SRC / room).rglob("*.py")):
        name = _module_name(path)
        graph[name] = {m for m in _module_imports(path, module_level_only=module_level_only)
                       if (m == prefix or m.startswith(prefix + ".")) and m != name}
    return graph


def test_no_import_circles_inside_a_room():
    """Modules of one room import each other one way only at import time: a circle works only in
    the order that happens to import it first. (A package's ``__init__`` re-exporting its modules
    is an edge like any other.)"""
    found = {room: _cycles(_room_graph(room, module_level_only=True)) for room in LEVEL}
    assert not any(found.values()), {room: c for room, c in found.items() if c}


def test_play_has_no_import_circle_even_lazily():
    """``play.commands`` dispatches to the front-ends; none of them imports it back (issue 21)."""
    assert not _cycles(_room_graph("play", module_level_only=False))


def test_the_circle_check_sees_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_play_imports_nothing_from_train():
    wrong = [f"{p.relative_to(SRC)}:{line} imports {m}" for p in sorted((SRC / "play").rglob("*.py"))
             for line, m in _imports(p) if m == "zeroplay.train" or m.startswith("zeroplay.train.")]
    assert not wrong, wrong


def test_every_search_module_is_used_by_the_search():
    """``search/`` holds the PUCT graph search and its adapters only: every module in it is reached
    from ``zeroplay.search`` (its public face) through imports."""
    graph = _room_graph("search", module_level_only=False)
    seen, todo = set(), ["zeroplay.search"]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(graph.get(m, ()))
    assert set(graph) - seen == set(), f"not used by the search: {sorted(set(graph) - seen)}"


def test_the_tests_mirror_the_rooms():
    """Each room with tests has them in ``tests/<room>/``; no test folder names a room that is gone."""
    tests = Path(__file__).resolve().parent
    folders = {p.name for p in tests.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert folders <= set(LEVEL), f"test folders that are no room: {sorted(folders - set(LEVEL))}"
    rooms_with_code = {r for r in LEVEL if any((SRC / r).glob("*.py"))}
    assert {"solvers", "engine", "files", "search", "games", "play", "train"} <= folders & rooms_with_code
