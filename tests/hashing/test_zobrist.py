"""Zobrist keys: fixed seed, reproducible everywhere, non-zero and distinct numbers, incremental
XOR on play and undo equal to ``zobrist_key`` from scratch, side to move included."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from zeroplay import hashing
from zeroplay.games import fast, make
from zeroplay.games.gomoku import kernels as K
from zeroplay.hashing import (
    EMPTY_KEY,
    MAX_CELLS,
    SIDE_KEY,
    ZOBRIST_SEED,
    last_move_keys,
    splitmix64_stream,
    stone_keys,
    zobrist_key,
)


def _key(info) -> int:
    return int(info[2:3].view(np.uint64)[0])  # I_KEY = 2


def _scratch(pos, cells) -> int:
    return zobrist_key(np.flatnonzero(pos.board == 1), np.flatnonzero(pos.board == 2), int(pos.info[0]), cells)


# --- the numbers ----------------------------------------------------------------------------
def test_seed_is_the_documented_one():
    assert ZOBRIST_SEED == 0x7A65726F706C6179 == int.from_bytes(b"zeroplay", "big")
    assert "0x7A65726F706C6179" in hashing.zobrist.__doc__


def test_splitmix64_reference_values():
    """SplitMix64 from seed 0: the published first outputs."""
    assert splitmix64_stream(0, 3).tolist() == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]


def test_all_numbers_non_zero_and_distinct():
    stones = stone_keys(MAX_CELLS)
    last = last_move_keys(MAX_CELLS)
    assert stones.shape == (2, MAX_CELLS) and stones.dtype == np.uint64
    everything = np.concatenate([stones.ravel(), last, np.array([EMPTY_KEY, SIDE_KEY], dtype=np.uint64)])
    assert (everything != 0).all()
    assert np.unique(everything).size == everything.size
    assert EMPTY_KEY != 0 and SIDE_KEY != 0


@pytest.mark.parametrize("shape", [(15, 15), (20, 20), (9, 7), (3, 3)])
def test_game_keys_are_a_prefix_of_the_table(shape):
    width, height = shape
    g = make("tictactoe") if shape == (3, 3) else make("gomoku", width=width, height=height)
    zk = g.zkeys.view(np.uint64)
    assert zk.shape == (3, g.cells)
    assert np.array_equal(zk[:2], stone_keys(MAX_CELLS)[:, : g.cells])
    assert np.array_equal(zk[2], last_move_keys(MAX_CELLS)[: g.cells])
    # 2 x cells stone numbers: non-zero and distinct
    assert (zk[:2] != 0).all() and np.unique(zk[:2]).size == 2 * g.cells


def test_table_size_errors():
    for bad in (0, MAX_CELLS + 1):
        with pytest.raises(ValueError):
            stone_keys(bad)
        with pytest.raises(ValueError):
            last_move_keys(bad)


def test_identical_across_processes():
    code = (
        "import hashlib, numpy as np\n"
        "from zeroplay.hashing import EMPTY_KEY, SIDE_KEY, stone_keys, last_move_keys\n"
        "h = hashlib.sha256(stone_keys(625).tobytes() + last_move_keys(625).tobytes()).hexdigest()\n"
        "print(EMPTY_KEY, SIDE_KEY, h)\n"
    )
    digest = hashlib.sha256(stone_keys(625).tobytes() + last_move_keys(625).tobytes()).hexdigest()
    here = f"{EMPTY_KEY} {SIDE_KEY} {digest}"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == here


def test_docstring_states_the_birthday_bound():
    doc = hashing.zobrist.__doc__
    assert "sqrt(pi/2 * 2^b)" in doc


# --- zobrist_key ------------------------------------------------------------------------------
def test_scratch_key_basics():
    assert zobrist_key([], [], 0, 225) == EMPTY_KEY
    assert zobrist_key([], [], 1, 225) == EMPTY_KEY ^ SIDE_KEY
    k = stone_keys(225)
    assert zobrist_key([3], [7], 0, 225) == EMPTY_KEY ^ int(k[0, 3]) ^ int(k[1, 7])
    assert zobrist_key([3, 5], [], 0, 225) == zobrist_key([5, 3], [], 0, 225)
    assert zobrist_key([3], [], 0, 225) != zobrist_key([], [3], 0, 225)
    assert 0 <= zobrist_key(range(100), range(100, 200), 1, 225) < 2**64


def test_initial_key_is_the_empty_key_and_non_zero():
    for g in (make("gomoku"), make("gomoku", width=20, height=20), make("tictactoe")):
        assert g.initial().key == EMPTY_KEY != 0


def test_same_stones_other_side_to_move_differ():
    g = make("gomoku")
    a = g.from_stones([112, 113], [0, 1], to_play=0)
    b = g.from_stones([112, 113], [0, 1], to_play=1)
    assert a.key != b.key and a.key ^ b.key == SIDE_KEY
    assert a.board.tobytes() == b.board.tobytes()


def test_transposition_gives_the_same_key():
    g = make("gomoku")
    a = g.initial().play_many([112, 0, 113, 1, 114])
    b = g.initial().play_many([114, 1, 112, 0, 113])
    assert a.key == b.key == zobrist_key([112, 113, 114], [0, 1], 1, 225)
    c = g.initial().play_many([112, 1, 113, 0, 114])  # same stones, again another order
    assert c.key == a.key
    d = g.initial().play_many([0, 112, 1, 113, 14])  # colours swapped on some cells
    assert d.key != a.key


def test_key_does_not_depend_on_rule_or_last_move():
    black, white = [10, 20, 30], [11, 21]
    keys = {
        make("gomoku", rule=r).from_stones(black, white, last_move=lm).key
        for r in ("freestyle", "standard")
        for lm in (None, 30, 10)
    }
    assert keys == {zobrist_key(black, white, 1, 225)}


# --- incremental == scratch -------------------------------------------------------------------
def _seeded_moves(cells: int, count: int, seed: int) -> list[int]:
    return np.random.default_rng(seed).permutation(cells)[:count].tolist()


@pytest.mark.parametrize("size", [15, 20])
@pytest.mark.parametrize("path", ["dispatcher", "kernels", "untracked"])
def test_incremental_equals_scratch_every_move_and_undo(size, path):
    """A seeded 60-move game: key after every move and every undo equals the scratch key."""
    g = make("gomoku", width=size, height=size)
    cells = g.cells
    pos = g.initial().fast()
    empty_key = _key(pos.info)
    assert empty_key == EMPTY_KEY

    if path == "dispatcher":
        def apply(m):
            fast.apply(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux, m)

        def undo():
            return fast.undo(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux)
    elif path == "kernels":
        def apply(m):
            K.apply_move_tracked(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux, m)

        def undo():
            return K.undo_move_tracked(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux)
    else:
        def apply(m):
            K.apply_move(g.params, g.zkeys, pos.board, pos.info, pos.stack, m)

        def undo():
            return K.undo_move(g.params, g.zkeys, pos.board, pos.info, pos.stack)

    # the first seed whose random 60 moves finish no game before the last one
    for seed in range(100):
        moves = _seeded_moves(cells, 60, seed)
        s = g.initial()
        ok = True
        for m in moves[:-1]:
            s = s.play(m)
            if s.is_terminal:
                ok = False
                break
        if ok:
            break
    assert ok
    keys = [empty_key]
    for m in moves:
        apply(m)
        assert _key(pos.info) == _scratch(pos, cells)
        keys.append(_key(pos.info))
    assert len(set(keys)) == len(keys)
    for i, m in enumerate(reversed(moves)):
        assert undo() == m
        assert _key(pos.info) == _scratch(pos, cells)
        assert _key(pos.info) == keys[-2 - i]
    assert _key(pos.info) == EMPTY_KEY
    assert not pos.board.any()


@pytest.mark.parametrize("size", [15, 20])
def test_state_api_keys_equal_scratch(size):
    g = make("gomoku", width=size, height=size)
    s = g.initial()
    for m in _seeded_moves(g.cells, 60, 1):
        if s.is_terminal:
            break
        s = s.play(m)
        assert s.key == zobrist_key(s.stones(0), s.stones(1), s.to_play, g.cells)
