"""The rooms of the package import only from rooms below them (README, "Layout"):
games / hashing <- tt <- search <- nn / train <- play / bench / cli. Checked on the source with
``ast``, function-level imports included (the lazy imports that keep start-up fast are where a
wrong one hides: ``solve gomoku`` once reached into play from search)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "zeroplay"
LEVEL = {"games": 0, "hashing": 0, "tt": 1, "solvers": 2, "search": 2, "nn": 3, "engine": 3, "train": 3,
         "play": 4, "bench": 4}
TOP = 5  # cli.py, __main__.py, __init__.py: may import any room


def _room(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            yield node.lineno, "." * node.level + (node.module or "")


def test_rooms_import_only_from_rooms_below():
    wrong = []
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 50 and set(LEVEL) <= {_room(f) for f in files}
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
    (room / "bad.py").write_text("def f():\n    from zeroplay.play.engine import describe\n")
    found = [m for _, m in _imports(room / "bad.py")]
    assert found == ["zeroplay.play.engine"] and LEVEL["play"] > LEVEL["search"]
