"""The policy head follows the game's ``policy_layout``: cells, columns, or cells then a pass."""

from __future__ import annotations

import pytest
import torch

from zeroplay.games import make
from zeroplay.nn.arch import HEAD_CELLS_PASS, ArchSpec, action_head
from zeroplay.nn.models import model_from_spec


def test_layouts_come_from_the_game():
    assert action_head(make("gomoku", width=9, height=9)) == "cells"
    assert action_head(make("connect4")) == "columns"


def test_a_layout_that_does_not_fit_the_actions_is_refused():
    game = make("gomoku", width=7, height=7)
    game.policy_layout = "cells+pass"  # 49 actions, the layout wants 50
    with pytest.raises(ValueError, match="do not fit its policy layout 'cells\\+pass'"):
        action_head(game)
    game.policy_layout = "hexes"
    with pytest.raises(ValueError, match="unknown policy layout"):
        action_head(game)


@pytest.mark.parametrize("size", [5, 8])
def test_cells_plus_pass_tower_runs_on_any_size_with_the_pass_last(size):
    torch.manual_seed(0)
    net = model_from_spec(ArchSpec("b1c8", "tower", 3, 1, 8, HEAD_CELLS_PASS)).eval()
    planes = torch.rand(2, 3, size, size)
    logits, values = net(planes)
    assert logits.shape == (2, size * size + 1) and values.shape == (2,)
    # the pass logit is the net's own output: it moves with the input, the cells' logits do not
    # include it
    other, _ = net(torch.rand(2, 3, size, size))
    assert not torch.allclose(logits[:, -1], other[:, -1])
    loss = logits[:, -1].sum()
    loss.backward()
    assert net.pass_fc.weight.grad is not None and net.pass_fc.weight.grad.abs().sum() > 0


def test_other_heads_have_no_pass_weights():
    net = model_from_spec(ArchSpec("b1c8", "tower", 3, 1, 8, "cells"))
    assert not any(name.startswith("pass_fc") for name in net.state_dict())
