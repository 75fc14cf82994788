"""``Batched``: the uniform evaluator without its inline rule, so that a search calls it once per
round through the batched path (gather, evaluator, finish), as it calls a network. Shared by
``playout_cost.py`` and ``struct_cost.py``."""

from zeroplay.search import UniformEvaluator


class Batched:
    """UniformEvaluator without its inline rule: one Python evaluator call per round."""

    features = None

    def __init__(self):
        self.inner = UniformEvaluator()

    def evaluate(self, batch):
        return self.inner.evaluate(batch)
