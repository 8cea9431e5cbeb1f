"""The op registry and its rows. Importing this package registers every op."""
from gradwalk.engine.ops.registry import REGISTRY, Op, get_op  # noqa: F401
from gradwalk.engine.ops import elementwise, reductions, linalg, losses  # noqa: F401  (register rows)
from gradwalk.engine.ops import softmax, activations, minmax, norm  # noqa: F401  (session 6 rows)
from gradwalk.engine.ops import shape  # noqa: F401  (structure ops, comparisons, where)
from gradwalk.engine.ops import cut  # noqa: F401  (detach, stop_gradient: the bug lab)
from gradwalk.engine.ops import masked  # noqa: F401  (the backward graph's masked rules)
