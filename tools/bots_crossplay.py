"""The reference bots' cross-play table: every bot with every test-pool agent and each other.

docs/bots.md §6. For each game size in ``--players`` and each ordered pair (agent, partner) of
``--agents`` (default: every installed bot of :data:`agents.bots.BOTS`, then the test pool
:data:`agents.TEST_POOL`, docs/rules.md §4), plays ``--games`` mixed games with
:func:`agents.evaluate.evaluate` (``mode="mixed"``: the agent in a uniformly random seat, copies
of the partner in the others, lenient scoring, the rulebook's hand sizes; [CIG18], docs/rules.md
§6). The diagonal (an agent with copies of itself) is its self-play. Every cell uses the same
``--seed``, so all cells of a game size play the same deals and seats (common random numbers).

Writes into ``--out`` (default ``docs/results/bots-crossplay``), every file atomically:

* ``cells.csv``: one row per cell: ``agent, partner, players, games, mean, sem`` (points),
  ``seed``, ``cpu_s`` (the CPU seconds the cell took in its worker) and both agents'
  identities (:func:`identity`). It is rewritten after every finished cell; a second run
  with the same ``--games`` and ``--seed`` keeps the cells it holds whose agents are still the
  same and plays the others (resume).
* ``tables.md``: per game size, [CIG18] Table III's layout: rows are agents, columns partners,
  each cell mean ± s.e.m.
* ``heatmap-<P>p.png``: the same table as a heatmap (matplotlib), one per game size.
* ``README.md``: the command, date, machine, CPU and wall time.

Usage (the committed table; about 7 CPU-minutes with the pure-Python bots)::

    python3 tools/bots_crossplay.py --games 100 --players 2,3,4,5 --workers 2

Bad options give one ``error: ...`` line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import platform
import shlex
import sys
import time
import traceback
from collections.abc import Sequence
from concurrent.futures import as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents import TEST_POOL, make  # noqa: E402
from agents.bots import BOTS, bot_key, make_bot  # noqa: E402
from agents.evaluate import evaluate  # noqa: E402
from hanabi_env.outputs import atomic_path, atomic_write_text  # noqa: E402

FIELDS = ("agent", "partner", "players", "games", "mean", "sem", "seed", "cpu_s", "error",
          "agent_identity", "partner_identity")  # fmt: skip
"""The columns of ``cells.csv`` (the identities: :func:`identity`)."""
DEFAULT_OUT = ROOT / "docs" / "results" / "bots-crossplay"


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line: ``error: ...`` (exit code 2)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"error: {message} (see: {self.prog} --help)\n")


def installed_bots() -> list[str]:
    """The class names of the bots of :data:`agents.bots.BOTS` whose module is installed."""
    names = []
    for key in BOTS:
        try:
            names.append(type(make_bot(key)).__name__)
        except ValueError:  # not in this version (e.g. InfoBot before its merge)
            continue
    return names


def play_cell(
    agent: tuple[str, str], partner: tuple[str, str], players: int, games: int, seed: int
) -> dict:
    """One cell: ``games`` mixed games of ``agent`` with copies of ``partner``.

    Args:
        agent: ``(name, spec)`` of the agent (``agents.make``), in a uniformly random seat.
        partner: ``(name, spec)`` of the partner, in every other seat.
        players: Game size, 2..5.
        games: Games, >= 1.
        seed: Seed of :func:`agents.evaluate.evaluate` (deals, seats, seat seeds).

    Returns:
        A row of ``cells.csv`` (:data:`FIELDS`): mean and s.e.m. in points, CPU seconds. A
        policy that raises in any game fails the whole cell: mean and s.e.m. are then empty
        and ``error`` says what was raised and where (the innermost frame).
    """
    start = time.process_time()
    cell = {"agent": agent[0], "partner": partner[0], "players": players, "games": games}
    mean: float | str
    sem: float | str
    try:
        result = evaluate(
            agent[1],
            mode="mixed",
            players=[players],
            games=games,
            pool=[partner[1]],
            scoring="lenient",
            seed=seed,
            workers=1,
        )
    except Exception as err:  # a policy's own error: the cell fails, the table goes on
        # an AgentFault wraps what the policy raised: name that, where the policy raised it
        cause = err.__cause__ if isinstance(err.__cause__, Exception) else err
        frame = traceback.extract_tb(cause.__traceback__)[-1]
        where = os.path.relpath(frame.filename, ROOT) if frame.filename else "?"
        error = f"{type(cause).__name__}: {cause} ({where}:{frame.lineno})"
        mean = sem = ""
    else:
        (row,) = result.rows
        mean, sem, error = round(float(row["mean"]), 4), round(float(row["sem"]), 4), ""
    cpu = round(time.process_time() - start, 3)
    return {**cell, "mean": mean, "sem": sem, "seed": seed, "cpu_s": cpu, "error": error}


def _cost(agent: str, partner: str, players: int, bots: set[str]) -> int:
    """A rough cost of a cell: Python bot seats times game size (heaviest cells first)."""
    return players * ((agent in bots) + (partner in bots) * (players - 1))


def identity(spec: str) -> str:
    """The first 16 hex digits of :func:`agents.identity.agent_identity` of ``spec``.

    A cell is kept on resume only while both its agents' identities are the same: a network
    shipped again, an edited bot file, or another toolkit version plays its cells again.
    """
    from agents.identity import agent_identity

    return str(agent_identity(spec)["sha256"])[:16]


def read_cells(path: Path, games: int, seed: int, identities: dict[str, str]) -> dict[tuple, dict]:
    """The cells of an earlier run in ``path`` played with ``games`` and ``seed`` (resume).

    Failed cells (an ``error``) are left out: a resume plays them again; so are cells whose
    agent or partner is not the same any more (``identities``: name -> :func:`identity`; a row
    without identities counts as changed).
    """
    if not path.exists():
        return {}
    cells = {}
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            try:
                cell = {
                    "agent": row["agent"],
                    "partner": row["partner"],
                    "players": int(row["players"]),
                    "games": int(row["games"]),
                    "mean": float(row["mean"]),
                    "sem": float(row["sem"]),
                    "seed": int(row["seed"]),
                    "cpu_s": float(row["cpu_s"]),
                    "error": "",
                    "agent_identity": row.get("agent_identity") or "",
                    "partner_identity": row.get("partner_identity") or "",
                }
                if row["error"]:
                    continue
            except (KeyError, TypeError, ValueError):
                continue  # not a row of this tool's, or a failed cell: played again
            same = cell["agent_identity"] == identities.get(cell["agent"]) and cell[
                "partner_identity"
            ] == identities.get(cell["partner"])
            if cell["games"] == games and cell["seed"] == seed and same:
                cells[(cell["agent"], cell["partner"], cell["players"])] = cell
    return cells


def write_cells(path: Path, cells: dict[tuple, dict], order: list[tuple]) -> None:
    """``cells.csv``: the cells in ``order`` that are done (atomic write)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    for key in order:
        if key in cells:
            writer.writerow(cells[key])
    atomic_write_text(path, buf.getvalue())


def tables_md(
    cells: dict[tuple, dict], agents: list[str], sizes: list[int], games: int, title: str
) -> str:
    """Per game size, rows = agents, columns = partners, mean ± s.e.m. ([CIG18] Table III)."""
    lines = [
        f"# {title}: the tables",
        "",
        f"Mixed play ([CIG18] Table III's layout): each row an agent in a uniformly random seat, "
        f"each column the partner in every other seat; mean score ± s.e.m. over {games} games "
        "per cell, lenient scoring; the diagonal is self-play. Made by `tools/bots_crossplay.py` "
        "(see README.md).",
    ]
    for p in sizes:
        lines += ["", f"## {p} players", ""]
        lines.append("| agent ↓, partner → | " + " | ".join(agents) + " | mean |")
        lines.append("|---" * (len(agents) + 2) + "|")
        notes = []
        for a in agents:
            row = [cells[(a, b, p)] for b in agents]
            played = [c["mean"] for c in row if not c["error"]]
            mean = f"{sum(played) / len(played):.2f}" if played else "-"
            parts = []
            for c in row:
                if c["error"]:
                    notes.append(f"{c['agent']} with {c['partner']}: {c['error']}")
                    parts.append(f"fails ({len(notes)})")
                else:
                    parts.append(f"{c['mean']:.2f} ± {c['sem']:.2f}")
            lines.append(f"| {a} | {' | '.join(parts)} | {mean} |")
        if notes:
            lines += [
                "",
                "Failed cells (a policy raised in one of the games; the mean of the "
                "row is over the other cells):",
                "",
            ]
            lines += [f"{i}. {n}" for i, n in enumerate(notes, 1)]
    return "\n".join(lines) + "\n"


def heatmap(
    path: Path, cells: dict[tuple, dict], agents: list[str], p: int, games: int, n_bots: int
) -> None:
    """The table of ``p`` players as a heatmap PNG (atomic write); a line after the bots."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    grid = np.array(
        [
            [cells[(a, b, p)]["mean"] if not cells[(a, b, p)]["error"] else np.nan for b in agents]
            for a in agents
        ]
    )
    n = len(agents)
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * n, 0.8 + 0.6 * n))
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="lightgrey")
    im = ax.imshow(np.ma.masked_invalid(grid), vmin=0, vmax=25, cmap=cmap)
    for i in range(n):
        for j in range(n):
            failed = np.isnan(grid[i, j])
            text = "fails" if failed else f"{grid[i, j]:.1f}"
            color = "black" if failed or grid[i, j] > 15 else "white"
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color=color)
    if 0 < n_bots < n:
        ax.axhline(n_bots - 0.5, color="white", linewidth=2)
        ax.axvline(n_bots - 0.5, color="white", linewidth=2)
    ax.set_xticks(range(n), agents, rotation=45, ha="right")
    ax.set_yticks(range(n), agents)
    ax.set_xlabel("partner (every other seat)")
    ax.set_ylabel("agent (one random seat)")
    ax.set_title(f"Mixed play, {p} players: mean score ({games} games per cell)")
    fig.colorbar(im, ax=ax, label="score (0-25)")
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=100, format="png", metadata={"Software": None})
    plt.close(fig)


def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}"


def readme_md(
    cells: dict[tuple, dict], args: argparse.Namespace, argv: Sequence[str], wall: float
) -> str:
    """README.md: the command, date, machine, CPU and wall time, the s.e.m. range."""
    sems = sorted(c["sem"] for c in cells.values() if not c["error"]) or [float("nan")]
    failed = sum(1 for c in cells.values() if c["error"])
    cpu = sum(c["cpu_s"] for c in cells.values())
    command = shlex.join(["python3", "tools/bots_crossplay.py", *argv])
    return "\n".join(
        [
            f"# {args.title}",
            "",
            "Every agent with every partner in mixed play (one agent in a uniformly random seat, "
            'copies of the partner in the others; `agents.evaluate.evaluate(mode="mixed")`), at '
            f"{', '.join(str(p) for p in args.sizes)} players; the diagonal is self-play. What "
            f"the tables show: {args.doc}.",
            "",
            "| file | what |",
            "|---|---|",
            "| [`tables.md`](tables.md) | per game size: rows agents, columns partners, mean ± "
            "s.e.m. ([CIG18] Table III's layout) |",
            "| [`cells.csv`](cells.csv) | every cell: agent, partner, players, games, mean, sem, "
            "seed, cpu_s, the agents' identities |",
            "| `heatmap-<P>p.png` | the tables as heatmaps |",
            "",
            "Made with:",
            "",
            "<!-- no-run: plays every cell, about 7 CPU-minutes "
            "(tests/agents/test_bots_crossplay.py runs the tool at tiny scale) -->",
            "```bash",
            command,
            "```",
            "",
            f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
            f"- machine: {_machine()}; Python {platform.python_version()}; load average "
            f"{args.load:.1f} at the start (a shared machine: wall time depends on the others)",
            f"- agents: {', '.join(args.names)}",
            f"- games per cell: {args.games}, seed {args.seed} (the same deals and seats in "
            "every cell of a game size), lenient scoring, hands of 5 at 2-3 players and 4 at 4-5",
            f"- cells: {len(cells)}, {failed} of them failed (a policy raised; see tables.md); "
            f"s.e.m. per cell {sems[0]:.2f} to {sems[-1]:.2f} points "
            f"(median {sems[len(sems) // 2]:.2f})",
            f"- CPU time: {cpu / 60:.1f} CPU-minutes in the cells' workers (sum over cells); "
            f"wall time of the last invocation {wall / 60:.1f} min with {args.workers} workers",
            "",
        ]
    )


TITLE = "Cross-play of the reference bots and the test pool"
"""The README's title by default (the table of docs/results/bots-crossplay/)."""
DOC = "docs/bots.md §6"
"""The page that reads the default table."""


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The options, checked (usage errors exit 2 with one ``error:`` line)."""
    ap = _Parser(prog="tools/bots_crossplay.py", description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="games per cell (default 100)")
    ap.add_argument("--players", default="2,3,4,5", help="game sizes, comma-separated (2..5)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--seed", type=int, default=0, help="seed of every cell (default 0)")
    ap.add_argument(
        "--agents", default="", help="agents, comma-separated (default: the bots, the test pool)"
    )
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    ap.add_argument("--title", default=TITLE, help=f"the README's title (default {TITLE!r})")
    ap.add_argument("--doc", default=DOC, help=f"the page that reads the tables (default {DOC!r})")
    args = ap.parse_args(argv)
    if not 1 <= args.games <= 1_000_000:
        ap.error(f"argument --games: {args.games} is out of range; allowed: 1 to 1000000")
    if not 1 <= args.workers <= 256:
        ap.error(f"argument --workers: {args.workers} is out of range; allowed: 1 to 256")
    if not 0 <= args.seed < 2**62:
        ap.error(f"argument --seed: {args.seed} is out of range; allowed: 0 to 2**62 - 1")
    try:
        sizes = [int(s) for s in args.players.split(",")]
    except ValueError:
        sizes = []
    if not sizes or any(not 2 <= s <= 5 for s in sizes) or len(set(sizes)) != len(sizes):
        ap.error(
            f"argument --players: {args.players!r} is not allowed; allowed: distinct sizes "
            "2 to 5, comma-separated (e.g. 2,3,4,5)"
        )
    args.sizes = sorted(sizes)
    wanted = [s.strip() for s in args.agents.split(",") if s.strip()]
    if not wanted:
        wanted = installed_bots() + list(TEST_POOL)
    names = []
    for name in wanted:
        try:
            names.append(type(make_bot(name)).__name__ if bot_key(name) else make(name).name)
        except ValueError as err:
            ap.error(f"argument --agents: {err}")
    if len(set(names)) != len(names) or len(names) < 2:
        ap.error(f"argument --agents: {args.agents!r}: give at least 2 distinct agents")
    args.names = names
    args.specs = dict(zip(names, wanted, strict=True))
    if args.out.exists() and not args.out.is_dir():
        ap.error(f"argument --out: {str(args.out)!r} is not a folder")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Play the missing cells, then write the CSV, tables, heatmaps and README (exit 0)."""
    from tqdm.auto import tqdm

    from agents.backend import warm_up
    from hanabi_env.workers import one_thread_worker, process_pool

    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    args.load = os.getloadavg()[0]
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "cells.csv"
    bots = {n for n in args.names if bot_key(n)}
    order = [(a, b, p) for p in args.sizes for a in args.names for b in args.names]
    ids = {name: identity(args.specs[name]) for name in args.names}
    found = read_cells(csv_path, args.games, args.seed, ids)
    cells = {k: v for k, v in found.items() if k in order}
    todo = sorted(
        (k for k in order if k not in cells), key=lambda k: -_cost(k[0], k[1], k[2], bots)
    )
    print(
        f"{len(order)} cells, {len(cells)} already in {csv_path}, {len(todo)} to play "
        f"({args.games} games each, {args.workers} workers)",
        file=sys.stderr,
        flush=True,
    )
    start = time.monotonic()
    if todo:
        warm_up()  # the rule-game kernel, compiled (or loaded) once before the fork
        import multiprocessing

        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        bar = tqdm(total=len(todo) * args.games, unit="game", desc="cross-play", mininterval=5)
        with process_pool(args.workers, mp_context=ctx, initializer=one_thread_worker) as pool:
            spec = args.specs
            futures = [
                pool.submit(play_cell, (a, spec[a]), (b, spec[b]), p, args.games, args.seed)
                for a, b, p in todo
            ]
            try:
                for fut in as_completed(futures):
                    row = fut.result()
                    row.update(
                        agent_identity=ids[row["agent"]], partner_identity=ids[row["partner"]]
                    )
                    cells[(row["agent"], row["partner"], row["players"])] = row
                    write_cells(csv_path, cells, order)
                    bar.update(args.games)
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)  # do not play the rest
                raise
        bar.close()
    write_cells(csv_path, cells, order)
    atomic_write_text(
        out / "tables.md", tables_md(cells, args.names, args.sizes, args.games, args.title)
    )
    for p in args.sizes:
        heatmap(out / f"heatmap-{p}p.png", cells, args.names, p, args.games, len(bots))
    wall = time.monotonic() - start
    atomic_write_text(out / "README.md", readme_md(cells, args, argv, wall))
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
