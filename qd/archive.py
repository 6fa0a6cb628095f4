"""The MAP-Elites archive: a grid of elites in pyribs' vocabulary ([CoG19] Algorithm 1).

pyribs' ``GridArchive`` only inserts a solution whose objective beats the stored one, but the
papers' replacement rule compares the candidate with the incumbent **re-evaluated on the
candidate's games** and keeps the stored objective from insertion time (docs/rules.md §7.1), so the
stored value can move down. :class:`Archive` is therefore a small grid that inserts
unconditionally (the scheduler, :mod:`qd.scheduler`, decides), and :meth:`Archive.to_ribs`
exports it to a ``ribs.archives.GridArchive`` for heatmaps and statistics.

Vocabulary (pyribs): a **solution** is a chromosome (15 rule indices, docs/rules.md §7.1); its
**objective** is its mean self-play score (points, 0–25); its **measures** are the behaviour
descriptors (:mod:`qd.measures`); an **elite** is the solution stored in a **cell**; cells are
numbered row-major (``cell = i · d2 + j`` for grid index ``(i, j)``, as
``ribs``' ``grid_to_int_index``); **coverage** = elites / cells; **QD score** = sum of the
elites' objectives (pyribs with ``qd_score_offset = 0``).

JSON schema (:meth:`Archive.as_dict`; ``null`` stands for NaN)::

    {"format": "hanabi-adhoc/qd-archive", "version": 1,
     "dims": [d1, d2], "ranges": [[lo1, hi1], [lo2, hi2]],
     "measures": ["communicativeness", "ipp"], "solution_dim": 15,
     "fields": ["reeval_objective", ...],          # extra per-elite float fields
     "elites": [{"cell": int, "grid_index": [i, j], "solution": [int, ...],
                 "objective": float, "measures": [float, float],
                 "candidate": int,                  # candidate number at insertion, -1 unknown
                 "<field>": float, ...}, ...],      # sorted by cell
     "metadata": {...}}                             # free-form (run config, source file)
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hanabi_env.outputs import atomic_path
from qd.measures import bin_index

__all__ = ["ARCHIVE_FORMAT", "Archive", "ArchiveStats"]

ARCHIVE_FORMAT = "hanabi-adhoc/qd-archive"


@dataclass(frozen=True)
class ArchiveStats:
    """Summary statistics (pyribs' ``ArchiveStats`` fields).

    Attributes:
        num_elites: Occupied cells.
        coverage: ``num_elites / cells`` in [0, 1].
        qd_score: Sum of the elites' objectives (points; NaN objectives skipped).
        norm_qd_score: ``qd_score / cells``.
        obj_max: Best objective (NaN for an empty archive).
        obj_mean: Mean objective over the elites (NaN for an empty archive).
    """

    num_elites: int
    coverage: float
    qd_score: float
    norm_qd_score: float
    obj_max: float
    obj_mean: float

    def as_dict(self) -> dict:
        """Plain dict (NaN → None)."""
        return {k: _clean(v) for k, v in self.__dict__.items()}


def _clean(x):
    if isinstance(x, float) and math.isnan(x):
        return None
    return x


def _f(x) -> float:
    return math.nan if x is None else float(x)


class Archive:
    """A d1 × d2 (or any-dimensional) grid of elites over the measure space.

    Args:
        dims: Cells per measure dimension, e.g. ``(5, 5)`` or ``(20, 20)``.
        ranges: ``(low, high)`` per dimension (default [0, 1] each).
        measures: Measure names, one per dimension (labels only; see :mod:`qd.measures`).
        solution_dim: Genes per solution (15 in the papers).
        fields: Names of extra per-elite float64 fields (NaN when unset).
        binning: ``"floor"`` (default) or ``"reference"`` (:func:`qd.measures.bin_index`).

    Raises:
        ValueError: Bad ``dims``, ``ranges``, ``measures`` or ``solution_dim``.
    """

    def __init__(
        self,
        dims: Sequence[int],
        ranges: Sequence[tuple[float, float]] | None = None,
        measures: Sequence[str] = ("communicativeness", "ipp"),
        solution_dim: int = 15,
        fields: Sequence[str] = (),
        binning: str = "floor",
    ):
        """See the class docstring."""
        if binning not in ("floor", "reference"):
            raise ValueError(f"binning must be 'floor' or 'reference', got {binning!r}")
        self.binning = binning
        self.dims = tuple(int(d) for d in dims)
        if not self.dims or any(d < 1 for d in self.dims):
            raise ValueError(f"dims={dims} is out of range; allowed: positive ints")
        ranges = [(0.0, 1.0)] * len(self.dims) if ranges is None else ranges
        self.ranges = tuple((float(lo), float(hi)) for lo, hi in ranges)
        if len(self.ranges) != len(self.dims) or any(lo >= hi for lo, hi in self.ranges):
            raise ValueError(f"ranges={ranges}: need one (low < high) per dimension")
        self.measure_names = tuple(str(m) for m in measures)
        if len(self.measure_names) != len(self.dims):
            raise ValueError(f"measures={measures}: need one name per dimension")
        if int(solution_dim) < 1:
            raise ValueError(f"solution_dim={solution_dim} is out of range; allowed: >= 1")
        self.solution_dim = int(solution_dim)
        n = self.cells
        self.solution = np.zeros((n, self.solution_dim), dtype=np.int64)
        self.objective = np.full(n, np.nan, dtype=np.float64)
        self.measures = np.full((n, len(self.dims)), np.nan, dtype=np.float64)
        self.candidate = np.full(n, -1, dtype=np.int64)
        self.occupied = np.zeros(n, dtype=bool)
        self.fields: dict[str, np.ndarray] = {}
        self.metadata: dict = {}
        for name in fields:
            self.add_field(name)

    # ---- geometry -------------------------------------------------------------------------
    @property
    def cells(self) -> int:
        """Number of cells, ``prod(dims)``."""
        return int(np.prod(self.dims))

    @property
    def measure_dim(self) -> int:
        """Number of measure dimensions."""
        return len(self.dims)

    def boundaries(self) -> list[np.ndarray]:
        """Cell edges per dimension: ``d + 1`` float64 values each."""
        return [
            np.linspace(lo, hi, d + 1) for d, (lo, hi) in zip(self.dims, self.ranges, strict=True)
        ]

    def grid_to_int_index(self, grid_index: np.ndarray) -> np.ndarray:
        """Row-major cell numbers of ``(n, k)`` grid indices; ``(n,)`` int64."""
        g = np.asarray(grid_index, dtype=np.int64)
        return np.ravel_multi_index(tuple(g.T), self.dims).astype(np.int64)

    def int_to_grid_index(self, cell: np.ndarray | int) -> np.ndarray:
        """Grid indices of cell numbers: ``(n, k)`` (or ``(k,)`` for a scalar) int64."""
        return np.stack(np.unravel_index(np.asarray(cell, dtype=np.int64), self.dims), axis=-1)

    def index_of(self, measures: np.ndarray) -> np.ndarray:
        """Cells of measure values (docs/rules.md §7.1 binning; NaN → bin 0).

        Args:
            measures: ``(n, k)`` float64 measure values.

        Returns:
            ``(n,)`` int64 cell numbers.
        """
        grid = bin_index(np.atleast_2d(measures), self.dims, self.ranges, self.binning)
        return self.grid_to_int_index(grid)

    def cell_centers(self, cells: np.ndarray) -> np.ndarray:
        """Measure values at the centres of ``cells``; ``(n, k)`` float64."""
        g = self.int_to_grid_index(np.atleast_1d(cells))
        lo = np.array([r[0] for r in self.ranges])
        width = np.array(
            [(hi - lo_) / d for d, (lo_, hi) in zip(self.dims, self.ranges, strict=True)]
        )
        return lo + (g + 0.5) * width

    def cell_name(self, cell: int) -> str:
        """The papers' cell id, e.g. ``"[1,3]"`` (docs/rules.md §9.1)."""
        return "[" + ",".join(str(int(i)) for i in self.int_to_grid_index(int(cell))) + "]"

    # ---- contents -------------------------------------------------------------------------
    def add_field(self, name: str) -> None:
        """Add an extra per-elite float64 field (NaN-filled) if it does not exist yet.

        Raises:
            ValueError: ``name`` clashes with a built-in field.
        """
        builtin = ("cell", "grid_index", "solution", "objective", "measures", "candidate", "index")
        if name in builtin:
            raise ValueError(f"name={name!r} is a built-in field")
        if name not in self.fields:
            self.fields[name] = np.full(self.cells, np.nan, dtype=np.float64)

    def insert(
        self,
        cell: int,
        solution: Sequence[int],
        objective: float,
        measures: Sequence[float],
        candidate: int = -1,
        **fields: float,
    ) -> None:
        """Store an elite in ``cell`` unconditionally (the scheduler applies the rule).

        ``candidate`` is the number of the candidate the elite was (-1: unknown). Extra fields
        not given are reset to NaN for this cell.

        Raises:
            ValueError: ``cell`` out of range or ``solution`` of the wrong length.
        """
        cell = int(cell)
        if not 0 <= cell < self.cells:
            raise ValueError(f"cell={cell} is out of range; allowed: [0, {self.cells - 1}]")
        sol = np.asarray(solution, dtype=np.int64)
        if sol.shape != (self.solution_dim,):
            raise ValueError(f"solution has shape {sol.shape}; expected ({self.solution_dim},)")
        self.solution[cell] = sol
        self.objective[cell] = float(objective)
        self.measures[cell] = np.asarray(measures, dtype=np.float64)
        self.candidate[cell] = int(candidate)
        self.occupied[cell] = True
        for arr in self.fields.values():
            arr[cell] = np.nan
        for name, value in fields.items():
            self.add_field(name)
            self.fields[name][cell] = float(value)

    def clear(self) -> None:
        """Remove every elite."""
        self.occupied[:] = False
        self.objective[:] = np.nan
        self.measures[:] = np.nan
        self.solution[:] = 0
        self.candidate[:] = -1
        for arr in self.fields.values():
            arr[:] = np.nan

    def occupied_cells(self) -> np.ndarray:
        """Occupied cell numbers, ascending; ``(num_elites,)`` int64."""
        return np.flatnonzero(self.occupied).astype(np.int64)

    def __len__(self) -> int:
        """Number of elites."""
        return int(self.occupied.sum())

    def elite(self, cell: int) -> dict | None:
        """The elite of ``cell`` as a dict (see :meth:`data`), or None if the cell is empty."""
        if not self.occupied[int(cell)]:
            return None
        return {k: v[0] for k, v in self.data(np.array([int(cell)])).items()}

    def retrieve_single(self, measures: Sequence[float]) -> tuple[bool, dict | None]:
        """The elite of the cell that ``measures`` fall in, as pyribs' ``retrieve_single``.

        Args:
            measures: ``(k,)`` measure values.

        Returns:
            ``(occupied, elite)``: whether that cell holds an elite, and the elite as
            :meth:`elite` gives it (None when the cell is empty).
        """
        cell = int(self.index_of(np.asarray(measures, dtype=np.float64)[None, :])[0])
        found = self.elite(cell)
        return found is not None, found

    def data(self, cells: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Columns of the elites (all occupied cells by default), pyribs' ``archive.data()``.

        Returns:
            Dict with ``cell (n,)`` int64, ``grid_index (n, k)`` int64, ``solution (n, L)``
            int64, ``objective (n,)`` float64, ``measures (n, k)`` float64, ``candidate (n,)`` int64
            and each extra field ``(n,)`` float64.
        """
        cells = self.occupied_cells() if cells is None else np.asarray(cells, dtype=np.int64)
        out = {
            "cell": cells,
            "grid_index": self.int_to_grid_index(cells).reshape(len(cells), self.measure_dim),
            "solution": self.solution[cells],
            "objective": self.objective[cells],
            "measures": self.measures[cells],
            "candidate": self.candidate[cells],
        }
        for name, arr in self.fields.items():
            out[name] = arr[cells]
        return out

    def best_elite(self) -> dict | None:
        """The elite with the highest objective (first cell on ties), or None if empty."""
        cells = self.occupied_cells()
        obj = self.objective[cells]
        if not len(cells) or np.all(np.isnan(obj)):
            return None
        return self.elite(int(cells[np.nanargmax(obj)]))

    def stats(self, objective: str = "objective") -> ArchiveStats:
        """Coverage, QD score, max and mean objective (pyribs' ``archive.stats``).

        Args:
            objective: ``"objective"`` or the name of an extra field (e.g.
                ``"reeval_objective"``) to compute the objective statistics from.

        Raises:
            ValueError: Unknown ``objective`` field.
        """
        if objective == "objective":
            values = self.objective
        elif objective in self.fields:
            values = self.fields[objective]
        else:
            raise ValueError(f"objective={objective!r} is not a field of this archive")
        obj = values[self.occupied]
        n = int(self.occupied.sum())
        finite = obj[~np.isnan(obj)]
        qd = float(finite.sum()) if finite.size else 0.0
        return ArchiveStats(
            num_elites=n,
            coverage=n / self.cells,
            qd_score=qd,
            norm_qd_score=qd / self.cells,
            obj_max=float(finite.max()) if finite.size else math.nan,
            obj_mean=float(finite.mean()) if finite.size else math.nan,
        )

    def equals(self, other: Archive) -> bool:
        """Exact equality of geometry, elites, objectives, measures and insertion indices."""
        return (
            self.dims == other.dims
            and self.ranges == other.ranges
            and np.array_equal(self.occupied, other.occupied)
            and np.array_equal(self.solution[self.occupied], other.solution[other.occupied])
            and np.array_equal(self.candidate, other.candidate)
            and np.array_equal(self.objective, other.objective, equal_nan=True)
            and np.array_equal(self.measures, other.measures, equal_nan=True)
            and self.fields.keys() == other.fields.keys()
            and all(
                np.array_equal(v, other.fields[k], equal_nan=True) for k, v in self.fields.items()
            )
        )

    def copy(self) -> Archive:
        """A deep copy."""
        return Archive.from_dict(self.as_dict())

    # ---- serialisation --------------------------------------------------------------------
    def as_dict(self, metadata: dict | None = None) -> dict:
        """JSON-serialisable dict in the schema of the module docstring."""
        elites = []
        for cell in self.occupied_cells():
            e = {
                "cell": int(cell),
                "grid_index": [int(i) for i in self.int_to_grid_index(int(cell))],
                "solution": [int(g) for g in self.solution[cell]],
                "objective": _clean(float(self.objective[cell])),
                "measures": [_clean(float(m)) for m in self.measures[cell]],
                "candidate": int(self.candidate[cell]),
            }
            for name, arr in self.fields.items():
                e[name] = _clean(float(arr[cell]))
            elites.append(e)
        return {
            "format": ARCHIVE_FORMAT,
            "version": 1,
            "dims": list(self.dims),
            "ranges": [list(r) for r in self.ranges],
            "measures": list(self.measure_names),
            "solution_dim": self.solution_dim,
            "fields": list(self.fields),
            "binning": self.binning,
            "elites": elites,
            "metadata": self.metadata if metadata is None else metadata,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Archive:
        """Inverse of :meth:`as_dict`.

        Raises:
            ValueError: Not an archive dict, or inconsistent content.
        """
        if not isinstance(d, dict) or d.get("format") != ARCHIVE_FORMAT:
            raise ValueError(f"not a {ARCHIVE_FORMAT} document")
        try:
            archive = cls(
                d["dims"],
                d["ranges"],
                d["measures"],
                d["solution_dim"],
                d["fields"],
                d.get("binning", "floor"),
            )
            for e in d["elites"]:
                extra = {k: _f(e.get(k)) for k in d["fields"]}
                archive.insert(
                    e["cell"],
                    e["solution"],
                    _f(e["objective"]),
                    [_f(m) for m in e["measures"]],
                    e.get("candidate", e.get("index", -1)),  # "index" in files before 0.2
                    **extra,
                )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"malformed archive document: {exc!r}") from exc
        archive.metadata = dict(d.get("metadata") or {})
        return archive

    def elites_table(self) -> tuple[list[str], list[list]]:
        """The elites table: ``(header, rows)``, one row per elite, sorted by cell.

        Columns: ``cell``, ``name`` (``"[i,j]"``), one ``<measure>_index`` per dimension, the
        ``<measure>_low``/``<measure>_high`` cell range, ``objective``, the measure values,
        ``index``, extra fields, then ``gene_0 … gene_{L-1}``. Cells, indices and genes are
        ``int``, the rest ``float`` (NaN where unknown) except ``name``.
        """
        header, _, rows = self._elites_table()
        return header, rows

    def _elites_table(self) -> tuple[list[str], list[str], list[list]]:
        """:meth:`elites_table` with each column's dtype (``"int64"``, ``"float64"``, ``"str"``)."""
        d = self.data()
        bounds = self.boundaries()
        columns = [("cell", "int64"), ("name", "str")]
        columns += [(f"{m}_index", "int64") for m in self.measure_names]
        for m in self.measure_names:
            columns += [(f"{m}_low", "float64"), (f"{m}_high", "float64")]
        columns += [(c, "float64") for c in ("objective", *self.measure_names)]
        columns += [("candidate", "int64"), *((f, "float64") for f in self.fields)]
        columns += [(f"gene_{i}", "int64") for i in range(self.solution_dim)]
        rows = []
        for r in range(len(d["cell"])):
            g = d["grid_index"][r]
            row = [int(d["cell"][r]), self.cell_name(int(d["cell"][r]))]
            row += [int(i) for i in g]
            for k, i in enumerate(g):
                row += [float(bounds[k][i]), float(bounds[k][i + 1])]
            row += [float(d["objective"][r]), *(float(x) for x in d["measures"][r])]
            row += [int(d["candidate"][r]), *(float(d[f][r]) for f in self.fields)]
            row += [int(x) for x in d["solution"][r]]
            rows.append(row)
        return [c for c, _ in columns], [t for _, t in columns], rows

    def to_csv(self, path: str | Path) -> None:
        """Write the elites table (:meth:`elites_table`) as CSV; NaN is an empty cell.

        Atomically (:func:`hanabi_env.outputs.atomic_path`).

        Raises:
            OutputWriteError: The file could not be written (it is named).
        """
        header, rows = self.elites_table()

        def cell(x):
            if isinstance(x, float):
                return "" if math.isnan(x) else repr(x)
            return x

        with atomic_path(path) as tmp, open(tmp, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            for row in rows:
                w.writerow([cell(x) for x in row])

    def to_parquet(self, path: str | Path) -> None:
        """Write the elites table (:meth:`elites_table`) as Parquet (int64/float64/string).

        Raises:
            ImportError: ``pandas`` or ``pyarrow`` is not installed
                (``pip install "hanabi-adhoc[qd]"``).
        """
        try:
            import pandas as pd
            import pyarrow  # noqa: F401 - the Parquet engine
        except ImportError as exc:
            raise ImportError(
                'Parquet output needs pandas and pyarrow: pip install "pandas" "pyarrow"'
            ) from exc
        header, dtypes, rows = self._elites_table()
        frame = pd.DataFrame(rows, columns=header).astype(dict(zip(header, dtypes, strict=True)))
        with atomic_path(path) as tmp:
            frame.to_parquet(tmp, engine="pyarrow", index=False)

    def to_ribs(self, objective: str = "objective", dtype=np.float64):
        """Export to a ``ribs.archives.GridArchive`` (for its heatmaps and statistics).

        Each elite is added with its solution, objective and measures. Where ``ribs``' own
        binning (which adds a small epsilon) would put a measure vector in another cell, or a
        measure is NaN (our bin 0), the elite is added at its cell centre instead, so the ribs
        archive has exactly our cells and objectives.

        Args:
            objective: ``"objective"`` or an extra field such as ``"reeval_objective"``.
            dtype: Float dtype of the ribs archive.

        Returns:
            A ``ribs.archives.GridArchive`` with ``solution_dim``, ``dims`` and ``ranges`` of
            this archive.

        Raises:
            ImportError: ``ribs`` is not installed (``pip install "ribs[visualize]"``).
            ValueError: Unknown ``objective``, or an elite has a NaN objective.
        """
        d = self.data()
        if objective != "objective":
            if objective not in self.fields:
                raise ValueError(f"objective={objective!r} is not a field of this archive")
            obj = d[objective]
        else:
            obj = d["objective"]
        if np.isnan(obj).any():
            raise ValueError(
                f"objective={objective!r} is NaN for some elites (re-evaluate them first, "
                "qd.analysis.reevaluate)"
            )
        from ribs.archives import GridArchive

        ribs_archive = GridArchive(
            solution_dim=self.solution_dim,
            dims=list(self.dims),
            ranges=list(self.ranges),
            dtype=dtype,
        )
        if not len(d["cell"]):
            return ribs_archive
        meas = d["measures"].copy()
        centres = self.cell_centers(d["cell"])
        bad = np.isnan(meas).any(axis=1)
        meas[bad] = centres[bad]
        ribs_cells = np.asarray(ribs_archive.index_of(meas))
        wrong = ribs_cells != d["cell"]
        meas[wrong] = centres[wrong]
        ribs_archive.add(d["solution"].astype(dtype), obj.astype(dtype), meas.astype(dtype))
        return ribs_archive
