"""The Bayesian Action Decoder of [BAD19] (docs/bad.md).

* :mod:`agents.bad.matrix` — the two-step matrix game (Section 4.1): payoffs, optimal and safe
  values (NumPy); :mod:`agents.bad.matrix_train` — BAD with and without counterfactual
  gradients and the policy gradient on it, and the reproduction of Figure 3 (torch).
* :mod:`agents.bad.public` — the public state of 2-player games, tracked from move records;
  :mod:`agents.bad.belief` — the V0/V1/V2 public beliefs and the counterfactual update over
  partial policies; :mod:`agents.bad.runner` — decisions and games for a batch;
  :mod:`agents.bad.net` — the network (NumPy to play, torch to train).
* :mod:`agents.bad.train` and :mod:`agents.bad.study` — actor-critic training of BAD and of an
  independent baseline on HLE's small presets, over seeds (torch).
* :mod:`agents.bad.policy` — a trained agent as a :class:`agents.policy.Policy` (``bad:NAME``
  in :mod:`agents.registry`), loaded from NPZ + JSON without running code or importing torch.

Importing this package imports neither torch nor matplotlib; the modules that need torch
(``matrix_train``, ``train``, ``study``) import it themselves (the ``bad`` extra installs it).
"""
