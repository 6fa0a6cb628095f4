"""The MAP-Elites loop: ask → evaluate → tell with the papers' paired replacement, checkpoints.

[CoG19] Algorithm 1 as specified in docs/rules.md §7.1, run in batches:

1. **ask** — the emitter (:class:`qd.emitters.MapElitesEmitter`) proposes the next
   ``batch_size`` candidates from the archive as it is at the start of the batch (a batch never
   straddles the end of phase 1).
2. **evaluate** — all candidates of the batch are evaluated together
   (:func:`qd.evaluator.evaluate_solutions`); candidate ``k`` (counting from 0 over the whole run)
   plays the games of seed ``derive_seed(seed, 1, k)``.
3. **tell** — candidates are resolved in candidate order, cell by cell: an empty cell takes the
   candidate; otherwise the incumbent is **re-evaluated on the candidate's games** (same seed,
   common random numbers) and the candidate replaces it only if its objective is **strictly**
   greater (compared exactly, as total scores over the same games). Only that answer is needed,
   so a replay stops as soon as it is certain (:func:`qd.evaluator.replay_holds`: the
   incumbent's partial total already reaches the candidate's total); the answer, and hence the
   archive, is the full replay's. The stored objective and measures are the ones measured when
   the elite entered. The replays are batched in rounds: a round replays the incumbent of
   every waiting cell on the games of *all* the candidates still queued for that cell (the
   incumbent usually survives them all); only a replacement sends the cell's remaining
   candidates to a later round, against the new incumbent. The result is exactly the
   sequential algorithm applied to the batch (a replay is a pure function of the incumbent and
   the candidate's seed); only the number of evaluator calls and of wasted replays changes.
   A candidate identical to its incumbent cannot be strictly better on the same games and is
   rejected without playing them.

Everything stochastic derives from ``config.seed``, so a run is a pure function of its
:class:`~qd.config.MapElitesConfig`, whatever the backend or number of workers.

Checkpoints (:meth:`MapElites.save_checkpoint`) are written atomically at batch boundaries and
hold the archive, the emitter's generator state and the counters, as JSON::

    {"format": "hanabi-adhoc/qd-checkpoint", "version": 1,
     "sha256": <hex digest of the canonical JSON of "payload">,
     "payload": {"config": {...MapElitesConfig...}, "n_evaluated": int,
                 "emitter": {"rng": {...PCG64 state...}, "n_asked": int},
                 "counters": {...RunCounters...}, "elapsed": seconds,
                 "archive": {...qd.archive schema...}}}

Resuming from a checkpoint continues the same sequence of batches, so an interrupted and resumed
run ends with exactly the archive of an uninterrupted run. A corrupt checkpoint, or one written
by a run with different results-affecting settings (:data:`qd.config.RESULT_FIELDS`), raises
:class:`CheckpointError`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hanabi_env.outputs import settings_diff
from qd.archive import Archive
from qd.config import RESULT_FIELDS, MapElitesConfig
from qd.emitters import MapElitesEmitter
from qd.evaluator import (
    Backend,
    SerialBackend,
    derive_seed,
    evaluate_solutions,
    replay_holds,
)
from qd.io import CheckpointError, read_checksummed_json, write_checksummed_json
from qd.measures import Measure, get_measure, measures_from_counters

__all__ = ["CHECKPOINT_FORMAT", "CheckpointError", "MapElites", "RunCounters"]

CHECKPOINT_FORMAT = "hanabi-adhoc/qd-checkpoint"


@dataclass
class RunCounters:
    """Bookkeeping of a run (all ints).

    Attributes:
        inserted: Candidates that filled an empty cell.
        replaced: Candidates that beat their incumbent.
        rejected: Candidates that did not beat their incumbent.
        identical: Rejected candidates identical to their incumbent (no games played).
        incumbent_evaluations: Incumbent re-evaluations played.
        games: Games played (candidates and incumbents).
        moves: Moves played.
        batches: Batches completed.
        rounds: Incumbent re-evaluation rounds (evaluator calls after the first per batch).
        replay_games_skipped: Incumbent games not played because the replay's answer was
            already certain (:func:`qd.evaluator.replay_holds`).
    """

    inserted: int = 0
    replaced: int = 0
    rejected: int = 0
    identical: int = 0
    incumbent_evaluations: int = 0
    games: int = 0
    moves: int = 0
    batches: int = 0
    rounds: int = 0
    replay_games_skipped: int = 0


class MapElites:
    """The MAP-Elites scheduler (archive + emitter + evaluator backend).

    Args:
        config: The run's :class:`~qd.config.MapElitesConfig`.
        backend: Where games run (default :class:`~qd.evaluator.SerialBackend`); results do not
            depend on it.
        measures: Measure objects or callables overriding ``config.measures`` (same count; their
            names are recorded, so pass the same ones when resuming).

    Attributes:
        archive: The :class:`~qd.archive.Archive`.
        emitter: The :class:`~qd.emitters.MapElitesEmitter`.
        n_evaluated: Candidates evaluated so far.
        counters: :class:`RunCounters`.
        elapsed: Seconds spent in :meth:`step` (summed over resumed sessions).
    """

    def __init__(
        self,
        config: MapElitesConfig,
        backend: Backend | None = None,
        measures: Sequence[str | Measure | Callable] | None = None,
    ):
        """See the class docstring."""
        self.config = config
        given = config.measures if measures is None else measures
        self.measures = [get_measure(m) for m in given]
        if len(self.measures) != len(config.dims):
            raise ValueError(f"measures={given}: need one per dimension of dims={config.dims}")
        self.archive = Archive(
            config.dims,
            [(m.low, m.high) for m in self.measures],
            [m.name for m in self.measures],
            config.n_genes,
            binning="reference" if config.ruleset == "reference" else "floor",
        )
        self.emitter = MapElitesEmitter(
            [config.seed, 0],
            config.random_candidates,
            config.crossover_rate,
            config.mutation_rate,
            config.n_genes,
        )
        self.backend = backend or SerialBackend()
        self.n_evaluated = 0
        self.counters = RunCounters()
        self.elapsed = 0.0

    # ---- seeds and schedule ---------------------------------------------------------------
    def candidate_seed(self, k: int | np.integer) -> int:
        """Evaluation seed of candidate ``k`` (0-based): ``derive_seed(seed, 1, k)``."""
        return derive_seed(self.config.seed, 1, int(k))

    @property
    def done(self) -> bool:
        """Whether all ``config.candidates`` have been evaluated."""
        return self.n_evaluated >= self.config.candidates

    def next_batch_size(self) -> int:
        """Size of the next batch (never straddles the end of phase 1)."""
        c = self.config
        end = c.random_candidates if self.n_evaluated < c.random_candidates else c.candidates
        return max(0, min(c.batch_size, end - self.n_evaluated))

    # ---- ask / evaluate / tell ------------------------------------------------------------
    def _evaluate(self, solutions: np.ndarray, seeds: Sequence[int]):
        c = self.config
        ev = evaluate_solutions(
            solutions, seeds, c.games, c.players, c.scoring, self.backend, c.ruleset
        )
        self.counters.games += ev.games
        self.counters.moves += ev.moves
        return ev

    def _holds(self, incumbents: np.ndarray, seeds: Sequence[int], objective: np.ndarray):
        """Whether each incumbent's objective on the games of ``seeds`` is >= ``objective``.

        Compared exactly, as total scores over the same games; replays stop once the answer
        is certain (:func:`qd.evaluator.replay_holds`).
        """
        c = self.config
        n_games = c.games * len(c.players)
        targets = np.rint(np.asarray(objective) * n_games).astype(np.int64)
        r = replay_holds(incumbents, seeds, targets, c, self.backend)
        self.counters.games += r.games
        self.counters.moves += r.moves
        self.counters.replay_games_skipped += len(targets) * n_games - r.games
        return r.holds

    def step(self) -> int:
        """Run one batch (ask → evaluate → tell).

        Returns:
            The number of candidates evaluated (0 when the run is complete).
        """
        n = self.next_batch_size()
        if n == 0:
            return 0
        t0 = time.perf_counter()
        solutions = self.emitter.ask(self.archive, n)
        ids = np.arange(self.n_evaluated, self.n_evaluated + n, dtype=np.int64)
        seeds = [self.candidate_seed(k) for k in ids]
        ev = self._evaluate(solutions, seeds)
        meas = measures_from_counters(ev.counters, self.measures)
        self.tell(solutions, ev.objective, meas, ids, seeds)
        self.n_evaluated += n
        self.counters.batches += 1
        self.elapsed += time.perf_counter() - t0
        return n

    def tell(
        self,
        solutions: np.ndarray,
        objective: np.ndarray,
        measures: np.ndarray,
        ids: np.ndarray,
        seeds: Sequence[int],
    ) -> None:
        """Apply the paired replacement rule to an evaluated batch (docs/rules.md §7.1).

        Args:
            solutions: ``(n, n_genes)`` int64 candidates, in candidate order.
            objective: ``(n,)`` float64 their objectives (points).
            measures: ``(n, k)`` float64 their measures.
            ids: ``(n,)`` int64 candidate numbers (stored as the elites' ``index``).
            seeds: ``(n,)`` evaluation seeds (incumbents replay them).
        """
        archive = self.archive
        cells = archive.index_of(measures)
        queues: dict[int, list[int]] = {}
        for i, cell in enumerate(cells.tolist()):
            queues.setdefault(cell, []).append(i)
        pos = dict.fromkeys(queues, 0)
        # does an incumbent (by its genes) score at least candidate i on the games of i?
        replays: dict[tuple[bytes, int], bool] = {}
        first_round = True
        while True:
            requests: list[tuple[int, int]] = []
            for cell in sorted(queues):
                queue = queues[cell]
                while pos[cell] < len(queue):
                    i = queue[pos[cell]]
                    if not archive.occupied[cell]:
                        archive.insert(cell, solutions[i], objective[i], measures[i], ids[i])
                        self.counters.inserted += 1
                    elif np.array_equal(archive.solution[cell], solutions[i]):
                        self.counters.rejected += 1
                        self.counters.identical += 1
                    else:
                        key = (archive.solution[cell].tobytes(), i)
                        if key not in replays:
                            # replay this incumbent on the games of every candidate still
                            # queued for the cell: it stays unless one of them beats it
                            for j in queue[pos[cell] :]:
                                if not np.array_equal(archive.solution[cell], solutions[j]):
                                    requests.append((cell, j))
                            break
                        if not replays[key]:
                            archive.insert(cell, solutions[i], objective[i], measures[i], ids[i])
                            self.counters.replaced += 1
                        else:
                            self.counters.rejected += 1
                    pos[cell] += 1
            if not requests:
                return
            if not first_round:
                self.counters.rounds += 1
            first_round = False
            incumbents = np.stack([archive.solution[cell] for cell, _ in requests])
            holds = self._holds(
                incumbents,
                [seeds[i] for _, i in requests],
                np.array([objective[i] for _, i in requests], dtype=np.float64),
            )
            self.counters.incumbent_evaluations += len(requests)
            for (cell, i), h in zip(requests, holds, strict=True):
                replays[(archive.solution[cell].tobytes(), i)] = bool(h)

    # ---- the loop -------------------------------------------------------------------------
    def run(
        self,
        progress: bool = True,
        checkpoint: str | Path | None = None,
        stop_after: int | None = None,
        callback: Callable[[MapElites], None] | None = None,
    ) -> Archive:
        """Run batches until ``config.candidates`` (or ``stop_after``) candidates are evaluated.

        Args:
            progress: Show a tqdm bar (candidates/s, coverage, best objective).
            checkpoint: Checkpoint path, written every ``config.checkpoint_every`` candidates
                (at the first batch boundary past each multiple) and at the end.
            stop_after: Stop (after checkpointing) once this many candidates are evaluated.
            callback: Called after every batch (and its checkpoint) with this scheduler.

        Returns:
            The archive.
        """
        from tqdm.auto import tqdm

        total = self.config.candidates
        bar = tqdm(
            total=total,
            initial=self.n_evaluated,
            unit="cand",
            desc=f"MAP-Elites {self.config.name}",
            disable=not progress,
            dynamic_ncols=True,
        )
        every = self.config.checkpoint_every
        try:
            while not self.done:
                n = self.step()
                bar.update(n)
                s = self.archive.stats()
                bar.set_postfix(
                    coverage=f"{s.coverage:.3f}", best=f"{s.obj_max:.2f}", refresh=False
                )
                stop = stop_after is not None and self.n_evaluated >= stop_after
                crossed = self.n_evaluated // every > (self.n_evaluated - n) // every
                if checkpoint is not None and (crossed or self.done or stop):
                    self.save_checkpoint(checkpoint)
                if callback is not None:
                    callback(self)
                if stop:
                    break
        finally:
            bar.close()
        return self.archive

    # ---- checkpoints ----------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The checkpoint payload (see the module docstring)."""
        return {
            "config": self.config.as_dict(),
            "measures": [m.name for m in self.measures],
            "n_evaluated": self.n_evaluated,
            "emitter": self.emitter.state_dict(),
            "counters": dataclasses.asdict(self.counters),
            "elapsed": self.elapsed,
            "archive": self.archive.as_dict(metadata={}),
        }

    def save_checkpoint(self, path: str | Path) -> None:
        """Write the checkpoint atomically (temporary file + ``os.replace``)."""
        write_checksummed_json(path, CHECKPOINT_FORMAT, self.state_dict())

    @staticmethod
    def read_checkpoint(path: str | Path) -> dict:
        """Read and verify a checkpoint file; returns its payload.

        The file is one JSON document (written atomically); its payload must hash to the
        recorded sha256, so a truncated, extended or edited file is refused.

        Raises:
            CheckpointError: Missing, unreadable, not a checkpoint, or checksum mismatch (one
                line naming the file and what to do).
        """
        return read_checksummed_json(path, CHECKPOINT_FORMAT)

    @classmethod
    def from_checkpoint(
        cls,
        path: str | Path,
        config: MapElitesConfig | None = None,
        backend: Backend | None = None,
        measures: Sequence[str | Measure | Callable] | None = None,
    ) -> MapElites:
        """Restore a scheduler from a checkpoint.

        Args:
            path: Checkpoint file.
            config: The configuration the caller expects; it must agree with the checkpoint's on
                :data:`qd.config.RESULT_FIELDS` (``name`` and ``checkpoint_every`` may differ
                and are taken from ``config``). None = the checkpoint's own.
            backend: Evaluation backend.
            measures: As in the constructor (their names must match the checkpoint's).

        Raises:
            CheckpointError: Corrupt checkpoint, or it belongs to a different run.
        """
        payload = cls.read_checkpoint(path)
        try:
            saved = MapElitesConfig.from_dict(payload["config"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"checkpoint {path} has an invalid config: {exc}") from exc
        if config is not None:
            old = {k: getattr(saved, k) for k in RESULT_FIELDS}
            new = {k: getattr(config, k) for k in RESULT_FIELDS}
            if old != new:
                raise CheckpointError(
                    f"checkpoint {path} belongs to a different run ({settings_diff(old, new)}); "
                    "use the same settings or another folder"
                )
            saved = config
        loop = cls(saved, backend, measures)
        names = [m.name for m in loop.measures]
        if payload.get("measures") != names:
            raise CheckpointError(
                f"checkpoint {path} was written with measures {payload.get('measures')}, "
                f"not {names}"
            )
        try:
            archive = Archive.from_dict(payload["archive"])
            if archive.dims != loop.archive.dims or archive.solution_dim != loop.config.n_genes:
                raise ValueError("archive geometry differs from the config")
            loop.archive = archive
            loop.emitter.load_state_dict(payload["emitter"])
            loop.n_evaluated = int(payload["n_evaluated"])
            loop.counters = RunCounters(**payload["counters"])
            loop.elapsed = float(payload["elapsed"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"checkpoint {path} is corrupt ({exc})") from exc
        if loop.emitter.n_asked != loop.n_evaluated or loop.n_evaluated > saved.candidates:
            raise CheckpointError(f"checkpoint {path} is inconsistent (candidate counters)")
        return loop
