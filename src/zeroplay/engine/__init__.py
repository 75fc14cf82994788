"""What plays: engines assembled from a game, a network or heuristic, and the search.

- ``factory``: ``make_engine(game, model=None)``, the engine ``zeroplay play``, ``serve`` and
  ``pbrain`` use (shipped model or the search-only fallback), ``warm_up()``.
- ``heuristic``: the plain-numpy window-count evaluators of the search-only engine and
  ``quick_move`` (win, block, best cell without the search).
- ``arena``: ``Player``s by spec (checkpoints, ``uniform:N``, ``rollout:N``, ``heuristic:N``,
  ``pbrain:COMMAND``) and matches between them; ``match_record`` keeps a match's games.
- ``elo``: Elo difference with a 95 % interval from W/D/L.
- ``pbrain_player``: the manager side of the Gomocup protocol (a brain in a subprocess).
- ``gtp_player``: the controller side of GTP (``gtp:COMMAND`` players: GNU Go, ``zeroplay gtp``).
- ``go_search`` / ``go_montecarlo``: the Go engines of ``zeroplay gtp`` (PUCT search with
  Go priors and random-rollout leaves; flat Monte-Carlo and playout ownership).
- shogi: ``shogi_alphabeta`` (Bonanza-style), ``shogi_mcts`` (dlshogi-style), ``shogi_engines``
  (both by name), ``shogi_players`` (arena kinds ``usi:COMMAND``, ``alphabeta:N``,
  ``shogimcts:N``, ``random:SEED``), ``gnushogi_usi`` (GNU Shogi behind USI).

Sits above ``nn`` and below ``train``, ``play`` and ``bench``, which all use it. Nothing heavy is
imported here.
"""
