"""The trained models shipped in the package (src/zeroplay/models/): each loads with its metadata,
fits the game it names, gives legal priors and bounded values, and is the one the play side picks."""

import json

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.nn import NetEvaluator, load_checkpoint, read_checkpoint_meta
from zeroplay.engine.factory import DEFAULT_MODELS, MODELS_DIR, _key, find_model, model_files, resolve_model

SHIPPED = model_files()
# (file name, game options) that must ship once the model is trained (docs/STRENGTH.md)
EXPECTED = {
    "gomoku-6x6-4-freestyle.safetensors": dict(size=6, n_in_row=4, rule="freestyle"),
    "gomoku-8x8-5-freestyle.safetensors": dict(size=8, n_in_row=5, rule="freestyle"),
    "gomoku-15x15-freestyle.safetensors": dict(size=15, n_in_row=5, rule="freestyle"),
    # the same run's iteration 65: 11x11's default, where the newer 15x15 one is not measured yet
    "go-9x9.safetensors": dict(size=9),  # issue 22: area scoring; komi is free (a value-only option)
}
MAX_BYTES = 8 << 20


def _game_of(meta):
    return make(meta["game"]["name"], **meta["game"]["options"])


def _positions(game, rng, count=4):
    """The empty board and a few random positions that are still being played."""
    states = [game.initial()]
    while len(states) < count:
        s = game.initial()
        for _ in range(int(rng.integers(1, game.cells // 3))):
            moves = s.legal_moves()
            if len(moves) == 0 or s.is_terminal:
                break
            nxt = s.play(int(rng.choice(moves)))
            if nxt.is_terminal:
                break
            s = nxt
        states.append(s)
    return states


def _check_priors(game, ck):
    ev = NetEvaluator(ck.model, ck.features)
    states = _positions(game, np.random.default_rng(0))
    planes = np.stack([s.planes(ck.features) for s in states])
    legal = np.zeros((len(states), game.num_actions), dtype=np.bool_)
    for i, s in enumerate(states):
        legal[i, s.legal_moves()] = True
    priors, values = ev.evaluate_planes(planes, legal)
    assert priors.shape == (len(states), game.num_actions)
    assert (priors[~legal] == 0).all()
    assert np.isfinite(priors).all() and (priors >= 0).all()
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, rtol=1e-4)
    assert np.isfinite(values).all() and ((values >= -1) & (values <= 1)).all()


def test_package_data_ships_the_models():
    text = (MODELS_DIR.parents[2] / "pyproject.toml").read_text()
    assert '"zeroplay" = ["models/*.safetensors"]' in text


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_model_loads_fits_its_game_and_gives_legal_priors(path):
    assert path.stat().st_size <= MAX_BYTES, "a shipped model is a few MB at most"
    meta = read_checkpoint_meta(path)
    game = _game_of(meta)
    assert f"{path.stem}-".startswith(f"{game.name}-{game.width}x{game.height}-")
    if path.name in EXPECTED:
        opts = EXPECTED[path.name]
        assert (game.width, game.height) == (opts["size"], opts["size"])
        assert all(game.options[k] == v for k, v in opts.items() if k != "size")
    shipped = meta["extra"]["shipped"]
    assert shipped["status"] in ("final", "intermediate")
    assert shipped["selfplay_games"] > 0 and shipped["iteration"] > 0
    assert meta["optimizer"] is None, "ship weights only"
    json.dumps(meta)
    ck = load_checkpoint(path, game=game)
    _check_priors(game, ck)
    # its own board plays it by default, or another file (a newer model replaced it), or none
    # (measured weaker than the search-only engine)
    key = _key(game)
    assert find_model(game) == (MODELS_DIR / DEFAULT_MODELS[key] if key in DEFAULT_MODELS else None)
    assert resolve_model(path.stem) == str(path) == resolve_model(path.name)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_a_shipped_model_plays_by_default_only_where_it_was_measured(path):
    """A fully convolutional net loads on every size, but 9x9 or 13x13 keep the search-only engine."""
    meta = read_checkpoint_meta(path)
    name, opts = meta["game"]["name"], dict(meta["game"]["options"])
    for size in range(5, 20):
        if opts.get("n_in_row", 0) > size:
            continue
        kept = {k: v for k, v in opts.items() if k not in ("width", "height")}
        game = make(name, **{**kept, "width": size, "height": size})
        key = _key(game)
        expected = MODELS_DIR / DEFAULT_MODELS[key] if key in DEFAULT_MODELS else None
        if expected is not None and not expected.exists():
            expected = None
        assert find_model(game) == expected, size


def test_default_models_name_files_that_ship_or_are_pending():
    for name in DEFAULT_MODELS.values():
        assert name in EXPECTED


def test_resolve_model_keeps_paths_and_unknown_names():
    assert resolve_model("no-such-model") == "no-such-model"
    assert resolve_model("dir/x.safetensors") == "dir/x.safetensors"


def test_11x11_plays_with_the_fully_convolutional_15x15_model():
    path = MODELS_DIR / "gomoku-15x15-freestyle.safetensors"
    if not path.exists():
        pytest.skip("the shipped 15x15 model is not in this checkout (src/zeroplay/models/)")
    game = make("gomoku", size=11, n_in_row=5, rule="freestyle")
    assert find_model(game) == path
    _check_priors(game, load_checkpoint(path, game=game))


def test_the_note_says_why_a_loading_model_is_not_the_default():
    """On its own board a model is not the default because it was measured weaker; elsewhere
    because it was not measured (the user sees which)."""
    from zeroplay.engine.factory import make_engine

    if not (MODELS_DIR / "gomoku-8x8-5-freestyle.safetensors").exists():
        pytest.skip("the shipped 8x8 model is not in this checkout (src/zeroplay/models/)")
    # 8x8 has its default now (the b4c32 model, 2026-12-05); 9x9 has none, and both fully
    # convolutional models load there, unmeasured
    assert make_engine(make("gomoku", size=8, n_in_row=5, rule="freestyle")).note is None
    note9 = make_engine(make("gomoku", size=9, n_in_row=5, rule="freestyle")).note
    assert "gomoku-8x8-5-freestyle: trained on 8x8, not measured on 9x9" in note9 and "weaker" not in note9
    if (MODELS_DIR / "gomoku-15x15-freestyle.safetensors").exists():
        assert "gomoku-15x15-freestyle: trained on 15x15, not measured on 9x9" in note9


def test_a_shipped_model_named_outside_its_default_settings_says_so():
    """``--model gomoku-15x15-freestyle --size 9`` played without a word that 9x9 was never
    measured (``--size 9`` alone said it); where it is the default there is no note."""
    from zeroplay.engine.factory import make_engine

    for name in ("gomoku-15x15-freestyle", "gomoku-8x8-5-freestyle"):
        if not (MODELS_DIR / f"{name}.safetensors").exists():
            pytest.skip(f"the shipped model {name} is not in this checkout (src/zeroplay/models/)")
    nine = make_engine(make("gomoku", size=9, n_in_row=5, rule="freestyle"), "gomoku-15x15-freestyle")
    assert nine.model_path is not None
    assert nine.note == "gomoku-15x15-freestyle: trained on 15x15, not measured on 9x9 (docs/STRENGTH.md)."
    eight = make_engine(make("gomoku", size=8, n_in_row=5, rule="freestyle"), "gomoku-8x8-5-freestyle")
    assert eight.note is None  # its own board, where it is the default
    nine8 = make_engine(make("gomoku", size=9, n_in_row=5, rule="freestyle"), "gomoku-8x8-5-freestyle")
    assert nine8.note == "gomoku-8x8-5-freestyle: trained on 8x8, not measured on 9x9 (docs/STRENGTH.md)."
    assert make_engine(make("gomoku", size=15, n_in_row=5, rule="freestyle"), "gomoku-15x15-freestyle").note is None
    assert make_engine(make("gomoku", size=11, n_in_row=5, rule="freestyle"), "gomoku-15x15-freestyle").note is None


def test_an_earlier_model_named_on_its_own_board_says_it_was_replaced(tmp_path, monkeypatch):
    """``--model NAME`` of an earlier shipped model on its own board is not "weaker than the
    search-only engine": a newer model replaced it there."""
    import shutil

    import zeroplay.engine.factory as factory

    src = MODELS_DIR / "gomoku-8x8-5-freestyle.safetensors"
    if not src.exists():
        pytest.skip("the shipped 8x8 model is not in this checkout (src/zeroplay/models/)")
    shutil.copy(src, tmp_path / "gomoku-8x8-5-freestyle.safetensors")
    shutil.copy(src, tmp_path / "gomoku-8x8-5-freestyle-old.safetensors")
    import zeroplay.nn.shipped as shipped

    monkeypatch.setattr(factory, "MODELS_DIR", tmp_path)
    monkeypatch.setattr(shipped, "MODELS_DIR", tmp_path)
    old = factory.make_engine(make("gomoku", size=8, n_in_row=5, rule="freestyle"), "gomoku-8x8-5-freestyle-old")
    assert old.note == ("gomoku-8x8-5-freestyle-old: an earlier model; gomoku-8x8-5-freestyle replaced it "
                        "as this board's default (docs/STRENGTH.md).")
