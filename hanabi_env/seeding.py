"""Seeds: their range and how every stochastic entry point derives its seeds from one master seed.

Every seed of the project is an int in ``[0, SEED_LIMIT)`` (the engine's generator takes 62 bits;
:func:`hanabi_env.validate.check_seed` checks it). A seed a person types (the command line's
``--seed``, a study's master seed) is an int in ``[0, MASTER_SEED_LIMIT)``, far below
``SEED_LIMIT`` (two limits, both needed: the narrower one is what users have always typed and what
their error lines say).

Sub-seeds come from :func:`derive_seed`, a pure function of integers (the master seed and the
coordinates of the thing seeded, e.g. the run seed and a candidate's number), never from a
generator whose state depends on what ran before, so results do not depend on the order work is
done in, nor on the number of workers (docs/rules.md §6): a game's deal and its agents' seeds
(``agents.evaluate.game_seeds``), a seat's construction seed in ``play`` and the browser app
(``derive_seed(seed, seat)``), ``demo``'s games (``derive_seed(seed, game)``), the candidates
and evaluations of MAP-Elites and the GA. Two recorded results keep an older rule, a master seed
plus an index, so that the commands that made them still make them: a study's run ``i`` is a
MAP-Elites run of master seed ``seed + i`` (the same as ``map-elites --seed`` with that seed;
docs/results/pipeline-paper/), and ``train-sb3``'s training partner ``i`` is built with seed
``seed + i`` (the MaskablePPO model of docs/results/benchmark-v2/).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MASTER_SEED_LIMIT", "SEED_LIMIT", "derive_seed"]

SEED_LIMIT = 2**62
"""Seeds are ints in ``[0, SEED_LIMIT)`` (every seed the library's functions take)."""

MASTER_SEED_LIMIT = 2**32
"""Seeds a person types (command line, study settings) are ints in ``[0, MASTER_SEED_LIMIT)``.

Below :data:`SEED_LIMIT` so that a study's ``seed + i`` run seeds stay valid seeds.
"""


def derive_seed(*keys: int) -> int:
    """A seed in ``[0, 2**62)`` derived from integers (``numpy.random.SeedSequence``).

    The one way to derive a sub-seed: a pure function of its keys, so a result does not depend
    on the order work is done in.

    Args:
        keys: Ints >= 0 (e.g. a master seed, then a stage number and an index).

    Returns:
        The derived seed (an int).

    Example: the evaluation seed of candidate ``k`` of a MAP-Elites run is
    ``derive_seed(seed, 1, k)`` (:mod:`qd.evaluator`).
    """
    words = np.random.SeedSequence([int(k) for k in keys]).generate_state(2, np.uint32)
    return int((int(words[0]) << 32 | int(words[1])) % SEED_LIMIT)
