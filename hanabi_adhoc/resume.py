"""Moved to :mod:`hanabi_adhoc.study.resume`; this path is removed in 0.4.0.

Importing ``hanabi_adhoc.resume`` warns once (a ``DeprecationWarning``) and gives the module
``hanabi_adhoc.study.resume`` itself, so every name of it (and a patch of one) is the same object.
"""

from __future__ import annotations

import sys
import warnings

from hanabi_adhoc.study import resume as moved

warnings.warn(
    "hanabi_adhoc.resume moved to hanabi_adhoc.study.resume; the old path goes in 0.4",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = moved
