"""Benchmarks behind ``zeroplay bench NAME``.

Each module ``zeroplay.bench.NAME`` is found automatically and provides
``add_arguments(parser)`` (its options; ``--json`` is added for it) and ``run(args) -> dict``
(JSON-ready figures). Keep imports inside ``run`` so that ``zeroplay --help`` stays fast.
"""
