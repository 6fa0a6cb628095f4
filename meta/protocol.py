"""The settings of a meta-agent evaluation, checked once (:class:`MetaProtocol`).

:func:`meta.evaluate.evaluate_meta` takes them as one object (``protocol=``) or as its old
keywords, which build one; both of its paths (the Python one and the compiled one,
:func:`meta.compiled.evaluate_compiled`) take the object and trust it (docs/architecture.md §5).
Also importable from :mod:`meta.evaluate`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hanabi_env import validate
from meta.bayes import VARIANTS
from meta.response import EMPTY_NICHE
from meta.variants import ALL_VARIANTS

__all__ = ["MetaProtocol"]


@dataclass(frozen=True)
class MetaProtocol:
    """How a meta-agent evaluation plays ([Bayes21] protocol, docs/papers.md §4.2).

    Every field is checked when the object is made (``__post_init__``), and stored in its plain
    type; the evaluation's inner functions trust them.

    Attributes:
        variants: Variants to evaluate (a non-empty subset of
            :data:`meta.variants.ALL_VARIANTS`, each once; a tuple).
        episodes: Episodes per partner and variant, k >= 1 (200 in [Bayes21]).
        games: Games per episode, g >= 1 (10 in [Bayes21]).
        seed: Master seed, in ``[0, 2**62)``.
        scoring: ``"lenient"`` or ``"strict"``.
        sigma: Likelihood standard deviation σ > 0 (a float).
        games_threshold: Update schedule in games, >= 1 or None
            (:class:`~meta.bayes.BayesianMetaAgent`).
        turns_threshold: Update schedule in the agent's turns, >= 1 or None.
        workers: Processes of the Python path, threads of the compiled path, >= 1; results do
            not depend on it.
        progress: Show a tqdm bar.
        niche_dims: Grid ``(d1, d2)`` of the niches, each in [1, 1000] (5×5 in [Bayes21],
            20×20 in [ToG20]).
        response_threshold: Confidence threshold (observed partner moves) of
            ``response-adaptive``, >= 0 or None (0 in [ToG20]).
        empty_niche: Response-table fallback for niches without an elite
            (:data:`~meta.response.EMPTY_NICHE`).
        compiled: None: the compiled path where it applies; False: the Python path for every
            variant; True: require the compiled path.

    Raises:
        TypeError: A field of the wrong type (the message names it).
        ValueError: A field out of range (the message names it and what is allowed).
    """

    variants: Sequence[str] = VARIANTS
    episodes: int = 10
    games: int = 10
    seed: int = 0
    scoring: str = "lenient"
    sigma: float = 0.1
    games_threshold: int | None = 1
    turns_threshold: int | None = None
    workers: int = 1
    progress: bool = False
    niche_dims: Sequence[int] = (5, 5)
    response_threshold: int | None = 0
    empty_niche: str = "generalist"
    compiled: bool | None = None

    def __post_init__(self) -> None:
        """Check every field (in this order) and store it in its plain type."""
        checked = {
            "variants": tuple(check_variants(self.variants)),
            "episodes": validate.check_int("episodes", self.episodes, 1),
            "games": validate.check_int("games", self.games, 1),
            "seed": validate.check_seed("seed", self.seed),
            "scoring": validate.check_choice("scoring", self.scoring, ("lenient", "strict")),
            "sigma": validate.check_float("sigma", self.sigma, 0.0, lo_open=True),
            "games_threshold": validate.check_optional_int(
                "games_threshold", self.games_threshold, 1
            ),
            "turns_threshold": validate.check_optional_int(
                "turns_threshold", self.turns_threshold, 1
            ),
            "workers": validate.check_int("workers", self.workers, 1),
            "progress": validate.check_bool("progress", self.progress),
            "niche_dims": validate.check_int_sequence(
                "niche_dims",
                self.niche_dims,
                1,
                1000,
                min_len=2,
                max_len=2,
                unique=False,
                what="cell counts",
            ),
            "response_threshold": validate.check_optional_int(
                "response_threshold", self.response_threshold, 0
            ),
            "empty_niche": validate.check_choice("empty_niche", self.empty_niche, EMPTY_NICHE),
            "compiled": None
            if self.compiled is None
            else validate.check_bool("compiled", self.compiled),
        }
        for key, value in checked.items():
            object.__setattr__(self, key, value)

    @property
    def bayes_keywords(self) -> dict:
        """The Bayesian agent's ``sigma``, ``games_threshold`` and ``turns_threshold``."""
        return {
            "sigma": self.sigma,
            "games_threshold": self.games_threshold,
            "turns_threshold": self.turns_threshold,
        }

    @property
    def response_keywords(self) -> dict:
        """The response-table agent's ``threshold`` and ``empty_niche``."""
        return {"threshold": self.response_threshold, "empty_niche": self.empty_niche}


def check_variants(variants: object) -> list[str]:
    """``variants`` as a list: a non-empty subset of :data:`ALL_VARIANTS`, each once.

    Raises:
        TypeError: Not a sequence of names.
        ValueError: An unknown or repeated variant, or none.
    """
    if isinstance(variants, (str, bytes)) or not isinstance(variants, Sequence):
        raise validate.type_error("variants", "a sequence of variant names", variants)
    out = list(variants)
    bad = [v for v in out if not isinstance(v, str) or v not in ALL_VARIANTS]
    if bad or not out:
        raise ValueError(f"variants={out} is not allowed; allowed: subsets of {ALL_VARIANTS}")
    if len(set(out)) != len(out):
        raise ValueError(f"variants={out} is not allowed; allowed: each variant once")
    return out
