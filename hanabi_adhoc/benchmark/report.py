"""The benchmark's report folder: per_partner.csv, seats.csv, summary.json, summary.md, figures.

docs/benchmark.md §5. :func:`summarise` computes the rows and aggregates of every agent from
its results table (:mod:`hanabi_adhoc.benchmark.aggregate`); :func:`write_report` writes them,
the figures and the leaderboard, every file through the report folder
(:func:`hanabi_adhoc.benchmark.files.open_folder`). Every report states the configuration it
played: the suites (name, version, SHA-256), each group's game sizes, ruleset, scoring, seed and
deals, and the hand sizes.
"""

from __future__ import annotations

import datetime
import math
from pathlib import Path
from typing import TYPE_CHECKING

from hanabi_adhoc.benchmark import aggregate as A
from hanabi_adhoc.benchmark.files import read_csv, write_csv_file
from hanabi_adhoc.benchmark.suites import benchmark_version
from hanabi_env.config import game_hand_size, hand_size_words
from hanabi_env.outputs import OutputFolder

if TYPE_CHECKING:  # a type only: run_benchmark (hanabi_adhoc.benchmark.run) imports this module
    from hanabi_adhoc.benchmark.run import Benchmark

__all__ = [
    "LEADERBOARD_FIELDS",
    "PER_PARTNER_FIELDS",
    "check_leaderboard",
    "partial_words",
    "pm",
    "ranked",
    "summarise",
    "write_report",
]

PER_PARTNER_FIELDS = (
    "agent",
    "suite",
    "partner",
    "players",
    "seat",
    "games",
    "mean_score",
    "sem",
    "normalised",
    "group",
    "cell",
    "br",
    "self_play",
    "communicativeness",
    "ipp",
    "risk_aversion",
    "partner_communicativeness",
    "partner_ipp",
)
"""Columns of ``per_partner.csv`` (``partner`` is ``group/id``; ``seat`` ``all`` = every seat)."""

LEADERBOARD_FIELDS = (
    "agent",
    "spec",
    "agent_sha256",
    "suite",
    "suite_sha256",
    "agent_seed",
    "ruleset",
    "hand_size",
    "normalised_iqm",
    "iqm_low",
    "iqm_high",
    "normalised_mean",
    "mean_low",
    "mean_high",
    "mean_score",
    "units",
    "sizes_played",
    "complete",
    "rank",
    "ranked_among",
    "date",
)
"""Columns of ``leaderboard.csv`` (``agent_sha256``: :func:`agents.identity.agent_identity`).

``sizes_played``: the suite's game sizes the agent played (``2,3,4,5``); ``complete``: whether
those are all the suite's sizes; ``rank``: the row's rank by normalised IQM among the rows of
the same suite version that played the same sizes, which ``ranked_among`` says in words
(docs/benchmark.md §5).
"""

RULEBOOK = "rulebook (5 cards at 2–3 players, 4 at 4–5)"


def _configuration(bench: Benchmark) -> dict:
    hs = bench.options["hand_size"]
    return {
        "suites": [
            {
                "suite": s.key,
                "sha256": s.sha256,
                "description": s.description,
                "groups": [
                    {
                        "name": g.name,
                        "label": g.label,
                        "players": list(g.players),
                        "ruleset": g.ruleset,
                        "scoring": g.scoring,
                        "seed": g.seed,
                        "episodes": g.episodes,
                        "games": g.games,
                        "partners": len(g.partners),
                        "hand_sizes": {
                            str(p): g.hand_size(p) if hs is None else hs for p in g.players
                        },
                        "sha256": g.hash,
                    }
                    for g in s.groups
                ],
            }
            for s in bench.suites
        ],
        "benchmark": benchmark_version([s.key for s in bench.suites]),
        "hand_size": RULEBOOK if hs is None else hs,
        "deals": bench.options["deals"] or "all",
        "players": list(bench.options["players"] or []) or "all",
        "partial": bench.partial,
        "seats": "rotated: every deal once with the agent in every seat",
    }


def summarise(bench: Benchmark) -> dict:
    """Fill ``bench.rows`` and ``bench.summary`` from the agents' results (plays no game)."""
    groups = {g.name: g for s in bench.suites for g in s.groups}
    rulebook = bench.options["hand_size"] is None
    bench.rows = []
    agents = []
    for run in bench.runs:
        rows = A.partner_rows(run.results, groups, rulebook)
        doc: dict = {
            "label": run.label,
            "spec": run.spec,
            "identity": run.identity,
            "slug": run.slug,
            "options": run.options,
            "players": {str(p): why or "yes" for p, why in run.players.items()},
            "episodic": run.episodic,
            "games": len(run.results),
            "seconds": run.seconds,
            "replies": run.replies,
            "suites": {},
            "self_play": A.self_play(run.results),
            "behaviour": A.behaviour(run.results),
            "niches": {},
            "seats": A.seat_table(rows),
        }
        played = {p for p, why in run.players.items() if why is None}
        if bench.options["players"]:
            played &= set(bench.options["players"])
        for suite in bench.suites:
            names = {g.name for g in suite.groups}
            mine = [r for r in rows if r["group"] in names]
            doc["suites"][suite.key] = {**A.suite_summary(mine, suite), **_sizes_of(suite, played)}
            for r in mine:
                bench.rows.append(
                    {
                        **r,
                        "agent": run.label,
                        "suite": suite.key,
                        "partner": f"{r['group']}/{r['partner']}",
                    }
                )
        for fam, grid in A.niche_grids(rows, groups).items():
            doc["niches"][fam] = {
                "grid": list(grid["grid"]),
                "groups": grid["groups"],
                "weakest": [{"cell": [i, j], "value": v} for i, j, v in A.weakest_cells(grid)],
            }
        doc["adaptation"] = A.adaptation(run.results)
        doc["complete"] = all(su["complete"] for su in doc["suites"].values())
        agents.append(doc)
    bench.summary = {
        "format": "hanabi-adhoc/benchmark-report",
        "version": 1,
        "configuration": _configuration(bench),
        "agents": agents,
    }
    return bench.summary


def _sizes_of(suite, played: set[int]) -> dict:
    """The game sizes of ``suite``, those the agent played, and whether it played them all."""
    sizes = sorted({p for g in suite.groups for p in g.players})
    mine = [p for p in sizes if p in played]
    return {"sizes": sizes, "sizes_played": mine, "complete": mine == sizes}


def _sizes(bench: Benchmark) -> str:
    """Players and hand sizes in words (:func:`hanabi_env.config.hand_size_words`)."""
    hs = bench.options["hand_size"]
    sizes = sorted({p for s in bench.suites for g in s.groups for p in g.players})
    if bench.options["players"]:
        sizes = [p for p in sizes if p in bench.options["players"]]
    words = hand_size_words({p: game_hand_size(p, hs) for p in sizes})
    return f"Players {', '.join(map(str, sizes))}; {words}"


def _ci(agg: dict) -> str:
    v, lo, hi = agg["value"], agg["low"], agg["high"]
    if v is None or not math.isfinite(v):
        return "n/a"
    return f"{v:.3f} [{lo:.3f}, {hi:.3f}]" if abs(v) <= 1.5 else f"{v:.2f} [{lo:.2f}, {hi:.2f}]"


def _cell_name(fam: dict, cell) -> str:
    from qd.plot import cell_label

    return cell_label(list(cell), fam["grid"])


def _figures(bench: Benchmark, folder: OutputFolder) -> list[tuple[str, str]]:
    """Write the figures; ``(file, caption)`` pairs for summary.md (none without matplotlib)."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        return []
    from hanabi_adhoc.benchmark import figures as F

    groups = {g.name: g for s in bench.suites for g in s.groups}
    made = []
    entries = [
        (a["label"], g, agg)
        for a in bench.summary["agents"]
        for s in a["suites"].values()
        for g, agg in s["groups"].items()
    ]
    if entries:
        _png(folder, "figures/groups.png", F.plot_groups(entries))
        made.append(
            (
                "figures/groups.png",
                "Interquartile mean of the normalised score "
                "min(1, R/R_BR) over each group's partners, with its 95% stratified "
                "bootstrap CI, per agent.",
            )
        )
    for run in bench.runs:
        rows = [r for r in bench.rows if r["agent"] == run.label]
        rows = [{**r, "partner": r["partner"].split("/", 1)[1]} for r in rows]
        seen = set()
        for fam, grid in A.niche_grids(rows, groups).items():
            if fam in seen:
                continue
            seen.add(fam)
            name = f"figures/niche-{run.slug}-{fam}.png"
            _png(
                folder,
                name,
                F.plot_niches(grid, f"{run.label} with {fam} ({', '.join(grid['groups'])})"),
            )
            made.append(
                (
                    name,
                    f"{run.label} with the partners of {fam} by niche "
                    "(communicativeness × IPP of the partner's cell; runs averaged): its "
                    "score, its normalised score, and the partner's own self-play score.",
                )
            )
    docs = bench.summary["agents"]
    if any(a["episodic"] for a in docs):
        curves = {a["label"]: A.pooled_curve(a["adaptation"]) for a in docs}
        episodic = [a["label"] for a in docs if a["episodic"]]
        _png(folder, "figures/adaptation.png", F.plot_adaptation(curves, episodic))
        made.append(
            (
                "figures/adaptation.png",
                "Adaptation: mean score by game of an episode with one partner (2-player groups "
                "pooled). Game i of every episode is the same deal for every agent, so the deals' "
                "difficulty moves every curve alike: the right panel subtracts the mean curve of "
                "the agents that keep no memory between games and starts at 0 at game 1, "
                "leaving what the memory gains or loses over an episode.",
            )
        )
    return made


def _md_configuration(bench: Benchmark) -> list[str]:
    conf = bench.summary["configuration"]
    lines = ["# Ad-hoc teamwork benchmark", ""]
    if conf["partial"]:
        lines += [
            "**Partial run** (a subset of deals or game sizes): not comparable with full "
            "runs, not on the leaderboard.",
            "",
        ]
    for a in bench.summary["agents"]:
        short = {k: su for k, su in a["suites"].items() if not su["complete"]}
        if short and not conf["partial"]:
            lines += [f"**{a['label']} played a partial run**: {partial_words(a, short)}.", ""]
    lines += [
        "## Configuration",
        "",
        f"Suites: {conf['benchmark']['words']}. {_sizes(bench)}. Seats: {conf['seats']}. "
        f"Deals: {conf['deals']}. Every agent played the same deals.",
        "",
        "| suite | group | players | ruleset | scoring | partners | deals | seed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for su in conf["suites"]:
        for g in su["groups"]:
            lines.append(
                f"| {su['suite']} (sha256 {su['sha256'][:12]}) | {g['name']} | "
                f"{','.join(map(str, g['players']))} | {g['ruleset']} | {g['scoring']} | "
                f"{g['partners']} | {g['episodes']}×{g['games']} | {g['seed']} |"
            )
    for a in bench.summary["agents"]:
        o = a["options"]
        lines.append(
            f"\n- {a['label']}: {a['spec'] or 'a policy object'}; rule agents named here play "
            f"the {o['ruleset']} ruleset; agent seed {o['seed']}; identity "
            f"{(a.get('identity') or {}).get('sha256', '')[:12]} ({_made_of(a)})."
        )
    return lines


def partial_words(agent: dict, short: dict) -> str:
    """Which sizes an agent played of each suite it did not play whole, and what that means.

    Args:
        agent: The agent's summary (``summary["agents"][i]``).
        short: Its suites' summaries that are not complete, by suite key.
    """
    refused = {p: w for p, w in agent["players"].items() if w != "yes"}
    why = "; ".join(f"{p} players: {w}" for p, w in refused.items())
    played = ", ".join(
        f"{_csv_sizes(su['sizes_played']) or 'none'} of {_csv_sizes(su['sizes'])} players in {key}"
        for key, su in short.items()
    )
    return (
        f"it played {played} (refused {why or 'nothing'}); the leaderboard ranks it only "
        "among runs that played the same sizes"
    )


def _csv_sizes(sizes) -> str:
    return ",".join(map(str, sizes))


def _made_of(agent: dict) -> str:
    """What an agent's identity hashed, in words (docs/benchmark.md §1)."""
    ident = agent.get("identity") or {}
    files = [Path(f["path"]).name for f in ident.get("files", [])]
    if files:
        more = f" and {len(files) - 3} more" if len(files) > 3 else ""
        return "files " + ", ".join(files[:3]) + more
    if ident.get("version"):
        return f"the spec and toolkit version {ident['version']}"
    return "no file found"


def _md_results(s: dict) -> list[str]:
    lines: list[str] = []
    lines += [
        "",
        "## Results",
        "",
        "Normalised score min(1, R / R_BR) per partner (R_BR: the "
        "best known response, shipped with the suite), aggregated over partners with "
        "stratified bootstrap 95% CIs; score in points (docs/benchmark.md §4).",
        "",
        "| agent | suite | sizes played | partners × sizes | normalised IQM [95% CI] | "
        "normalised mean | mean score |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in s["agents"]:
        for key, su in a["suites"].items():
            al = su["all"]
            played = _csv_sizes(su["sizes_played"]) or "none"
            mark = "" if su["complete"] else f" of {_csv_sizes(su['sizes'])} (partial)"
            lines.append(
                f"| {a['label']} | {key} | {played}{mark} | {al['units']} | "
                f"{_ci(al['normalised_iqm'])} | {_ci(al['normalised_mean'])} | "
                f"{_ci(al['score_mean'])} |"
            )
    lines += [
        "",
        "Per group:",
        "",
        "| agent | group | partners × sizes | normalised IQM [95% CI] | mean score |",
        "|---|---|---|---|---|",
    ]
    done = set()
    for a in s["agents"]:
        for su in a["suites"].values():
            for g, agg in su["groups"].items():
                if (a["label"], g) not in done:
                    done.add((a["label"], g))
                    lines.append(
                        f"| {a['label']} | {g} | {agg['units']} | "
                        f"{_ci(agg['normalised_iqm'])} | {_ci(agg['score_mean'])} |"
                    )
    lines += [
        "",
        "By game size (suites with several):",
        "",
        "| agent | suite | players | normalised mean [95% CI] | mean score |",
        "|---|---|---|---|---|",
    ]
    for a in s["agents"]:
        for key, su in a["suites"].items():
            if len(su["players"]) > 1:
                for p, agg in su["players"].items():
                    lines.append(
                        f"| {a['label']} | {key} | {p} | "
                        f"{_ci(agg['normalised_mean'])} | {_ci(agg['score_mean'])} |"
                    )
    return [*lines, *_md_seats(s)]


def _md_seats(s: dict) -> list[str]:
    """By the agent's seat: means over every group's partners (``seats.csv`` per group)."""
    lines = [
        "",
        "By seat (mean over the partners of every group; per group in `seats.csv`):",
        "",
        "| agent | players | seat | partners × groups | mean score | normalised |",
        "|---|---|---|---|---|---|",
    ]
    for a in s["agents"]:
        cells: dict[tuple[int, int], list[dict]] = {}
        for r in a["seats"]:
            cells.setdefault((r["players"], r["seat"]), []).append(r)
        for (p, seat), rs in sorted(cells.items()):
            n = sum(r["partners"] for r in rs)
            score = sum(r["mean_score"] * r["partners"] for r in rs) / n
            norm = [(r["normalised"], r["partners"]) for r in rs if math.isfinite(r["normalised"])]
            w = sum(k for _, k in norm)
            lines.append(
                f"| {a['label']} | {p} | {seat} | {n} | {score:.2f} | "
                f"{_f(sum(v * k for v, k in norm) / w if w else math.nan)} |"
            )
    return lines


def _md_self_play(s: dict) -> list[str]:
    """The agents' own self-play scores, per game size (every group's deals pooled)."""
    lines = [
        "",
        "## The agents' self-play",
        "",
        "Every seat the agent, on the deals of every group it played at that size; score in "
        "points, mean ± s.e.m. over the games.",
        "",
        "| agent | players | games | self-play score |",
        "|---|---|---|---|",
    ]
    for a in s["agents"]:
        for p, st in a["self_play"].items():
            lines.append(f"| {a['label']} | {p} | {st['games']} | {pm(st)} |")
    return lines


def pm(stat: dict) -> str:
    """``mean ± s.e.m.`` of a :func:`~hanabi_adhoc.benchmark.aggregate.self_play` entry."""
    m, e = stat["mean_score"], stat["sem"]
    if m is None or not math.isfinite(m):
        return "n/a"
    return f"{m:.2f} ± {e:.2f}" if e is not None and math.isfinite(e) else f"{m:.2f}"


def _md_behaviour(s: dict) -> list[str]:
    lines: list[str] = []
    lines += [
        "",
        "## The agents' behaviour",
        "",
        "Self-play (every seat the agent) and with the "
        "partners (its seats only); ratios of sums (docs/rules.md §5).",
        "",
        "| agent | where | players | communicativeness | IPP | risk aversion |",
        "|---|---|---|---|---|---|",
    ]
    for a in s["agents"]:
        b = a["behaviour"]
        for where, per in [("self-play", b["self_play"]), *b["with_partners"].items()]:
            for p, m in per.items():
                lines.append(
                    f"| {a['label']} | {where} | {p} | {_f(m['communicativeness'])} | "
                    f"{_f(m['ipp'])} | {_f(m['risk_aversion'])} |"
                )
    lines.append("")
    for a in s["agents"]:
        lines += _notes(a)
    return lines


def _markdown(bench: Benchmark, figures: list[tuple[str, str]]) -> str:
    s = bench.summary
    lines = [*_md_configuration(bench), *_md_results(s), *_md_self_play(s), *_md_behaviour(s)]
    if figures:
        lines += ["", "## Figures", ""]
        for name, caption in figures:
            lines += [f"![{caption}]({name})", "", f"*{caption}*", ""]
    lines += [
        "",
        "## Files",
        "",
        "- `per_partner.csv`: one row per agent, suite, partner, game "
        "size and seat (`all` = every seat): games, mean_score, sem, normalised, br, the "
        "partner's self-play score, behaviour.",
        "- `seats.csv`: the per-seat breakdown.",
        "- `summary.json`: this summary, machine-readable.",
        "- `agents/<slug>/games/"
        "*.npz`: every game (the raw table every number here is computed from).",
        "- `leaderboard.csv`: every full run in this folder, per suite version.",
    ]
    return "\n".join(lines) + "\n"


def _notes(a: dict) -> list[str]:
    """One agent's sentences: its self-play cell, weakest niches, replies, sizes not played."""
    out = []
    cells = ", ".join(f"{k} {v}" for k, v in a["behaviour"]["cell"].items() if v is not None)
    out.append(
        f"- {a['label']}: its 2-player self-play falls in cell {cells or 'n/a'} "
        "(communicativeness bin, IPP bin)."
    )
    for fam, n in a["niches"].items():
        weak = "; ".join(f"{_cell_name(n, w['cell'])} ({w['value']:.2f})" for w in n["weakest"])
        out.append(f"- {a['label']}: weakest niches with {fam}: {weak}.")
    if a["replies"]:
        r = a["replies"]
        out.append(
            f"- {a['label']}: {r['replies']} replies, {r['unparsable']} unparsable, "
            f"{r['illegal']} illegal, {r['fallbacks']} fallback moves."
        )
    skipped = {p: w for p, w in a["players"].items() if w != "yes"}
    if skipped:
        out.append(
            f"- {a['label']} does not play "
            + "; ".join(f"{p} players ({w})" for p, w in skipped.items())
            + "."
        )
    return out


def _f(x) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.3f}"


def _png(folder: OutputFolder, name: str, data: bytes) -> None:
    folder.write_bytes(name, data, stage="report")


def check_leaderboard(path: str | Path) -> None:
    """Refuse a leaderboard file outside the report folder that is not a leaderboard.

    A file of the user's named by ``--leaderboard`` would be rewritten with the leaderboard's
    columns only: it is refused (before any game) unless it is missing, or a CSV whose header
    holds the leaderboard's key columns (one written by the toolkit).

    Raises:
        ValueError: ``path`` exists and is not a leaderboard CSV (the message names it).
    """
    path = Path(path)
    if not path.exists():
        return
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            header = fh.readline().strip().split(",")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"leaderboard {path} cannot be read ({err})") from None
    need = {"agent", "spec", "suite", "suite_sha256", "agent_seed", "normalised_iqm"}
    if not path.is_file() or not need <= set(header):
        raise ValueError(
            f"leaderboard {path} exists and is not a leaderboard CSV (its header lacks "
            f"{', '.join(sorted(need - set(header))) or 'nothing: not a file'}); it would be "
            "overwritten: name a new file or an existing leaderboard"
        )


def _leaderboard(bench: Benchmark, folder: OutputFolder, path: Path) -> None:
    inside = path.resolve().is_relative_to(folder.path.resolve())
    old = []
    if not inside or folder.verify(str(path.resolve().relative_to(folder.path.resolve()))):
        old = read_csv(path)
    new = []
    today = datetime.date.today().isoformat()
    sha = {s.key: s.sha256 for s in bench.suites}
    for a in bench.summary["agents"]:
        for key, su in a["suites"].items():
            al = su["all"]
            new.append(
                {
                    "agent": a["label"],
                    "spec": a["spec"] or "",
                    "agent_sha256": (a.get("identity") or {}).get("sha256", ""),
                    "suite": key,
                    "suite_sha256": sha[key],
                    "agent_seed": a["options"]["seed"],
                    "ruleset": a["options"]["ruleset"],
                    "hand_size": a["options"]["hand_size"] or "rulebook",
                    "normalised_iqm": al["normalised_iqm"]["value"],
                    "iqm_low": al["normalised_iqm"]["low"],
                    "iqm_high": al["normalised_iqm"]["high"],
                    "normalised_mean": al["normalised_mean"]["value"],
                    "mean_low": al["normalised_mean"]["low"],
                    "mean_high": al["normalised_mean"]["high"],
                    "mean_score": al["score_mean"]["value"],
                    "units": al["units"],
                    "sizes_played": _csv_sizes(su["sizes_played"]),
                    "complete": su["complete"],
                    "date": today,
                }
            )
    key = ("agent", "spec", "suite", "suite_sha256", "agent_seed", "ruleset", "hand_size")
    fresh = {tuple(str(r[k]) for k in key) for r in new}
    rows = [r for r in old if tuple(str(r.get(k, "")) for k in key) not in fresh] + new
    write_csv_file(folder, path, LEADERBOARD_FIELDS, ranked(rows))


def ranked(rows: list[dict]) -> list[dict]:
    """Leaderboard rows ranked within their suite version and the game sizes they played.

    A run that skipped some of a suite's game sizes (an agent that refuses them) is not ranked
    beside runs that played them all: rows are ranked by normalised IQM among the rows of the
    same ``suite``, ``suite_sha256`` and ``sizes_played`` (``rank``, and ``ranked_among`` in
    words); full runs come first in each suite. Rows of a leaderboard written before these
    columns existed have no ``sizes_played`` and are ranked among themselves.

    Args:
        rows: Leaderboard rows (:data:`LEADERBOARD_FIELDS`; missing fields are filled).

    Returns:
        The rows in order, each with every field of :data:`LEADERBOARD_FIELDS`.
    """

    def iqm(r) -> float:
        v = r.get("normalised_iqm")
        v = float(v) if v not in ("", None) else math.nan
        return v if math.isfinite(v) else -1.0

    def full(r) -> int:
        return 0 if str(r.get("complete")) == "True" else 1 if r.get("sizes_played") else 2

    def order(r):
        return (str(r["suite"]), full(r), str(r.get("sizes_played", "")), -iqm(r), str(r["agent"]))

    out = []
    counts: dict[tuple, int] = {}
    for r in sorted(rows, key=order):
        r = {f: r.get(f, "") for f in LEADERBOARD_FIELDS}
        pool = (r["suite"], r["suite_sha256"], str(r["sizes_played"]))
        counts[pool] = counts.get(pool, 0) + 1
        r["rank"] = counts[pool]
        if full(r) == 0:
            r["ranked_among"] = f"full runs of {r['suite']} (every game size)"
        elif full(r) == 1:
            r["ranked_among"] = (
                f"partial runs of {r['suite']} that played {r['sizes_played']} players only "
                "(the agent refused the other sizes; not comparable with full runs)"
            )
        else:
            r["ranked_among"] = f"runs of {r['suite']} recorded without their game sizes"
        out.append(r)
    return out


def write_report(
    bench: Benchmark, folder: OutputFolder, leaderboard: str | Path | None = None
) -> Path:
    """Write the report of a summarised :class:`Benchmark` into its (entered) report folder.

    Files: ``per_partner.csv`` (:data:`PER_PARTNER_FIELDS`), ``seats.csv``, ``summary.json``,
    ``summary.md`` with captioned ``figures/*.png``, and (full runs only) the leaderboard
    ``leaderboard.csv`` (or ``leaderboard``, locked while it is rewritten), where each agent's
    row per suite version replaces its previous one.

    Args:
        bench: The benchmark, summarised (:func:`summarise`).
        folder: The report folder (:func:`hanabi_adhoc.benchmark.files.open_folder`).
        leaderboard: Another leaderboard file than the folder's.

    Returns:
        The path of ``summary.md``.
    """
    folder.write_csv("per_partner.csv", PER_PARTNER_FIELDS, bench.rows, stage="report")
    seats = [{**r, "agent": a["label"]} for a in bench.summary["agents"] for r in a["seats"]]
    fields = ("agent", "group", "players", "seat", "partners", "mean_score", "normalised")
    folder.write_csv("seats.csv", fields, seats, stage="report")
    folder.write_json("summary.json", bench.summary, stage="report")
    figures = _figures(bench, folder)
    path = folder.write_text("summary.md", _markdown(bench, figures), stage="report")
    if not bench.partial:
        board = Path(leaderboard) if leaderboard else folder.file("leaderboard.csv")
        _leaderboard(bench, folder, board)
    return path
