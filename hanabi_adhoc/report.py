"""Moved to :mod:`hanabi_adhoc.study.report`; this path is removed in 0.4.0.

Importing ``hanabi_adhoc.report`` warns once and gives the module ``hanabi_adhoc.study.report``
itself.
"""

from hanabi_env.deprecation import moved_module

moved_module(__name__, "hanabi_adhoc.study.report", "0.4")
