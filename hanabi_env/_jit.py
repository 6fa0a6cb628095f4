"""Renamed :mod:`hanabi_env.jit` (public by name since 0.3.0); this path is removed in 0.4.0.

Importing ``hanabi_env._jit`` warns once and gives the module ``hanabi_env.jit`` itself.
"""

from hanabi_env.deprecation import moved_module

moved_module(__name__, "hanabi_env.jit", "0.4")
