"""Rule-based Hanabi agents, the policy protocol and their evaluation.

* :class:`Policy` — the protocol every agent of the project follows (decide from a
  :class:`hanabi_env.PlayerView`, reset between games).
* :class:`RuleAgent` and :func:`make` — the 105-rule alphabet (docs/rules.md §1) as compiled
  kernels, chromosomes, and the baseline test pool (IGGI, Internal, Outer, LegalRandom, VanDenBergh,
  Flawed, Piers; plus Cautious).
* :func:`play`, :func:`play_games`, :func:`evaluate` — games in compiled code, and [CIG18]'s
  mirror/mixed evaluation (docs/papers.md §2).
* Two rulesets (docs/rules.md §12): ``"corrected"`` (the default) and ``"reference"``, the
  papers' Java agents bug for bug (:mod:`agents.reference`; ``RuleAgent(..., ruleset=)``,
  ``make(name, ruleset=, preset="cig18")``, ``evaluate(..., ruleset=, preset=)``); a
  reference agent may end the game as the Java reference did (:class:`ReferenceGameEnd`).
* :class:`AgentFault` — a policy's own error (it raised, returned anything but a legal move
  id, or ran past the per-move time limit), naming the agent, the game and the move
  (:mod:`agents.faults`, docs/reliability.md §9).
* :mod:`agents.beliefs` — own/partner-perspective probabilities and [BAD19]'s V0/V1 beliefs.
* :mod:`agents.human` — a person at the terminal as a policy, the board drawn from a view, and
  view helpers (``legal_actions``, ``action_uid``, ``describe_action``).
* :mod:`agents.sb3` — Stable-Baselines3 partners (``pip install ".[rl]"``; imported on demand):
  a single-agent Gymnasium env against a partner pool, ``SB3Policy``, training helpers.
  Importing ``agents`` registers that env as ``gymnasium.make("hanabi_adhoc/HanabiPartner-v0")``.
* :mod:`agents.bad` — the Bayesian Action Decoder [BAD19] (docs/bad.md): its matrix game,
  training on HLE's small presets (``pip install ".[bad]"``), and trained agents as policies
  (``make("bad:small")``); imported on demand.
"""

from agents.evaluate import (
    EvaluationProtocol,
    EvaluationResult,
    GameBatch,
    evaluate,
    game_seeds,
    play,
    play_games,
)
from agents.faults import DEFAULT_MOVE_TIME_LIMIT, AgentFault
from agents.policy import (
    Policy,
    ReferenceGameEnd,
    RuleAgent,
    end_game,
    make_baseline,
    rule_ids,
)
from agents.published import data_path, published_chromosomes
from agents.registry import make
from agents.rulebase import ALPHABET, BASELINES, N_ALPHABET, TEST_POOL

PARTNER_ENV_ID = "hanabi_adhoc/HanabiPartner-v0"
"""Gymnasium id of :class:`agents.sb3.HanabiPartnerEnv` ("Creating it by name" in
:mod:`agents.sb3.env`)."""


def register_envs() -> list[str]:
    """Register :class:`agents.sb3.HanabiPartnerEnv` in Gymnasium's registry as
    :data:`PARTNER_ENV_ID`, with a lazy entry point (``agents.sb3`` is not imported).

    ``import agents`` calls it. An id already registered is left alone (no override warning).

    Returns:
        The registered ids, ``[PARTNER_ENV_ID]``.
    """  # noqa: D205 - the summary names both ends of the registration
    import gymnasium

    if PARTNER_ENV_ID not in gymnasium.registry:
        gymnasium.register(PARTNER_ENV_ID, entry_point="agents.sb3.env:HanabiPartnerEnv")
    return [PARTNER_ENV_ID]


register_envs()

__all__ = [
    "ALPHABET",
    "BASELINES",
    "DEFAULT_MOVE_TIME_LIMIT",
    "N_ALPHABET",
    "PARTNER_ENV_ID",
    "TEST_POOL",
    "AgentFault",
    "EvaluationProtocol",
    "EvaluationResult",
    "GameBatch",
    "Policy",
    "ReferenceGameEnd",
    "RuleAgent",
    "data_path",
    "end_game",
    "evaluate",
    "game_seeds",
    "make",
    "make_baseline",
    "play",
    "play_games",
    "published_chromosomes",
    "register_envs",
    "rule_ids",
]
