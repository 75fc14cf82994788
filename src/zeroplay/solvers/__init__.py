"""Game solvers: exact or threat-space searches that prove a result, below the PUCT search.

- ``threat_solver``: Gomoku VCF / VCT (``ThreatSolver``), compiled in ``vcf_kernels`` (depth-first,
  alpha-beta table) and ``pns_kernels`` (proof-number VCT); ``vcf_check`` replays a line.
- ``connect4_solver``: exact Connect Four (Pons' scores), negamax on bitboards.
- ``shogi_mate``: shogi mate by checks for USI ``go mate`` (iterative deepening, line verified).
- ``commands``: ``zeroplay solve gomoku`` and ``zeroplay solve connect4``.

Imports only ``games``, ``hashing`` and ``tt``; the MCTS reaches the threat solver through its
adapter ``zeroplay.search.threats``. Nothing heavy is imported here (numba compiles on first use).
"""
