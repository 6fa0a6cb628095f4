"""Other-Play's colour permutations: a seat that sees the game with its colours relabelled.

[BR20] "Other-Play" trains a policy with partners that see the game through a random
symmetry of it; in Hanabi the symmetries are the permutations of the colours. A permutation
``perm`` (a tuple of the ``colors`` colours, ``perm[c]`` = the colour real colour ``c`` is shown
as) acts on one seat's observation vector and moves:

* **Observation** (:func:`observation_index`): ``shown = real[index]``, where ``real`` is the
  env's observation of the seat (``card_knowledge`` or ``minimal``, the layout of
  :mod:`hanabi_env.env`, docs/anchors.md §2.2). Every colour-indexed section moves with the
  colour: the other hands' one-hot cards (``colour * ranks + rank``), the fireworks, the
  discards (one thermometer block per colour), the last move's colour revealed and card
  played or discarded, and the card knowledge (plausible cards and colour revealed). Counts,
  tokens, seats, ranks and slots do not change.
* **Moves** (:func:`action_maps`): ``to_real[a]`` is the real move of shown move ``a`` and
  ``to_shown`` its inverse. Only the colour reveals move (reveal colour ``perm[c]`` in the
  shown game is reveal colour ``c`` in the real one); plays, discards and rank reveals keep
  their uids (HLE's move-uid layout, :mod:`hanabi_env.env`). The seat's legal mask in the
  shown game is ``real_mask[to_real]``.

So the permuted seat sees exactly what it would see in the game dealt with every card's colour
relabelled by ``perm`` and played with the same moves relabelled (a test plays both games).

Source: Hu, Lerer, Peysakhovich, Foerster, "Other-Play for zero-shot coordination", ICML 2020
(https://arxiv.org/abs/2003.02979; [BR20] in agents.clone); the observation layout of
docs/anchors.md §2.2.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from hanabi_env.config import HanabiConfig
from hanabi_env.validate import check_choice, type_error

__all__ = ["action_maps", "colour_permutations", "observation_index", "permute_deck"]


def colour_permutations(colors: int) -> np.ndarray:
    """Every permutation of ``colors`` colours, ``(colors!, colors)`` int64, identity first."""
    return np.array(list(itertools.permutations(range(colors))), dtype=np.int64)


def _check_perm(perm: Sequence[int], colors: int) -> np.ndarray:
    arr = np.asarray(perm)
    if arr.dtype.kind not in "iu" or sorted(arr.tolist()) != list(range(colors)):
        raise ValueError(
            f"perm={list(np.asarray(perm).tolist())!r} is not allowed; allowed: a permutation "
            f"of the {colors} colours 0..{colors - 1}"
        )
    return arr.astype(np.int64)


def _move_colour_blocks(index, base, n_blocks, block, perm, stride, width) -> int:
    """Within each of ``n_blocks`` blocks, colour sub-blocks (``stride`` apart) follow ``perm``."""
    for k in range(n_blocks):
        start = base + k * block
        for c, shown in enumerate(perm):
            dst = start + int(shown) * stride
            index[dst : dst + width] = np.arange(start + c * stride, start + c * stride + width)
    return base + n_blocks * block


def observation_index(
    config: HanabiConfig, perm: Sequence[int], observation_type: str = "card_knowledge"
) -> np.ndarray:
    """The gather index of a permuted seat's observation: ``shown = real[index]``.

    Args:
        config: The game.
        perm: ``perm[c]`` is the colour real colour ``c`` is shown as.
        observation_type: ``"card_knowledge"`` or ``"minimal"``.

    Returns:
        ``(obs_size,)`` int64, a permutation of ``range(obs_size)``.

    Raises:
        TypeError: ``config`` is not a :class:`~hanabi_env.HanabiConfig`.
        ValueError: ``perm`` is not a permutation of the colours, or another observation type.
    """
    if not isinstance(config, HanabiConfig):
        raise type_error("config", "a HanabiConfig", config)
    check_choice("observation_type", observation_type, ("card_knowledge", "minimal"))
    p, c, r, h = config.players, config.colors, config.ranks, config.hand_size
    n_cards = config.n_cards
    perm_a = _check_perm(perm, c)
    size = _observation_size(config, observation_type)
    index = np.arange(size, dtype=np.int64)
    at = _move_colour_blocks(index, 0, (p - 1) * h, c * r, perm_a, r, r)  # other hands
    at += p + (n_cards - p * h)  # missing cards, deck size
    at = _move_colour_blocks(index, at, 1, c * r, perm_a, r, r)  # fireworks
    at += config.max_information_tokens + config.max_life_tokens
    per_colour = n_cards // c
    at = _move_colour_blocks(index, at, 1, n_cards, perm_a, per_colour, per_colour)  # discards
    at += p + 4 + p  # last move: actor, type, target
    at = _move_colour_blocks(index, at, 1, c, perm_a, 1, 1)  # last move: colour
    at += r + h + h  # rank, touched, slot
    at = _move_colour_blocks(index, at, 1, c * r, perm_a, r, r)  # last move: card
    at += 2  # scored, token
    if observation_type == "card_knowledge":
        block = c * r + c + r
        for k in range(p * h):
            start = at + k * block
            _move_colour_blocks(index, start, 1, c * r, perm_a, r, r)  # plausible cards
            _move_colour_blocks(index, start + c * r, 1, c, perm_a, 1, 1)  # colour revealed
        at += p * h * block
    assert at == size, (at, size)  # the layout of docs/anchors.md §2.2
    return index


def _observation_size(config: HanabiConfig, observation_type: str) -> int:
    from hanabi_env.game import HanabiGame

    game = HanabiGame(config)
    game.reset(0)
    return int(game.observation(0, observation_type).shape[0])


def action_maps(config: HanabiConfig, perm: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(to_real, to_shown)``: a permuted seat's moves in the real game and back.

    Args:
        config: The game.
        perm: ``perm[c]`` is the colour real colour ``c`` is shown as.

    Returns:
        Two ``(n_actions,)`` int64 arrays, inverse permutations of the move uids:
        ``to_real[a]`` is the real move of shown move ``a``; the shown legal mask is
        ``real_mask[to_real]``.

    Raises:
        TypeError: ``config`` is not a :class:`~hanabi_env.HanabiConfig`.
        ValueError: ``perm`` is not a permutation of the colours.
    """
    if not isinstance(config, HanabiConfig):
        raise type_error("config", "a HanabiConfig", config)
    p, c, r, h = config.players, config.colors, config.ranks, config.hand_size
    perm_a = _check_perm(perm, c)
    n_actions = 2 * h + (p - 1) * (c + r)
    to_real = np.arange(n_actions, dtype=np.int64)
    for off in range(1, p):
        base = 2 * h + (off - 1) * c
        to_real[base + perm_a] = base + np.arange(c)
    to_shown = np.empty_like(to_real)
    to_shown[to_real] = np.arange(n_actions)
    return to_real, to_shown


def permute_deck(deck: Sequence[int], config: HanabiConfig, perm: Sequence[int]) -> np.ndarray:
    """A deck (card ids ``colour * ranks + rank``) with every colour relabelled by ``perm``.

    Raises:
        ValueError: ``perm`` is not a permutation of the colours.
    """
    perm_a = _check_perm(perm, config.colors)
    cards = np.asarray(deck, dtype=np.int64)
    return perm_a[cards // config.ranks] * config.ranks + cards % config.ranks
