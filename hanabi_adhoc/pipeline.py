"""Moved to :mod:`hanabi_adhoc.study.pipeline`; this path is removed in 0.4.0.

Importing ``hanabi_adhoc.pipeline`` warns once (a ``DeprecationWarning``) and gives the module
``hanabi_adhoc.study.pipeline`` itself, so every name of it (and a patch of one) is the same object.
"""

from __future__ import annotations

import sys
import warnings

from hanabi_adhoc.study import pipeline as moved

warnings.warn(
    "hanabi_adhoc.pipeline moved to hanabi_adhoc.study.pipeline; the old path goes in 0.4",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = moved
