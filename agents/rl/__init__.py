"""Trained reinforcement-learning partners, shipped with the package and loaded without torch.

* :class:`RLPartner` (:mod:`agents.rl.partners`) — a trained network as a
  :class:`~agents.batch.BatchPolicy` that runs in plain numpy: one forward pass for every game
  waiting for it, so pools of rule agents and RL partners play in lockstep
  (:mod:`agents.lockstep`).
* The shipped partners, ``agents/data/rl_partners/NAME.npz`` + ``NAME.json`` (weights read with
  ``allow_pickle=False``, so no trust flag): :func:`partner_names`, :func:`partner_specs`
  (``["rl:NAME", ...]`` for pools and benchmark suites), :func:`partner_config`,
  :func:`load_partner`, :func:`load_partners` (``"all"`` or ``"a,b"``). The agent spec
  ``rl:NAME`` (``agents.make("rl:NAME")``, ``hanabi-adhoc play human rl:NAME``) loads one;
  ``rl:PATH.json`` loads a partner you exported.
* :func:`export_partner` (:mod:`agents.rl.export`; needs torch) — write a trained
  Stable-Baselines3 ``MlpPolicy`` in that format; :func:`move_agreement` checks the export
  against the model.
* :func:`finetune` (:mod:`agents.rl.finetune`; needs torch) — PPO fine-tuning of a cloned (or
  any exported) network in self-play or with a pool, with a teacher regulariser and Other-Play
  colour permutations (:mod:`agents.rl.other_play`) as options; PPO's settings as one checked
  object, :class:`PPOSettings`; docs/finetuning.md.

What each shipped partner is, how it was trained, its self-play score and its cross-play with
the others: docs/rl_partners.md. Training one yourself: docs/tutorials/rl-partner.md.
"""

from agents.rl.export import export_partner, move_agreement
from agents.rl.finetune import FinetuneResult, PPOSettings, finetune
from agents.rl.partners import (
    PARTNER_DIR,
    RecurrentPartner,
    RLPartner,
    from_spec,
    load_partner,
    load_partners,
    partner_config,
    partner_names,
    partner_specs,
)

__all__ = [
    "PARTNER_DIR",
    "FinetuneResult",
    "PPOSettings",
    "RLPartner",
    "RecurrentPartner",
    "export_partner",
    "finetune",
    "from_spec",
    "load_partner",
    "load_partners",
    "move_agreement",
    "partner_config",
    "partner_names",
    "partner_specs",
]
