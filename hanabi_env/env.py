"""# Hanabi (`hanabi_env`, version 2)

A drop-in replacement for PettingZoo's `classic/hanabi-v5`: same constructor, observation layout
(HLE's canonical encoding, bit for bit) and action order, on a pure-Python/numba engine (no
C++ build), with the defects of hanabi_v5 fixed (docs/anchors.md §1) and each seat's behaviour
metrics in `infos`.

This text is the module docstring of `hanabi_env.env`. Because the package exports the factory
function `env` under the same name, `import hanabi_env.env as m` binds the *function*; its
`__doc__` therefore carries this whole text too, so `print(m.__doc__)` and `help(hanabi_env.env)`
both show it (so do `python3 -m pydoc hanabi_env.env` and
`sys.modules["hanabi_env.env"].__doc__`).

| Property             | Value                                                        |
|----------------------|--------------------------------------------------------------|
| Import               | `import hanabi_env; hanabi_env.env(**kwargs)`                |
| Make by name         | `pettingzoo.make("aec", "hanabi_adhoc/hanabi_env-v2")`       |
| Actions              | Discrete                                                     |
| Parallel API         | No (turn-based AEC)                                          |
| Manual Control       | Yes (terminal play, `render_mode="ansi"`)                    |
| Render Modes         | `"ansi"`, `"human"` (text), `"rgb_array"` (picture)          |
| Agents               | `agents = ['player_0', ..., 'player_{players-1}']`           |
| Action Shape         | `Discrete(2h + (p-1)(c+r))`: 20 for the 2-player default     |
| Observation Shape    | `(658,)` for the 2-player default with card knowledge        |
| Observation Values   | {0, 1}; float64 in `Box(-inf, inf)` as hanabi_v5 (default), or float32/int8 in `Box(0, 1)` (`observation_dtype`) |
| Action Mask          | `observation["action_mask"]`, int8 0/1, zeros for agents off turn |
| State Shape          | `(783,)` for the 2-player default: `state()`, `state_space` (see Global state) |

## Arguments

`raw_env(colors=5, ranks=5, players=2, hand_size=5, max_information_tokens=8,
max_life_tokens=3, observation_type="card_knowledge", random_start_player=False,
render_mode=None, scoring="strict", hand_order="shift", observation_dtype="float64")`

| argument | allowed | meaning |
|---|---|---|
| `colors`, `ranks` | 2..5 | deck of `colors x ranks` cards; per colour 3 of rank 1, 1 of the top rank, 2 else |
| `players` | 2..5, `<= colors` | number of agents |
| `hand_size` | 2..5, `players*hand_size <= deck` | cards per hand; default 5 at every player count, as hanabi_v5 (drop-in). The rulebook, HLE, the papers and hanab.live deal 4 at 4-5 players, and every other entry point of this project does too: pass `hand_size=hanabi_env.rulebook_hand_size(players)` for that game (docs/rules.md §0.1) |
| `max_information_tokens` | 0..100 | hint tokens |
| `max_life_tokens` | 1..100 | lives |
| `observation_type` | `"minimal"`, `"card_knowledge"`, `"seer"` | see the layout below |
| `random_start_player` | bool | draw the first player from the reset seed (honoured in `agent_selection`) |
| `render_mode` | `None`, `"ansi"`, `"human"`, `"rgb_array"` | `"ansi"`: `render()` returns the text board; `"human"`: prints it after every step; `"rgb_array"`: `render()` returns a picture (see Rendering) |
| `scoring` | `"strict"`, `"lenient"` | strict (HLE/PettingZoo): the score drops to 0 when the lives run out; lenient (the papers' Java framework, docs/papers.md §1): the fireworks total is kept |
| `hand_order` | `"shift"`, `"fixed"` | shift (HLE/hanabi_v5): later cards shift left and the drawn card is appended; fixed (the papers' Java framework, docs/rules.md §12): the drawn card takes the vacated slot |
| `observation_dtype` | `"float64"`, `"float32"`, `"int8"` | the observation's array type and space (`hanabi_env.spaces`): `"float64"` is hanabi_v5's `Box(-inf, inf, (n,), float64)`, so SB3 models saved on either env load on the other; `"float32"` and `"int8"` declare `Box(0, 1)`. The values are the same 0/1 bits in every dtype |

Invalid arguments raise `ValueError` naming the parameter and the allowed range (`TypeError`
for a wrong type: a bool or a float is not an int, an int is not a bool); nothing is coerced.
Calling `step`, `observe`, `state`, `view` or `render` before the first `reset()` raises
`RuntimeError` (in `raw_env` and `env()` alike).

## Observation layout

`observe(agent)` returns `{"observation": (n,) in observation_dtype, "action_mask": int8
(n_actions,)}`. The
vector is HLE's canonical encoding (docs/anchors.md §2.2), verified bit for bit against OpenSpiel's
`hanabi` game in the tests. With p players, c colours, r ranks, hand size h, N cards, I
information and L life tokens (2-player default ranges in brackets):

| section | length | default indices | content |
|---|---|---|---|
| other hands | (p-1)·h·c·r | 0-124 | other players' cards, nearest next player first; one-hot `colour*r + rank` per slot, empty slots zero |
| missing cards | p | 125-126 | 1 where that player (observer first) holds fewer than h cards |
| deck size | N - p·h | 127-166 | thermometer of the cards left in the deck |
| fireworks | c·r | 167-191 | per colour (R, Y, G, W, B) a one-hot of the top rank, zero when empty |
| information tokens | I | 192-199 | thermometer |
| life tokens | L | 200-202 | thermometer |
| discards | N | 203-252 | per colour and rank a thermometer as wide as the copy count (3,2,2,2,1), colour-major |
| last move: actor | p | 253-254 | observer-relative seat of the most recent move's actor |
| last move: type | 4 | 255-258 | play, discard, reveal colour, reveal rank |
| last move: target | p | 259-260 | observer-relative target of a reveal |
| last move: colour | c | 261-265 | colour revealed |
| last move: rank | r | 266-270 | rank revealed |
| last move: touched | h | 271-275 | slots a reveal touched |
| last move: slot | h | 276-280 | slot played or discarded |
| last move: card | c·r | 281-305 | card played or discarded |
| last move: scored | 1 | 306 | the play added to a firework |
| last move: token | 1 | 307 | the play returned an information token |
| card knowledge | p·h·(c·r+c+r) | 308-657 | per player (observer first) and slot: c·r bits "still plausible" from hints (colour set x rank set), c bits colour revealed, r bits rank revealed; absent with `"minimal"`; with `"seer"` every card shows its true identity as if fully revealed |

All zeros in the last-move block before the first move. Sizes: 658 / 308 / 658 (2 players,
card knowledge / minimal / seer); 956, 1041, 1280 for 3, 4, 5 players with HLE hand sizes.

## Global state

`state()` (for centralised critics, e.g. TorchRL's `return_state=True`) is the observation of the
seat to move followed by that seat's own hand, one-hot per slot (`colour * ranks + rank`, empty
slots zero, the encoding of "other hands"): everything the seat sees plus the one thing it
cannot, the agent-specific global state of MAPPO's Hanabi experiments (docs/marl.md §4).
After the end of the game it is the state of the seat that would move next. Its space
`state_space` is `Box(0, 1, (n + h·c·r,), observation_dtype)`: 783 for the 2-player default.
PettingZoo's `state_test` passes.

## Actions (HLE move-uid order, docs/anchors.md §2.3)

| action id | move |
|---|---|
| `0 .. h-1` | discard the card in slot i (slot 0 = oldest card) |
| `h .. 2h-1` | play the card in slot i - h |
| `2h + (off-1)·c + colour` | reveal a colour to the player `off` seats ahead (off = 1..p-1) |
| `2h + (p-1)·c + (off-1)·r + rank` | reveal a rank to the player `off` seats ahead |

2-player default: 0-4 discard, 5-9 play, 10-14 reveal R Y G W B, 15-19 reveal rank 1-5.

## Rewards, ends, infos

* Every step, every agent receives the change in score. With strict scoring the step that loses
  the last life pays minus the score so far, so an episode's return is the final score.
* The game terminates at its real end (lives gone, all fireworks complete, or one more turn
  each after the deck ran out); it is never truncated.
* `infos[agent]` holds that seat's behaviour metrics so far in the current game —
  `communicativeness` (hints given / turns with a hint token available), `ipp` (mean attributes
  known about the cards it played, / 2), `risk_aversion` (mean P(playable) of its plays) — as
  floats in [0, 1], **`0.0` where undefined** (no hint opportunity / no play yet) with a flag
  `communicativeness_defined` / `ipp_defined` / `risk_aversion_defined` (bool) saying whether
  the metric is defined; the raw counts they come from (docs/rules.md §5); and `score` (int).
  Every value is a finite number (never `None` or NaN), so MARL libraries store `infos` as
  arrays (docs/marl.md §3; built by `hanabi_env.metrics.info_metrics`). The action mask is
  in the observation only (TorchRL refuses a mask that is both there and in `infos`).
* Illegal actions: `raw_env` raises `ValueError` naming the action and the legal ones (the
  state is unchanged); `env()` applies PettingZoo's `TerminateIllegalWrapper` (the game ends, -1
  for the mover). An action outside `[0, n_actions)` raises `ValueError` in `raw_env` and
  `ActionOutOfRange` in `env()` (a `ValueError` naming the range that is also the
  `AssertionError` hanabi_v5 raises; the state is unchanged). A non-integer action raises
  `TypeError` in both. Stepping an agent
  after the end follows PettingZoo's dead-step convention (`action=None`).
* After the end, the dead steps visit the agents in seat order, `player_0` first, whoever made
  the last move — as hanabi_v5 does (Shimmy selects `agents[0]` at a terminal state) — and
  `agent_selection` is `player_0` once every agent has been removed.

## Player view

`env.unwrapped.view(agent)` returns a read-only :class:`hanabi_env.PlayerView`: other hands,
every player's hint knowledge (never the viewer's own cards), fireworks, discards, tokens, deck
size, and the moves so far (`moves`, `moves_since_last_turn`). The observation vector is a pure
encoding of it (`view.encode()`). Rule-based policies decide from it.

## Attributes shared with hanabi_v5

Besides the AEC API, the unwrapped env has hanabi_v5's public attributes with the same types:
`legal_moves` (list of the legal action ids of `agent_selection`, `[]` after the end),
`all_moves` (`list(range(n_actions))`), `observation_vector_dim` (tuple, e.g. `(658,)`),
`required_keys` (the set of hanabi_v5's eight configuration keys), `metadata`, `render_mode`.
hanabi_v5's `hanabi_env` (its Shimmy/OpenSpiel backend) and `screen` (its pygame surface) have no
counterpart: the engine is `game` (a :class:`hanabi_env.HanabiGame`).

## Rendering

`"ansi"` returns the text board of `HanabiGame.render()`; `"human"` prints it after every step.
`"rgb_array"` returns an `(H, W, 3)` uint8 picture (about 560 x 570 pixels for 2 players) drawn
with Pillow by :func:`hanabi_env.render.render_rgb_array`: score, move count and the seat to
move; fireworks; information and life tokens; the deck; every hand face up with, under each card,
the colours and ranks its holder still considers plausible (attributes revealed by a hint
framed); the discard pile; the last move. Pictures are drawn only when `render()` is called.

## Creating the env by name

PettingZoo 1.27 has a Gymnasium-style registry (`pettingzoo.register`, `pettingzoo.make`,
`pettingzoo.spec`, `pettingzoo.pprint_registry`). `import hanabi_env` registers this env's
wrapped factory `env` in the AEC registry as **`hanabi_adhoc/hanabi_env-v2`** (the namespace is
the project; the name and version follow `metadata["name"]`, the way `classic/hanabi-v5` follows
`hanabi_v5`), so

    import hanabi_env, pettingzoo
    e = pettingzoo.make("aec", "hanabi_adhoc/hanabi_env-v2", players=3)

Only the current version is registered: asking for `hanabi_env-v1` raises PettingZoo's
`VersionNotFound` naming v2, and the unversioned `hanabi_adhoc/hanabi_env` resolves to v2.

Registering on import is the registry's conventional mechanism for third-party packages (it is
what Gymnasium documents for custom environments, and how e.g. `ale_py` registers its games);
PettingZoo 1.27 has no plugin entry points that would find the env without the import, and its
`pettingzoo.utils.all_modules.all_environments` is a fixed table of PettingZoo's own modules,
not an extension point. The side effect is small and contained: one entry under the project's
own namespace, a lazy `"module:function"` entry point, no override of an existing entry
(`classic/hanabi-v5` stays PettingZoo's), and no warning on re-import. `hanabi_env.register_envs()`
does the same explicitly (for example after the registry was cleared) and returns the ids.
There is no parallel-API entry (the game is turn-based; `is_parallelizable` is False, as in
hanabi_v5).

## Differences from hanabi_v5

* Fixed defects (docs/anchors.md §1): no premature truncation, `random_start_player` reflected
  in `agent_selection`, fresh terminal observations.
* Extra arguments `scoring`, `hand_order` and `observation_dtype` (`"float32"`/`"int8"` declare
  the true bounds `Box(0, 1)`; the default keeps hanabi_v5's space); `state()` with
  `state_space` (hanabi_v5 has neither).
* `infos` hold the behaviour metrics, their counts and `score`; hanabi_v5's `infos` hold only
  the action mask, which here is in the observation only (as in the other PettingZoo classic
  envs; with both, TorchRL's `PettingZooWrapper` fails).
* Rendering: hanabi_v5's `"human"` opens a pygame window and its `"rgb_array"` draws with pygame
  on every step; here `"human"` prints the text board, `"ansi"` is added, and `"rgb_array"` draws
  a different (Pillow) picture only when `render()` is called. No pygame is needed.
* No `hanabi_env` (OpenSpiel backend) or `screen` attribute (see above).
* Registry id `hanabi_adhoc/hanabi_env-v2` instead of `classic/hanabi-v5`.

## Version history

* v1 (0.1.0): first release: engine matching HLE rules, canonical observations bit-identical to
  OpenSpiel for all three observation types, strict/lenient scoring, behaviour metrics in
  `infos`, player views, ansi and rgb_array rendering, registration as
  `hanabi_adhoc/hanabi_env-v1`, hanabi_v5's `legal_moves`/`all_moves`/`observation_vector_dim`/
  `required_keys` and its post-game agent order. Fixes relative to PettingZoo hanabi_v5: no
  premature truncation (hanabi_v5 truncated most full-length games), `random_start_player`
  honoured in `agent_selection`, fresh terminal observations, `Box(0, 1, int8)` observation
  space, documented 3+-player action order.
* v2: runs unmodified under the MARL libraries (Tianshou, TorchRL, RLlib, AgileRL, SuperSuit;
  docs/marl.md) and shares saved models with hanabi_v5. Breaking changes, hence the new
  version and registry id `hanabi_adhoc/hanabi_env-v2`: the observation is float64 in
  hanabi_v5's `Box(-inf, inf)` by default (`observation_dtype="int8"` gives v1's space and
  arrays); undefined metrics in `infos` are `0.0` with a `<metric>_defined` flag instead of
  `None`; `infos` no longer repeat the action mask; `state()` is the seat-to-move's observation
  plus its own hand (v1: its seer observation), with a `state_space`.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from hanabi_env import spaces as hs
from hanabi_env.config import HanabiConfig
from hanabi_env.game import HanabiGame, PlayerView
from hanabi_env.validate import check_choice, check_mapping, check_seed, is_int, type_error

__all__ = ["ENV_ID", "ActionOutOfRange", "env", "raw_env", "register_envs"]

ENV_ID = "hanabi_adhoc/hanabi_env-v2"
"""The id of :func:`env` in PettingZoo's AEC registry (see "Creating the env by name")."""


def _forward(name: str, guarded: bool) -> property:
    """A property reading/writing ``name`` on the unwrapped env in one hop.

    PettingZoo's ``BaseWrapper.__getattr__`` resolves every attribute layer by layer (about 50
    look-ups per step through three wrappers); these properties give the same values directly.
    With ``guarded``, access before ``reset`` raises like ``OrderEnforcingWrapper`` does.
    """

    def fget(self):
        if guarded and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.unwrapped, name)

    def fset(self, value):
        setattr(self.unwrapped, name, value)

    return property(fget, fset, doc=f"``{name}`` of the unwrapped env.")


_HOT = ("agent_selection", "terminations", "truncations", "infos", "rewards", "agents")


class _FastForward:
    """Mixin: one-hop access to the AEC attributes read on every step."""

    possible_agents = _forward("possible_agents", guarded=False)
    _cumulative_rewards = _forward("_cumulative_rewards", guarded=False)


for _name in _HOT:
    setattr(_FastForward, _name, _forward(_name, guarded=False))


class TerminateIllegal(_FastForward, wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` with one-hop attribute access."""


class ActionOutOfRange(ValueError, AssertionError):
    """An action outside the action space given to ``env()``.

    A ``ValueError`` naming the range, and an ``AssertionError`` too, so that code written for
    hanabi_v5 (whose ``AssertOutOfBoundsWrapper`` asserts) still catches it.
    """


class CheckedActionWrapper(_FastForward, wrappers.AssertOutOfBoundsWrapper):
    """``AssertOutOfBoundsWrapper`` that first raises ``TypeError`` for a non-integer action.

    Folding the type check into the bounds wrapper keeps ``env()`` at hanabi_v5's three wrapper
    layers.
    """

    def step(self, action) -> None:
        """Check the action's type and bounds (live agents only), then step.

        Raises:
            TypeError: A non-integer action.
            ActionOutOfRange: (a ``ValueError`` and, as hanabi_v5's bare assertion, an
                ``AssertionError``) an int outside ``[0, n_actions)``; the state is unchanged.
        """
        agent = self.agent_selection
        live = not (self.terminations.get(agent, False) or self.truncations.get(agent, False))
        if live and not is_int(action):
            raise type_error("action", "an int", action)
        if live:
            n = int(self.action_space(agent).n)
            if not 0 <= int(action) < n:
                raise ActionOutOfRange(
                    f"action={int(action)} is out of range; allowed: [0, {n - 1}] (the "
                    "legal ones are in the observation's action_mask)"
                )
        super().step(action)


class OrderEnforcing(_FastForward, wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with one-hop attribute access.

    The same checks, except that calls before ``reset`` raise ``RuntimeError`` (as ``raw_env``
    does) instead of PettingZoo's ``AssertionError``.
    """

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise RuntimeError(f"call reset() before {what}")

    def step(self, action) -> None:
        """``OrderEnforcingWrapper.step`` (``RuntimeError`` before reset)."""
        self._require_reset("step()")
        super().step(action)

    def observe(self, agent):
        """``OrderEnforcingWrapper.observe`` (``RuntimeError`` before reset)."""
        self._require_reset("observe()")
        return super().observe(agent)

    def state(self) -> np.ndarray:
        """``OrderEnforcingWrapper.state`` (``RuntimeError`` before reset)."""
        self._require_reset("state()")
        return super().state()

    def render(self):
        """``OrderEnforcingWrapper.render`` (``RuntimeError`` before reset)."""
        self._require_reset("render()")
        return super().render()

    def agent_iter(self, max_iter: int = 2**63):
        """``OrderEnforcingWrapper.agent_iter`` (``RuntimeError`` before reset)."""
        self._require_reset("agent_iter()")
        return super().agent_iter(max_iter)


for _name in _HOT:
    setattr(OrderEnforcing, _name, _forward(_name, guarded=True))


def env(**kwargs) -> AECEnv:
    """Hanabi with PettingZoo's standard wrappers, like ``hanabi_v5.env()``.

    ``raw_env(**kwargs)`` wrapped by ``TerminateIllegalWrapper(illegal_reward=-1)`` ->
    ``AssertOutOfBoundsWrapper`` (plus ``TypeError`` for non-integer actions) ->
    ``OrderEnforcingWrapper``. The three are subclasses of PettingZoo's wrappers that only add
    one-hop access to the attributes read on every step (:func:`_forward`).

    The full user documentation (the module docstring of ``hanabi_env.env``) follows.
    """
    e = raw_env(**kwargs)
    e = TerminateIllegal(e, illegal_reward=-1)
    e = CheckedActionWrapper(e)
    return OrderEnforcing(e)


def register_envs() -> list[str]:
    """Register :func:`env` in PettingZoo's AEC registry as :data:`ENV_ID`; return the ids.

    ``import hanabi_env`` calls it (see "Creating the env by name" in the module docstring). An
    id that is already registered is left alone, so repeated calls neither warn nor override.
    With a PettingZoo release that has no registry (before 1.27) it does nothing and returns
    ``[]``.
    """
    import pettingzoo

    registry = getattr(pettingzoo, "aec_registry", None)
    if registry is None:  # a PettingZoo release without a registry: nothing to register in
        return []
    if ENV_ID not in registry:
        pettingzoo.register("aec", ENV_ID, entry_point="hanabi_env.env:env")
    return [ENV_ID]


class raw_env(AECEnv, EzPickle):
    """Hanabi as a PettingZoo AEC environment (see the module docstring for the full doc).

    Args:
        colors: As PettingZoo ``hanabi_v5`` (docs/anchors.md §1), and so are ``ranks``,
            ``players``, ``hand_size``, ``max_information_tokens``, ``max_life_tokens``,
            ``observation_type`` and ``random_start_player``.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        scoring: ``"strict"`` (default) or ``"lenient"``.
        hand_order: ``"shift"`` (default, HLE/hanabi_v5) or ``"fixed"`` (the papers' Java
            framework: a drawn card takes the vacated slot; :class:`hanabi_env.HanabiConfig`).
        observation_dtype: ``"float64"`` (default, hanabi_v5's ``Box(-inf, inf, float64)``),
            ``"float32"`` or ``"int8"`` (``Box(0, 1)``); :mod:`hanabi_env.spaces`.

    Attributes:
        state_space: ``Box(0, 1, (n + h·c·r,), observation dtype)``, the space of
            :meth:`state` (the observation of the seat to move followed by its own hand).

    Raises:
        ValueError: A parameter is out of range (the message names it and the allowed range).
        TypeError: A parameter has the wrong type.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo convention (class-level dict)
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "hanabi_env_v2",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    #: hanabi_v5's configuration keys (its ``raw_env.required_keys``, same value and type).
    required_keys: set = {  # noqa: RUF012 - hanabi_v5 declares the same class-level set
        "colors",
        "ranks",
        "players",
        "hand_size",
        "max_information_tokens",
        "max_life_tokens",
        "observation_type",
        "random_start_player",
    }

    def __init__(
        self,
        colors: int = 5,
        ranks: int = 5,
        players: int = 2,
        hand_size: int = 5,
        max_information_tokens: int = 8,
        max_life_tokens: int = 3,
        observation_type: str = "card_knowledge",
        random_start_player: bool = False,
        render_mode: str | None = None,
        scoring: str = "strict",
        hand_order: str = "shift",
        observation_dtype: str = hs.DEFAULT_OBSERVATION_DTYPE,
    ):
        """Validate the configuration and build spaces (see the class docstring)."""
        game_kwargs: dict[str, Any] = {
            "colors": colors,
            "ranks": ranks,
            "players": players,
            "hand_size": hand_size,
            "max_information_tokens": max_information_tokens,
            "max_life_tokens": max_life_tokens,
            "observation_type": observation_type,
            "random_start_player": random_start_player,
            "scoring": scoring,
            "hand_order": hand_order,
        }
        EzPickle.__init__(
            self, render_mode=render_mode, observation_dtype=observation_dtype, **game_kwargs
        )
        super().__init__()
        self.config = HanabiConfig(**game_kwargs)
        self.observation_dtype = hs.check_observation_dtype(observation_dtype)
        self._obs_dtype = hs.numpy_dtype(observation_dtype)
        if render_mode is not None and not isinstance(render_mode, str):
            raise type_error("render_mode", "None or a str", render_mode)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not allowed; allowed: None, "
                + ", ".join(repr(m) for m in self.metadata["render_modes"])
            )
        self.render_mode = render_mode
        self.game = HanabiGame(self.config)
        self._closed = False
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions = self.game.n_actions
        obs_space = spaces.Dict(
            {
                "observation": hs.observation_space(self.game.observation_size, observation_dtype),
                "action_mask": hs.action_mask_space(n_actions),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(n_actions) for a in self.possible_agents}
        c = self.config
        self._hand_bits = c.hand_size * c.colors * c.ranks  # the own-hand part of state()
        self.state_space = hs.state_space(
            self.game.observation_size + self._hand_bits, observation_dtype
        )
        self._np_random: np.random.Generator | None = None
        self._zero_mask = np.zeros(n_actions, dtype=np.int8)
        self._mask = np.zeros(n_actions, dtype=np.int8)  # legal moves of the seat to move

    # --- hanabi_v5's extra public attributes -------------------------------------------------
    @property
    def observation_vector_dim(self) -> tuple[int, ...]:
        """Shape of the observation vector, e.g. ``(658,)`` (as hanabi_v5)."""
        return (self.game.observation_size,)

    @property
    def legal_moves(self) -> list[int]:
        """Legal action ids of ``agent_selection`` (``[]`` once it is done), as hanabi_v5."""
        agent = self.agent_selection
        if self.terminations.get(agent, True) or self.truncations.get(agent, True):
            return []
        return [int(a) for a in self.game.legal_actions()]

    @property
    def all_moves(self) -> list[int]:
        """Every action id, ``list(range(n_actions))`` (as hanabi_v5)."""
        return list(range(self.game.n_actions))

    def observation_space(self, agent: str) -> spaces.Space:
        """The (cached) observation space of ``agent``."""
        return self.observation_spaces[self._check_agent(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        """The (cached) action space of ``agent``."""
        return self.action_spaces[self._check_agent(agent)]

    def _check_agent(self, agent: object) -> str:
        """``agent`` if it is one of ``possible_agents`` (TypeError/ValueError naming it)."""
        if not isinstance(agent, str) or agent not in self._agent_index:
            check_choice("agent", agent, self.possible_agents)
        return agent  # type: ignore[return-value]

    def _require_reset(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(f"the env was closed: call reset() before {what}")
        if not self.game.is_dealt:
            raise RuntimeError(f"call reset() before {what}")

    # ----------------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game.

        Args:
            seed: Seeds the env's generator; each reset draws its deal seed from it, so a seeded
                reset followed by unseeded ones is reproducible.
            options: Optional dict: ``"deal_seed"`` (int in ``[0, 2**62)``) deals that game
                directly; ``"deck"`` (card ids ``colour * ranks + rank`` in draw order, a
                permutation of the deck) scripts the deal (not together with ``"deal_seed"``);
                ``"start_player"`` (int seat, or None) sets the first seat. Other keys are
                ignored (PettingZoo's tests pass some).

        Every argument is checked before anything changes: a call that raises leaves the env
        (its game and its generator) as it was.

        Raises:
            TypeError: ``seed``, ``options`` or an option has the wrong type.
            ValueError: ``seed`` or ``deal_seed`` out of ``[0, 2**62)``, a bad deck or start
                player, or both ``deck`` and ``deal_seed``.
        """
        seed = check_seed("seed", seed, allow_none=True)
        options = check_mapping("options", options)
        if "deck" in options and options.get("deal_seed") is not None:
            raise ValueError(
                "options={'deck': ..., 'deal_seed': ...} is not allowed; allowed: either "
                "'deck' or 'deal_seed'"
            )
        deal_seed = check_seed("options['deal_seed']", options.get("deal_seed"), allow_none=True)
        start = options.get("start_player")  # checked by the game before anything changes
        if seed is not None or self._np_random is None:
            rng, saved = np.random.default_rng(seed), None
        else:
            rng, saved = self._np_random, self._np_random.bit_generator.state
        drawn = int(rng.integers(0, 2**62))
        try:
            if "deck" in options:
                self.game.reset_with_deck(options["deck"], 0 if start is None else start)
            else:
                self.game.reset(drawn if deal_seed is None else deal_seed, start_player=start)
        except Exception:
            if saved is not None:
                rng.bit_generator.state = saved
            raise
        self._np_random = rng
        self._closed = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._update_infos()

    def _update_infos(self) -> None:
        """Rebuild every seat's info (on reset)."""
        self.game.legal_mask(out=self._mask)
        score = self.game.score
        self.infos = {}
        for a in self.agents:
            info = self.game.metrics(self._agent_index[a])
            info["score"] = score
            self.infos[a] = info

    def _refresh_infos(self, mover: str) -> None:
        """After a step: new metrics for the mover, the new score for everyone.

        Only the mover's counters change on a move, so the other seats' metrics are reused.
        Every seat gets a new dict: infos handed out earlier are never mutated.
        """
        score = self.game.score
        infos = {}
        for a in self.agents:
            if a == mover:
                info = self.game.metrics(self._agent_index[a])
            else:
                info = dict(self.infos[a])
            info["score"] = score
            infos[a] = info
        self.infos = infos

    def step(self, action) -> None:
        """Apply ``action`` for ``agent_selection`` (see the module docstring for errors)."""
        self._require_reset("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if not is_int(action):
            raise type_error("action", "an int", action)
        action = int(action)
        ok, points = self.game.try_step(action, self._mask)
        if not ok:
            n = self.game.n_actions
            where = (
                f" ({self.game.action_to_string(action)})"
                if 0 <= action < n
                else f" (out of range [0, {n - 1}])"
            )
            legal = self.game.legal_actions().tolist()
            raise ValueError(
                f"action {action} is illegal for {agent}{where}; legal actions: {legal}"
            )
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, float(points))
        if self.game.is_terminal:
            self.terminations = dict.fromkeys(self.agents, True)
            # dead steps in seat order, player_0 first, as hanabi_v5 (Shimmy picks agents[0])
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        self._accumulate_rewards()
        self._refresh_infos(agent)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict:
        """``{"observation": (n,) observation_dtype, "action_mask": int8 (n_actions,)}``."""
        self._require_reset("observe()")
        i = self._agent_index[self._check_agent(agent)]
        obs = self.game.observation(i).astype(self._obs_dtype, copy=False)
        if i == self.game.current_player and not self.game.is_terminal:
            mask = self.game.legal_mask()  # from the live state, never a cached one
        else:
            mask = self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def view(self, agent: str, seer: bool = False) -> PlayerView:
        """Read-only :class:`PlayerView` of ``agent`` (never its own cards unless ``seer``)."""
        self._require_reset("view()")
        return self.game.view(self._agent_index[self._check_agent(agent)], seer=seer)

    def render(self) -> str | np.ndarray | None:
        """Draw the board for the render mode.

        ``"ansi"`` returns the text board, ``"human"`` prints it (returns ``None``),
        ``"rgb_array"`` returns an ``(H, W, 3)`` uint8 picture
        (:func:`hanabi_env.render.render_rgb_array`).
        """
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        self._require_reset("render()")
        if self.render_mode == "rgb_array":
            from hanabi_env.render import render_rgb_array

            return render_rgb_array(self.game)
        text = self.game.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """End the env's game: ``step``/``observe``/``view``/``render`` raise until ``reset``.

        Nothing else is released (the env holds no window or process); ``reset`` deals again.
        """
        self._closed = True

    def state(self) -> np.ndarray:
        """The global state: what the seat to move sees, followed by its own hand.

        The observation of the seat to move (this env's ``observation_type``), then its own
        cards one-hot per slot, ``colour * ranks + rank`` (empty slots zero), the encoding of
        the observation's "other hands" section: everything the seat sees plus the one thing it
        cannot, as MAPPO's agent-specific global state for Hanabi (docs/marl.md §4).
        After the game ends, the seat that would move next.

        Returns:
            ``(n + hand_size·colors·ranks,)`` 0/1 vector in the observation dtype (783 for
            the 2-player default), in :attr:`state_space`.
        """
        self._require_reset("state()")
        seat = self.game.current_player
        hand = np.zeros(self._hand_bits, dtype=np.int8)
        cards = self.game.view(seat, seer=True).hands[seat]
        width = self.config.colors * self.config.ranks
        for k, card in enumerate(cards.tolist()):
            if card >= 0:
                hand[k * width + card] = 1
        vec = np.concatenate([self.game.observation(seat), hand])
        return vec.astype(self._obs_dtype, copy=False)


# `import hanabi_env.env as m` binds the function `env` (the package re-exports it under the
# submodule's name), so the function's docstring carries the module's user documentation too.
env.__doc__ = f"{inspect.cleandoc(env.__doc__ or '')}\n\n{__doc__}"
