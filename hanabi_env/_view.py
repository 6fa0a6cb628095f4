"""Renamed :mod:`hanabi_env.view` (public by name since 0.3.0); this path is removed in 0.4.0.

Importing ``hanabi_env._view`` warns once and gives the module ``hanabi_env.view`` itself.
"""

from hanabi_env.deprecation import moved_module

moved_module(__name__, "hanabi_env.view", "0.4")
