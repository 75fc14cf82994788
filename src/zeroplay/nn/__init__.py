"""Policy-value networks: models, loss and trainer, the search's ``NetEvaluator``, checkpoints.

Modules: ``arch`` (preset names -> ``ArchSpec``), ``models`` (``TinyNet``, ``ResTower``),
``loss``, ``schedule`` (learning rate by step), ``trainer`` (``Trainer``, ``TrainConfig``),
``evaluator`` (``NetEvaluator``), ``checkpoint`` (safetensors + JSON, atomic), ``record`` (a
checkpoint's header checked without torch).

Names are re-exported lazily (PEP 562), so importing a light module such as
``zeroplay.nn.record`` does not import torch.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "PLANES_VERSION": "arch",
    "PRESETS": "arch",
    "ArchSpec": "arch",
    "arch_spec": "arch",
    "Checkpoint": "checkpoint",
    "CheckpointError": "record",
    "CheckpointMismatchError": "record",
    "checkpoint_differences": "record",
    "option_differences": "record",
    "load_checkpoint": "checkpoint",
    "read_checkpoint_meta": "record",
    "save_checkpoint": "checkpoint",
    "NetEvaluator": "evaluator",
    "masked_log_softmax": "loss",
    "policy_value_loss": "loss",
    "ResTower": "models",
    "TinyNet": "models",
    "build_model": "models",
    "model_from_spec": "models",
    "TrainConfig": "trainer",
    "Trainer": "trainer",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f"zeroplay.nn.{_EXPORTS[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'zeroplay.nn' has no attribute {name!r}")


def __dir__():
    return __all__
