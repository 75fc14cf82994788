"""zeroplay: a fast, correct AlphaZero-style engine and training framework for board games."""

__version__ = "0.1.0"
