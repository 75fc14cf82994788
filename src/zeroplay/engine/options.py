"""Command-line option helpers shared by the rooms that have commands (train, play, bench, cli).

They sit here, below those rooms, so that each uses one definition: ``at_least_0`` /
``at_least_1`` / ``whole_number_in`` and ``model_argument`` (argparse types) and ``option_words``
(a game's error in the words of the command line). The games themselves know nothing of flags.
"""

from __future__ import annotations

import argparse

GAME_PARAMETER_FLAGS = (("n_in_row", "--n-in-row"), ("width", "--size"), ("height", "--size"))
"""A game's parameter name -> the command-line option that sets it (``zeroplay play``, ``solve``)."""


def option_words(message: str) -> str:
    """A game's error in the words of the command line: the game's parameters that start it
    (``width must be ...``) become the options the user typed (``--size must be ...``); any other
    message is returned unchanged."""
    for name, flag in GAME_PARAMETER_FLAGS:
        if message.startswith(name + " "):
            return flag + message[len(name):]
    return message


MAX_WHOLE = 2**62
"""The largest whole number an option takes: the compiled code holds counts in int64, and a value
past it ended in numba's or numpy's traceback (``--nodes 99999999999999999999``)."""


def _whole_number(text: str, low: int, high: int = MAX_WHOLE) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None
    if n < low:
        raise argparse.ArgumentTypeError(f"must be >= {low}, got {text[:40]}")
    if n > high:
        raise argparse.ArgumentTypeError(f"must be <= {high}, got {text[:40]}")
    return n


def whole_number_in(low: int, high: int):
    """argparse type: a whole number in ``low..high`` (both included).

    Raises:
        argparse.ArgumentTypeError: not a whole number, or outside the range.
    """
    def parse(text: str) -> int:
        return _whole_number(text, low, high)

    parse.__name__ = f"whole number in {low}..{high}"  # argparse names the type in some errors
    return parse


def at_least_0(text: str) -> int:
    """argparse type: a whole number >= 0.

    Raises:
        argparse.ArgumentTypeError: not a whole number, or negative.
    """
    return _whole_number(text, 0)


def at_least_1(text: str) -> int:
    """argparse type: a whole number >= 1 (a clear message instead of a late failure).

    Raises:
        argparse.ArgumentTypeError: not a whole number, or below 1.
    """
    return _whole_number(text, 1)


def model_argument(value: str) -> str:
    """argparse type of ``--model``: a path, or a shipped model's name, as a checkpoint path
    (``zeroplay.nn.shipped.resolve_model``; an unknown name is kept and named when loaded)."""
    from zeroplay.nn.shipped import resolve_model

    return resolve_model(value)
