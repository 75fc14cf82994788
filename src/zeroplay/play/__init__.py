"""Where people meet zeroplay: the terminal game, the Gomocup engine, the web board.

Modules: ``engine`` (shipped model or search-only fallback), ``heuristic`` (numpy window-count
evaluator and instant moves), ``terminal`` (``zeroplay play``), ``pbrain`` (``zeroplay pbrain`` /
``pbrain-zeroplay``; the brain in ``pbrain_engine`` and its parts), ``fuzz`` (protocol fuzzing),
``webgame``, ``webanalysis`` and ``server`` (``zeroplay serve``),
``commands`` (their argparse set-up). Nothing heavy is imported here.
"""
