"""One learning seat against a rule-agent pool, ``num_envs`` games in compiled kernels, for SB3.

:class:`HanabiPoolVecEnv` is the batched twin of :class:`agents.sb3.HanabiPartnerEnv` (same
protocol: the learner sits in a uniformly random seat, every other seat is a copy of one
partner drawn uniformly from the pool at each deal, and the reward of a learner move is the
score change until the learner's next turn, the partners' moves included) built on the lockstep
machinery of :mod:`agents.lockstep`: the partners are rule agents that act inside the kernel
(:func:`agents.lockstep.advance_rules`), so a step of all games is a few kernel calls with no
Python per game or move. It is an SB3 ``VecEnv`` (``env_method("action_masks")`` for
sb3-contrib's ``MaskablePPO``), like :class:`agents.sb3.vec_env.HanabiSB3VecEnv` for
self-play; a game that ends is dealt anew in the same step (SB3's convention, its last
observation in ``infos[i]["terminal_observation"]``, its ``score``, ``seat`` and ``partner``
in ``infos[i]``).

Seeds: deal, seat, partner and partner seeds of every deal come from one generator seeded by
``seed`` (``numpy.random.default_rng``), drawn game by game in index order, so a run depends on
``seed`` and ``num_envs`` only.

It imports ``stable_baselines3`` (the ``rl`` extra); ``torch`` is never imported here.

Source: [CIG18]'s mixed protocol (partners copied in every other seat; docs/papers.md §2) and
SB3's ``VecEnv`` API (https://stable-baselines3.readthedocs.io/en/master/guide/vec_envs.html).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

from agents import rules as R
from agents.lockstep import advance_rules, seed_seats
from agents.policy import RuleAgent
from agents.registry import make
from agents.rule_games import rule_table
from agents.rules import reference as RR
from agents.sb3.vec_env import GamesVecEnv
from hanabi_env import batch as B
from hanabi_env import engine as E
from hanabi_env import view as V
from hanabi_env.config import HanabiConfig
from hanabi_env.seeding import SEED_LIMIT
from hanabi_env.validate import check_int, check_seed

__all__ = ["HanabiPoolVecEnv"]


class HanabiPoolVecEnv(GamesVecEnv):
    """A learner against rule-agent partners in ``num_envs`` games (see the module docstring).

    Args:
        num_envs: Games stepped together, >= 1.
        partners: The pool: rule agents or agent specs naming rule agents (``"piers"``,
            ``"3,17,4"``).
        seed: Seed of the deals, seats, partners and partner seeds.
        observation_type: ``"card_knowledge"`` (default) or ``"minimal"``.
        **config: :class:`hanabi_env.HanabiConfig` fields (``players``, ``scoring``,
            ``hand_size``, ...; default 2 players).

    Raises:
        TypeError: A partner that is not a rule agent.
        ValueError: An empty pool, a bad ``num_envs``, ``seed`` or configuration.
    """

    def __init__(
        self,
        num_envs: int,
        partners: Sequence[RuleAgent | str],
        seed: int = 0,
        observation_type: str = "card_knowledge",
        **config: Any,
    ):
        """See the class docstring."""
        n = check_int("num_envs", num_envs, 1)
        pool: list[RuleAgent] = []
        for p in partners:
            agent = make(p) if isinstance(p, str) else p
            if not isinstance(agent, RuleAgent):
                raise TypeError(f"partners must be rule agents, got {type(agent).__name__}")
            pool.append(agent)
        if not pool:
            raise ValueError("partners must name at least one rule agent")
        self.config = HanabiConfig(**config)
        self.partner_names = [p.name for p in pool]
        lists = [np.zeros(1, np.int64)] + [p.rules for p in pool]  # 0: the learner
        modes = [RR.MODE_FALLBACK] + [p.mode for p in pool]
        self._table, self._lens, self._modes = rule_table(lists, modes)
        self._is_rule = np.array([0] + [1] * len(pool), dtype=np.int64)
        self._obs_type = V.OBSERVATION_TYPES[observation_type]
        self._b = B.new_batch(self.config, n)
        cfg = self._b.cfg
        self._size = V.observation_size(cfg, self._obs_type)
        self._mask1 = np.zeros(int(cfg[E.CFG_N_ACTIONS]), dtype=np.int8)
        self._tab = np.zeros(R.scratch_shape(cfg), dtype=np.int64)
        players = self.config.players
        self._rngs = np.zeros((n, players, 4), dtype=np.int64)
        self._seat_agents = np.zeros((n, players), dtype=np.int64)
        self._seat = np.zeros(n, dtype=np.int64)
        self._partner = np.zeros(n, dtype=np.int64)
        self._all = np.arange(n, dtype=np.int64)
        self._obs = np.zeros((n, self._size), dtype=np.float32)
        self._masks = np.zeros((n, int(cfg[E.CFG_N_ACTIONS])), dtype=np.int8)
        self._gen = np.random.default_rng(check_seed("seed", seed))
        self.render_mode = None
        super().__init__(
            n,
            spaces.Box(0, 1, (self._size,), np.float32),
            spaces.Discrete(int(cfg[E.CFG_N_ACTIONS])),
        )

    def _score(self) -> np.ndarray:
        return self._b.scores().astype(np.float32)

    def _advance(self, games: np.ndarray) -> None:
        """Partners play games ``games`` until the learner's turn or the game's end."""
        waiting = np.zeros(len(games), dtype=np.int64)
        advance_rules(
            self._b, games, self._mask1, self._tab, self._rngs, self._table, self._lens,
            self._modes, self._is_rule, self._seat_agents, np.zeros((0, 0), np.int16), waiting,
        )  # fmt: skip

    def _deal(self, games: np.ndarray) -> None:
        """Deal games ``games`` anew: seeds, learner seat and partner from the generator."""
        k, players = len(games), self.config.players
        draws = self._gen.integers(0, SEED_LIMIT, (k, 1 + players), dtype=np.int64)
        self._seat[games] = self._gen.integers(0, players, k)
        self._partner[games] = self._gen.integers(0, len(self.partner_names), k)
        self._seat_agents[games] = 1 + self._partner[games, None]
        self._seat_agents[games, self._seat[games]] = 0
        B.reset_games(self._b, games, np.ascontiguousarray(draws[:, 0]), False)
        rngs = np.zeros((k, players, 4), dtype=np.int64)
        seed_seats(rngs, np.ascontiguousarray(draws[:, 1:]))
        self._rngs[games] = rngs
        self._advance(games)

    def _observe(self) -> np.ndarray:
        B.observe_games(self._b, self._all, self._seat, self._obs_type, self._obs, self._masks)
        return self._obs.copy()

    def reset(self) -> np.ndarray:
        """Deal every game; the learners' observations."""
        self._deal(self._all)
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        """Store the learners' moves (one move uid per game)."""
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        """The learners' moves, then the partners' until each learner's next turn."""
        before = self._score()
        bad = B.apply_actions(self._b, self._all, self._actions, np.zeros(self.num_envs))
        if bad >= 0:
            legal = np.flatnonzero(self._masks[bad]).tolist()
            raise ValueError(
                f"illegal move {int(self._actions[bad])} in game {bad}; legal: {legal}"
            )
        live = np.flatnonzero(self._b.scal[:, E.S_DONE] == 0).astype(np.int64)
        self._advance(live)
        score = self._score()
        rewards = score - before
        dones = self._b.scal[:, E.S_DONE] != 0
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones).astype(np.int64)
        if len(ended):
            final = np.zeros((len(ended), self._size), dtype=np.float32)
            B.observe_games(self._b, ended, self._seat[ended], self._obs_type, final,
                            np.zeros((len(ended), self._masks.shape[1]), np.int8))  # fmt: skip
            for j, g in enumerate(ended.tolist()):
                infos[g] = {
                    "terminal_observation": final[j],
                    "TimeLimit.truncated": False,
                    "score": int(score[g]),
                    "seat": int(self._seat[g]),
                    "partner": self.partner_names[int(self._partner[g])],
                }
            self._deal(ended)
        return self._observe(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``(num_envs, n_actions)`` bool legal moves of each game's learner."""
        return self._masks.astype(bool)

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """``attr_name`` for each game (the env's own attribute)."""
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def seed(self, seed: int | None = None) -> list[int | None]:
        """Re-seed the generator of the deals (applies from the next deal)."""
        if seed is not None:
            self._gen = np.random.default_rng(check_seed("seed", seed))
        return [seed for _ in range(self.num_envs)]
