"""Where the VCT guard could have acted in recorded games: player A's moves that let the opponent
win by a VCT, found without searching.

    .venv/bin/python training/vct_blunders.py \\
        training/strength/games/gomoku-15x15-iter83/heuristic-800.jsonl [--nodes 50000]
        [--lost-only] [--within 50000] [--missed]

For each distinct game of a ``zeroplay arena --record`` file of a Gomoku match (a header line with
the game's options, then one game a line with ``moves``, ``a_is_black`` and ``winner``), every move
of player A after the sampled opening plies is replayed and the opponent's proof-number VCT
(``ThreatSolver.vct(method="pns")``, the guard's search, ``--nodes`` work units) is searched after
it; a line found is replayed to the opponent's five (``proof.verify_line``) before it counts. At
the first such move of a game, every other legal move within 2 cells of a stone is tried the same
way, and the first one after which no VCT is found is printed ("cleared"). Then the game's next
one. The last line sums it up. ``--lost-only`` reads only the games A lost; ``--within G`` also
says, of each such move, whether a VCT search of G units finds the line too (a guard of G units
would have seen it) and counts those it does not (``deeper``). ``--missed`` asks the other question,
of the games A did not win: the first position where A was to move and had a VCT of its own
(``--nodes`` units, the line replayed to A's five), i.e. a win the engine's root VCT did not
take (docs/STRENGTH.md, 8x8 against ``rollout:5000``). The guard itself (``search/root_guard.py``) tries the search's most
visited moves, not every move near the stones; docs/THREATS.md, "The VCT guard".
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def _read(path: str):
    """``(game, header, [(game line, moves, A's colour 0/1), ...])`` of an arena record.

    Raises:
        ValueError: a record that does not parse, or of another game than Gomoku.
    """
    from zeroplay.games import make

    lines = open(path, encoding="utf-8").read().splitlines()
    try:
        head = json.loads(lines[0])
        options = head["options"]
    except (IndexError, ValueError, KeyError, TypeError):
        raise ValueError(f"{path}: not a zeroplay arena record (its first line is the match header)") from None
    if head.get("game") != "gomoku":
        raise ValueError(f"{path}: a record of {head.get('game')!r}; this script reads Gomoku matches")
    game = make("gomoku", **{k: options[k] for k in ("width", "height", "n_in_row", "rule")})
    rows = []
    for number, raw in enumerate(lines[1:], start=2):
        try:
            r = json.loads(raw)
            rows.append((r, [int(m) for m in r["moves"]], 0 if r["a_is_black"] else 1))
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{path}, line {number}: not a game of the record") from None
    return game, head, rows


def missed_wins(path: str, nodes: int, out=sys.stdout) -> dict:
    """Of the distinct games A did not win, the first position (after the sampled opening plies)
    where A was to move and had a VCT of ``nodes`` units, replayed to A's five before it counts;
    prints a line per such game and returns ``games`` (distinct, not won by A), ``moves`` (A's
    positions searched) and ``missed`` (games with such a position).

    Raises:
        ValueError: as ``blunders``.
    """
    from zeroplay.search.proof import verify_line
    from zeroplay.solvers.threat_solver import ThreatSolver

    game, head, rows = _read(path)
    solver = ThreatSolver(game, table_mib=8.0)
    pool = min(max(2 * nodes, 1 << 14), 1 << 22)
    skip = int(head.get("opening_moves") or 0)
    totals = {"games": 0, "moves": 0, "missed": 0}
    for r, moves, a in _distinct(rows, lambda r, a: r.get("winner") != a):
        totals["games"] += 1
        for ply, state, move in _turns(game, moves, a, skip):
            totals["moves"] += 1
            v = solver.vct(state, nodes=nodes, method="pns", pool=pool)
            if v.found and verify_line(state, "win", len(v.line), list(v.line)):
                totals["missed"] += 1
                print(f"game {r.get('game')} ply {ply}: A ({'Black' if a == 0 else 'White'}) had a VCT "
                      f"({' '.join(game.format_move(int(m)) for m in v.line)}) and played "
                      f"{game.format_move(move)} (winner: "
                      f"{'Black' if r['winner'] == 0 else 'White' if r['winner'] == 1 else 'none'})",
                      file=out, flush=True)
                break
    return totals


def _distinct(rows, keep):
    """The rows of ``_read`` whose moves were not seen before and that ``keep(row, A's colour)``."""
    seen: set[tuple[int, ...]] = set()
    for r, moves, a in rows:
        if tuple(moves) in seen or not keep(r, a):
            continue
        seen.add(tuple(moves))
        yield r, moves, a


def _turns(game, moves: list[int], a: int, skip: int):
    """``(ply, state, move)`` of each of A's moves in a game, from ply ``skip`` on."""
    state = game.initial()
    for ply, move in enumerate(moves):
        if state.to_play == a and ply >= skip:
            yield ply, state, move
        state = state.play(move)


def blunders(path: str, nodes: int, out=sys.stdout, lost_only: bool = False, within: int | None = None) -> dict:
    """Scan one record; prints a line per game with such a move and returns the totals: ``games``
    (distinct, of those read), ``moves`` (A's moves checked), ``lost`` (those after which a VCT
    was found), ``cleared`` (of those, the positions where another move near the stones was not
    shown to lose), ``deeper`` (of ``lost``, those a ``within``-unit search does not find).

    Raises:
        ValueError: a record that does not parse, or of another game than Gomoku.
    """
    from zeroplay.search.proof import verify_line
    from zeroplay.solvers.threat_solver import ThreatSolver

    game, head, rows = _read(path)
    solver = ThreatSolver(game, table_mib=2.0)
    pool = min(max(2 * nodes, 1 << 14), 1 << 22)

    def loses(state, move: int, budget: int = nodes) -> bool:
        after = state.play(move)
        if after.is_terminal:
            return False
        r = solver.vct(after, nodes=budget, method="pns", pool=pool)
        return bool(r.found and verify_line(after, "win", len(r.line), list(r.line)))

    totals = {"games": 0, "moves": 0, "lost": 0, "cleared": 0, "deeper": 0}
    skip = int(head.get("opening_moves") or 0)
    for r, moves, a in _distinct(rows, lambda r, a: not lost_only or r.get("winner") == 1 - a):
        totals["games"] += 1
        for ply, state, move in _turns(game, moves, a, skip):
            totals["moves"] += 1
            if loses(state, move):
                totals["lost"] += 1
                w = game.width
                near = [int(m) for m in state.legal_moves() if int(m) != move and any(
                    abs(int(m) // w - t // w) <= 2 and abs(int(m) % w - t % w) <= 2 for t in moves[:ply])]
                ok = next((m for m in near if not loses(state, m)), None)
                totals["cleared"] += ok is not None
                deeper = within is not None and not loses(state, move, within)
                totals["deeper"] += deeper
                print(f"game {r.get('game')} ply {ply}: A ({'Black' if a == 0 else 'White'}) played "
                      f"{game.format_move(move)}, after which the opponent wins by a VCT; "
                      + (f"{game.format_move(ok)} is not shown to lose" if ok is not None
                         else "so does every move near the stones")
                      + (f"; not found within {within} units" if deeper else "")
                      + f" (winner: {'Black' if r['winner'] == 0 else 'White' if r['winner'] == 1 else 'none'})",
                      file=out, flush=True)
                break
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="zeroplay arena --record files of Gomoku matches")
    parser.add_argument("--nodes", type=int, default=50_000, help="VCT work units per move (default 50000)")
    parser.add_argument("--lost-only", action="store_true", help="only the games A lost")
    parser.add_argument("--within", type=int, default=None,
                        help="also search each losing move's VCT with this many units (a smaller guard's view)")
    parser.add_argument("--missed", action="store_true",
                        help="instead: in the games A did not win, the first position where A had a VCT of its own")
    args = parser.parse_args(argv)
    if args.nodes < 1 or (args.within is not None and args.within < 1):
        parser.error(f"--nodes and --within must be >= 1, got {args.nodes} and {args.within}")
    started = time.perf_counter()
    for path in args.records:
        try:
            if args.missed:
                t = missed_wins(path, args.nodes)
                print(f"{path}: {t['games']} distinct games A did not win, {t['moves']} positions of A "
                      f"searched, {t['missed']} games where A had a VCT of {args.nodes} units "
                      f"({time.perf_counter() - started:.0f} s)")
                continue
            t = blunders(path, args.nodes, lost_only=args.lost_only, within=args.within)
        except (OSError, ValueError) as e:
            print(f"vct_blunders.py: {e}", file=sys.stderr)
            return 1
        print(f"{path}: {t['games']} distinct games, {t['moves']} moves of A checked, {t['lost']} let the "
              f"opponent a VCT, {t['cleared']} of them with a move near the stones not shown to lose "
              + (f", {t['deeper']} not found within {args.within} units" if args.within else "")
              + f" ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
