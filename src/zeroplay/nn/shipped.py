"""The trained models shipped inside the package: where they are, a name -> its file, their names.

Here in the nn room (no torch import, no file read beyond listing the folder) so that both the
play room (``zeroplay.engine.factory`` re-exports these names) and the train room (``zeroplay arena``
players by name, ``zeroplay.engine.arena``) resolve ``--model gomoku-8x8-5-freestyle`` the same way.
Which model plays which game by default is the engine room's choice (``engine.factory.DEFAULT_MODELS``).
"""

from __future__ import annotations

import os
from pathlib import Path

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
"""Where trained models ship inside the package (``src/zeroplay/models/``)."""

SUFFIX = ".safetensors"


def model_files(models_dir: Path | None = None) -> list[Path]:
    """Checkpoint files shipped in the package's models folder, sorted by name (may be empty)."""
    folder = Path(models_dir) if models_dir is not None else MODELS_DIR
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix == SUFFIX and p.is_file())


def resolve_model(model: str) -> str:
    """A model given by path or name -> checkpoint path: a file that exists is taken as it is (it
    wins over a shipped model of the same name); else the name of a shipped model
    (``gomoku-8x8-5-freestyle``, with or without ``.safetensors``) gives that file in the package;
    anything else (a path with a folder in it, an unknown name) is returned unchanged (loading it
    then says what is wrong)."""
    if os.path.isfile(model) or os.sep in model or "/" in model:
        return model
    name = model if model.endswith(SUFFIX) else model + SUFFIX
    return str(MODELS_DIR / name) if (MODELS_DIR / name).is_file() else model


def shipped_names(models_dir: Path | None = None) -> list[str]:
    """Names of the shipped models (file names without ``.safetensors``), for ``--model NAME``."""
    return [p.stem for p in model_files(models_dir)]
