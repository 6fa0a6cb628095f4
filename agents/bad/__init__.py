"""The Bayesian Action Decoder of [BAD19] (docs/bad.md).

* :mod:`agents.bad.matrix` — the two-step matrix game (Section 4.1): payoffs, optimal and safe
  values (NumPy).
* :mod:`agents.bad.matrix_train` — BAD with and without counterfactual gradients and the policy
  gradient on that game, and the reproduction of Figure 3 (torch).

Importing this package imports neither torch nor matplotlib; the modules that need torch
import it themselves (the ``rl`` extra installs it).
"""
