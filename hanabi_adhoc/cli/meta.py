"""The meta-agent commands of ``hanabi-adhoc``: ``meta-table`` and ``meta-eval``.

Pools are given as SOURCE strings (:func:`meta.pools.load_pool`): ``5x5``/``20x20``/a population
JSON path or a MAP-Elites run directory (its elites, ids ``"[i,j]"``; docs/rules.md §9.1), or
``baselines:NAME,NAME,...`` (baseline agents, docs/rules.md §4), ``rl:NAME,...``/``rl:all``
(the shipped RL partners, docs/rl_partners.md), or ``policy:SPEC`` (one policy of any agent
spec, e.g. your own ``policy:my_agents.py:MyPolicy``). Elites of a partner population
other than H get ids ``"E[i,j]"``, so that the Oracle uses I(R, E) for them.

``meta-eval`` evaluates the Bayesian variants of [Bayes21] and, on request
(``--variants ...,response-adaptive,response-oracle``), the response-table agent of [ToG20]
(:mod:`meta.response`); it prints tables (``--json``: JSON) of mean ± s.e.m., Welch's t-tests
and the niche-estimate MAE (partner behaviour observed vs self-play), and ``--figures DIR``
writes the figures of :mod:`meta.plot`. Presets (``--config``): ``quick`` (minutes on 2 cores)
and ``paper`` ([Bayes21]: n_train = 400, k = 200 episodes of g = 10 games).

**Ruleset** (``--ruleset``, docs/rules.md §12): every agent of every pool plays in one ruleset,
``corrected`` or ``reference`` (the papers' Java agents, bug for bug). Without the option the
ruleset is the one the pools record (:func:`meta.pools.recorded_ruleset`: a MAP-Elites run of this
toolkit records its ruleset in its archive's binning), else ``corrected``, the toolkit's
default, also for the published ``5x5``/``20x20`` populations (which the papers' Java code
made: ``--ruleset reference`` replays them as the papers ran them). Pools that record
different rulesets need ``--ruleset``. The command prints the ruleset it uses and why (one
``ruleset:`` line on stderr) and keeps it beside each response table (``TABLE.ruleset``; a
table without one was made in the corrected ruleset): resuming a table made in another ruleset
is refused.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

from agents.backend import default_workers
from agents.reference import RULESETS
from hanabi_adhoc.cli.options import ADOPT_HELP, SEED_HELP, WAIT_HELP, add_command, positive_int
from hanabi_adhoc.warmup import ensure_compiled
from meta.pools import load_pool, named_source, recorded_ruleset, resolve_ruleset
from qd.io import load_archive_source

__all__ = ["CONFIGS", "add_subcommands"]

CONFIGS = {
    "quick": {"train_games": 50, "episodes": 5, "games": 10},
    "paper": {"train_games": 400, "episodes": 200, "games": 10},
}
"""Presets of ``meta-eval`` (``--train-games``, ``--episodes``, ``--games`` override them)."""


def _bar(total: int, desc: str):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="game")


def _error(err: Exception) -> int:
    """Report a user error in one line (exit code 2)."""
    msg = err.args[0] if isinstance(err, KeyError) and err.args else err
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _pool_option(option: str, source: str, prefix: str = "", ruleset: str = "corrected"):
    """:func:`load_pool` with its errors as one-line usage errors naming ``option``."""
    _recorded_option(option, source)
    with _source_errors(option, source):
        return load_pool(source, prefix=prefix, ruleset=ruleset)


@contextlib.contextmanager
def _source_errors(option: str, source: str):
    """Turn the errors of reading a pool SOURCE into one-line usage errors naming ``option``."""
    from hanabi_adhoc.cli.options import OptionError

    try:
        yield
    except OptionError:
        raise
    except FileNotFoundError as err:
        raise OptionError(option, str(err)) from None
    except KeyError as err:
        raise OptionError(option, str(err.args[0] if err.args else err)) from None
    except (ValueError, TypeError, IndexError, AttributeError, OSError, ImportError) as err:
        raise OptionError(option, f"{source}: not a pool ({err})") from None


def _policy_identities(sources) -> dict:
    """``{"policy_sha256": {SOURCE: sha256}}`` for ``policy:SPEC`` sources, else ``{}``.

    Binds a folder's tables to the code or model file of the policies they were played with
    (:func:`agents.identity.agent_identity`): an edited ``policy:my.py:Mine`` is another config,
    refused on resume as any changed setting is. Folders without such a source keep their config.
    """
    from agents.identity import agent_identity

    found = {}
    for source in sources:
        text = str(source).strip()
        if text.lower().startswith("policy:"):
            found[text] = agent_identity(text.partition(":")[2].strip())["sha256"]
    return {"policy_sha256": found} if found else {}


def _recorded_option(option: str, source: str) -> str | None:
    """:func:`recorded_ruleset` of a checked SOURCE, errors as usage errors naming ``option``."""
    from hanabi_adhoc.cli.options import OptionError, check_archive

    if not str(source).strip():
        raise OptionError(option, "an empty SOURCE is not allowed")
    if named_source(source):
        return None
    with _source_errors(option, source):
        check_archive(option, load_archive_source(source), source)
        return recorded_ruleset(source)


def _ruleset_option(args, sources: dict[str, str]) -> tuple[str, str, list[str]]:
    """:func:`resolve_ruleset` of the pool options ``sources`` (option → SOURCE)."""
    from hanabi_adhoc.cli.options import OptionError

    recorded = {opt: _recorded_option(opt, src) for opt, src in sources.items()}
    try:
        return resolve_ruleset(args.ruleset, recorded)
    except ValueError as err:
        raise OptionError("--ruleset", str(err)) from None


def _say_ruleset(ruleset: str, why: str, notes: list[str]) -> None:
    """The ruleset line of a meta command (stderr: stdout holds its JSON result)."""
    print(f"ruleset: {ruleset} ({why})", file=sys.stderr)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)


def ruleset_file(table: Path) -> Path:
    """Where the ruleset of a response table file is kept: ``TABLE.ruleset``."""
    return table.with_name(table.name + ".ruleset")


def _table_ruleset(table: Path) -> str:
    """The ruleset a table file was made in (no ``.ruleset`` file: ``corrected``)."""
    path = ruleset_file(table)
    return path.read_text().strip() if path.is_file() else "corrected"


def _mark_ruleset(table: Path, ruleset: str, folder=None) -> None:
    """Record ``ruleset`` beside a table before any of its rows is written.

    Through ``folder`` (an open :class:`~hanabi_env.outputs.OutputFolder` holding the table)
    when given, else atomically on its own.
    """
    from hanabi_env.outputs import atomic_write_text

    if ruleset_file(table).is_file() and _table_ruleset(table) == ruleset:
        return
    if folder is None:
        atomic_write_text(ruleset_file(table), ruleset + "\n")
    else:
        folder.write_text(ruleset_file(table).name, ruleset + "\n", stage="response tables")


def _only_tables(out: Path) -> bool:
    """Whether ``out`` has no manifest and holds only response tables (``meta-table --out``).

    Such a folder is the toolkit's own (a table's header names its settings, checked by
    :func:`_check_table_file`): ``meta-eval`` resumes it without ``--adopt``.
    """
    if not out.is_dir() or (out / "manifest.json").exists():
        return False
    tables = {"table.csv", "oracle_table.csv"}
    names = {p.name for p in out.iterdir() if not p.name.startswith(".")}
    return bool(names) and names <= tables | {ruleset_file(Path(t)).name for t in tables}


def _check_table_file(
    option: str, path: Path, games: int, seed: int, ruleset: str = "corrected"
) -> None:
    """An existing table file to resume is a response table made with these settings."""
    from hanabi_adhoc.cli.options import OptionError
    from meta.table import TableFileError, read_table_rows

    if not path.is_file() or path.stat().st_size == 0:
        return
    try:
        rows, _ = read_table_rows(path, exact_header=True)
        made = _table_ruleset(path)
    except (TableFileError, OSError) as err:
        raise OptionError(option, str(err)) from None
    for row in rows:
        if (int(row["games"]), int(row["seed"])) != (games, seed):
            raise OptionError(
                option,
                f"{path} holds a table made with games={row['games']}, seed={row['seed']}, not "
                f"--train-games {games} --seed {seed}; use another path or those settings",
            )
    if rows and made != ruleset:
        raise OptionError(
            option,
            f"{path} holds a table made in the {made} ruleset, not {ruleset} (see "
            f"{ruleset_file(path).name}); use another path or --ruleset {made}",
        )


def _table(args) -> int:
    from hanabi_adhoc.cli.options import check_out_file
    from hanabi_env.outputs import file_lock

    check_out_file("--out", args.out)
    h_opt = "--hypotheses" if args.hypotheses else "--responses"
    ruleset, why, notes = _ruleset_option(
        args, {"--responses": args.responses, h_opt: args.hypotheses or args.responses}
    )
    _check_table_file("--out", Path(args.out), args.train_games, args.seed, ruleset)
    r, r_ids = _pool_option("--responses", args.responses, ruleset=ruleset)
    h, h_ids = _pool_option(h_opt, args.hypotheses or args.responses, ruleset=ruleset)
    args.workers = args.workers or default_workers()
    out = Path(args.out)
    ensure_compiled(("rule games",))
    with file_lock(out, wait=args.wait):  # every writer of this table file takes it
        _check_table_file("--out", out, args.train_games, args.seed, ruleset)
        _say_ruleset(ruleset, why, notes)
        _mark_ruleset(out, ruleset)
        t = _build_table_file(args, out, (r, r_ids), (h, h_ids))
    doc = {
        "table": str(out),
        "generalist": t.response_ids[t.generalist()],
        "shape": t.shape,
        "ruleset": ruleset,
    }
    if args.json:
        print(json.dumps(doc))
    else:
        print(
            f"response table {out}: {t.shape[0]} responses x {t.shape[1]} hypotheses, "
            f"{args.train_games} games per pair, {ruleset} ruleset; Generalist (best response "
            f"to the uniform belief): {doc['generalist']}"
        )
    return 0


def _build_table_file(args, out: Path, rp, hp):
    """``meta-table``'s I(R, H) in the CSV file ``out`` (resumed; its lock is held)."""
    from meta.table import build_table

    (r, r_ids), (h, h_ids) = rp, hp
    bar = _bar(len(r) * len(h) * args.train_games, "meta table")
    backend = _backend(args)
    try:
        return build_table(
            r,
            h,
            args.train_games,
            args.seed,
            r_ids,
            h_ids,
            path=out,
            workers=args.workers,
            progress=bar.update,
            backend=backend,
        )
    finally:
        bar.close()
        if backend is not None:
            backend.close()


def _variants_option(text: str) -> list[str]:
    """``--variants``: a comma-separated subset of the meta-agent variants, each once."""
    from hanabi_adhoc.cli.options import OptionError
    from meta.evaluate import ALL_VARIANTS

    variants = [v.strip() for v in text.split(",")]
    unknown = [v for v in variants if v not in ALL_VARIANTS]
    if unknown:
        raise OptionError(
            "--variants",
            f"{unknown[0]!r} is not a variant; allowed: a comma-separated subset of "
            + ", ".join(ALL_VARIANTS),
        )
    repeated = sorted({v for v in variants if variants.count(v) > 1})
    if repeated:
        raise OptionError("--variants", f"{repeated[0]!r} is listed twice")
    return variants


def _evaluate(args, folder, train: int, pools: tuple, ruleset: str, h_src: str, plan: dict):
    """``meta-eval``'s tables and evaluation, in ``folder`` (open): ``(result, table)``."""
    from meta.evaluate import evaluate_meta, self_play_measures

    (r, r_ids), (h, h_ids), (e, e_ids) = pools
    backend = _backend(args)
    try:
        table, oracle = _tables(
            args, folder, train, (r, r_ids), (h, h_ids), (e, e_ids), ruleset, backend
        )
        dims: tuple[int, ...] = (5, 5)
        if not named_source(h_src):
            dims = tuple(load_archive_source(h_src).dims)
        self_play = None
        if args.self_play_games > 0:
            self_play = self_play_measures(
                e, args.self_play_games, args.seed, workers=args.workers, backend=backend
            )
        res = evaluate_meta(
            table,
            r,
            e,
            e_ids,
            variants=plan["variants"],
            episodes=plan["episodes"],
            games=plan["games"],
            seed=args.seed,
            oracle_table=oracle,
            workers=args.workers,
            progress=True,
            niche_dims=dims,
            response_threshold=args.response_threshold,
            empty_niche=args.empty_niche,
            self_play=self_play,
            backend=backend,
        )
    finally:
        if backend is not None:
            backend.close()
    return res, table


def _eval(args) -> int:
    from hanabi_adhoc.cli.options import check_out_dir
    from hanabi_env.outputs import OutputFolder

    preset = CONFIGS[args.config]  # --train-games, --episodes, --games override the preset
    train = preset["train_games"] if args.train_games is None else args.train_games
    episodes = preset["episodes"] if args.episodes is None else args.episodes
    games = preset["games"] if args.games is None else args.games
    variants = _variants_option(args.variants)
    check_out_dir("--out", args.out)
    check_out_dir("--figures", args.figures)
    if args.figures:
        from hanabi_adhoc.cli.options import require_extra

        require_extra("--figures", "qd")
    h_src = args.hypotheses or args.responses
    e_src = args.partners or h_src
    h_opt = "--hypotheses" if args.hypotheses else "--responses"
    e_opt = "--partners" if args.partners else h_opt
    ruleset, why, notes = _ruleset_option(
        args, {"--responses": args.responses, h_opt: h_src, e_opt: e_src}
    )
    for name in ("table.csv", "oracle_table.csv"):
        _check_table_file("--out", Path(args.out) / name, train, args.seed, ruleset)
    adopt = args.adopt or _only_tables(Path(args.out))
    # elites of another population share cell ids with H's elites: keep them apart
    e_prefix = "E" if e_src != h_src and not named_source(e_src) else ""
    r, r_ids = _pool_option("--responses", args.responses, ruleset=ruleset)
    h, h_ids = _pool_option(h_opt, h_src, ruleset=ruleset)
    e, e_ids = _pool_option(e_opt, e_src, prefix=e_prefix, ruleset=ruleset)
    args.workers = args.workers or default_workers()
    tables = {"responses": args.responses, "hypotheses": h_src, "partners": e_src,
              "ruleset": ruleset, "train_games": train}  # fmt: skip
    tables.update(_policy_identities((args.responses, h_src, e_src)))
    plan = {"variants": variants, "episodes": episodes, "games": games,
            "response_threshold": args.response_threshold, "empty_niche": args.empty_niche,
            "self_play_games": args.self_play_games}  # fmt: skip
    with OutputFolder(args.out, kind="meta-eval", config=tables, seed=args.seed,
                      wait=args.wait, adopt=adopt) as folder:  # fmt: skip
        ensure_compiled(("rule games", "meta"))
        _say_ruleset(ruleset, why, notes)
        pools = ((r, r_ids), (h, h_ids), (e, e_ids))
        res, table = _evaluate(args, folder, train, pools, ruleset, h_src, plan)
        doc = {**res.to_dict(), "ruleset": ruleset}
        with folder.staged("games.csv", stage="evaluation", config=plan) as tmp:
            res.to_csv(tmp)
        with folder.staged("observed.csv", stage="evaluation", config=plan) as tmp:
            res.observed_to_csv(tmp)
        folder.write_json("evaluation.json", doc, stage="evaluation", config=plan)
        figures = _figure_folder(args, folder, {**tables, **plan}, res, table)
    report = {
        "ruleset": ruleset,
        "summary": {v: {k: s[k] for k in ("mean", "sem")} for v, s in doc["summary"].items()},
        "ttests": doc["ttests"],
        "niche_mae": doc["niche_mae"],
    }
    if figures is not None:
        report["figures"] = [str(p) for p in figures]
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        _print_evaluation(report, len(e), episodes, games, Path(args.out))
    return 0


def _print_evaluation(report: dict, partners: int, episodes: int, games: int, out: Path) -> None:
    """``meta-eval``'s tables: scores per variant, the t-tests, the niche-estimate errors."""
    from hanabi_adhoc.cli.table import fmt, print_table

    print(
        f"meta-agent evaluation, {report['ruleset']} ruleset: {partners} partners x {episodes} "
        f"episodes x {games} games per variant"
    )
    print_table(
        ["variant", "mean", "s.e.m."],
        [[v, s["mean"], s["sem"]] for v, s in report["summary"].items()],
        legend=["mean = mean episode score (points, 0-25) over every partner's episodes"],
    )
    print()
    print_table(
        ["Welch's t-test", "difference", "t", "p"],
        [
            [k.replace("_vs_", " - "), fmt(t["mean_diff"], "+.2f"), t["t"], fmt(t["p"], ".2g")]
            for k, t in report["ttests"].items()
        ],
        legend=["difference = first variant's mean minus the second's (points); p uncorrected"],
    )
    mae = {v: m for v, m in (report.get("niche_mae") or {}).items() if m}
    if mae:
        print()
        print_table(
            ["niche estimate", "MAE comm", "MAE IPP", "in niche"],
            [
                [v, fmt(m.get("comm"), ".3f"), fmt(m.get("ipp"), ".3f"), m.get("niche_accuracy")]
                for v, m in mae.items()
            ],
            legend=[
                "MAE = mean absolute error of the partner's observed behaviour against "
                "its self-play behaviour ([ToG20]); in niche = share in the same niche"
            ],
        )
    print()
    files = ["evaluation.json", "games.csv", "observed.csv", *report.get("figures", [])]
    print(f"wrote {out}/: " + ", ".join(files[:3]) + "".join(f", {p}" for p in files[3:]))


def _figure_folder(args, folder, settings: dict, res, table) -> list[Path] | None:
    """The ``--figures`` of ``meta-eval``, written through their (locked) folder."""
    if not args.figures:
        return None
    from hanabi_env.outputs import OutputFolder

    if Path(args.figures).resolve() == folder.path.resolve():  # the --out folder itself
        return _figures(res, table, folder)
    with OutputFolder(args.figures, kind="meta-eval-figures", config=settings, seed=args.seed,
                      wait=args.wait, fresh=True) as figures:  # fmt: skip
        return _figures(res, table, figures)


def _backend(args):
    """The Dask backend of ``--scheduler-address``, or None (local workers)."""
    if not getattr(args, "scheduler_address", None):
        return None
    from agents.backend import make_backend

    return make_backend(args.workers, args.scheduler_address)


def _tables(args, folder, train: int, rp, hp, ep, ruleset: str = "corrected", backend=None):
    """I(R, H), and I(R, E) when some partners are not in H (for the Oracle).

    Each table is resumed from its file in ``folder`` (an open OutputFolder): a complete one
    must be the one recorded in its manifest, a partial one is checked row by row
    (:func:`meta.table.build_table`); each is recorded when complete.
    """
    (r, r_ids), (h, h_ids), (e, e_ids) = rp, hp, ep
    bar = _bar(len(r) * len(h) * train, "meta table")
    try:
        table = _folder_table(args, folder, "table.csv", (r, r_ids), (h, h_ids), train,
                              ruleset, bar, backend)  # fmt: skip
        oracle = None
        if set(e_ids) - set(h_ids):
            bar.total += len(r) * len(e) * train
            oracle = _folder_table(args, folder, "oracle_table.csv", (r, r_ids), (e, e_ids),
                                   train, ruleset, bar, backend)  # fmt: skip
    finally:
        bar.close()
    return table, oracle


def _folder_table(args, folder, name: str, rp, hp, train: int, ruleset: str, bar, backend):
    """One response table of ``meta-eval``, built or resumed in ``folder/name``."""
    from meta.table import build_table

    (r, r_ids), (h, h_ids) = rp, hp
    folder.verify(name)
    folder.expect(name, stage="response tables")
    _mark_ruleset(folder.file(name), ruleset, folder)
    table = build_table(
        r, h, train, args.seed, r_ids, h_ids, path=folder.file(name),
        workers=args.workers, progress=bar.update, backend=backend,
    )  # fmt: skip
    folder.record(name)
    return table


def _figures(res, table, folder) -> list[Path]:
    """The meta figures of one evaluation (see :mod:`meta.plot`), written through ``folder``."""
    import numpy as np

    from meta import plot
    from meta.response import parse_cell_id

    def draw(name: str, fn, *a) -> Path:
        with folder.staged(name, stage="figures") as tmp:
            fn(res, tmp, *a)
        return folder.file(name)

    paths = [draw("variant_scores.png", plot.plot_variant_scores)]
    bayes = [v for v in ("adaptive", "generalist", "oracle", "random") if v in res.variants]
    if bayes:
        # the partner for whom knowing it pays most (largest Oracle − Generalist), if in H
        e = 0
        in_h = [table.hypothesis_ids.index(p) for p in res.partner_ids if p in table.hypothesis_ids]
        if in_h:
            gap = table.scores.max(axis=0) - table.scores[table.generalist()]
            best = table.hypothesis_ids[in_h[int(np.argmax(gap[in_h]))]]
            e = res.partner_ids.index(best)
        paths.append(draw("belief.png", plot.plot_belief_evolution, e, bayes[0]))
        try:
            [parse_cell_id(i) for i in res.hypothesis_ids]
        except ValueError:
            pass
        else:
            paths.append(draw("belief_grid.png", plot.plot_belief_grid, e, bayes[0]))
    if res.self_play is not None:
        paths.append(draw("niche.png", plot.plot_niche_estimates, res.variants[0]))
    return paths


SOURCE_HELP = (
    "SOURCE is 5x5 or 20x20 (the published populations), a population or archive JSON, a "
    "MAP-Elites run folder, baselines:NAME,NAME,... (e.g. baselines:piers,iggi,outer), or "
    "rl:NAME,NAME,... / rl:all (the shipped RL partners, docs/rl_partners.md), or policy:SPEC, "
    "one policy of any agent spec, e.g. your own policy:my_agents.py:MyPolicy or "
    "policy:my_package.agents:MyPolicy."
)


def _common_rows() -> tuple:
    """The options ``meta-table`` and ``meta-eval`` share (:func:`add_options` rows)."""
    return (
        ("--responses", "SOURCE", "pool R of responses the meta-agent can play (default 5x5)",
         "5x5"),
        ("--hypotheses", "SOURCE", "pool H of partner hypotheses (default: R)"),
        ("--ruleset", {"choices": RULESETS}, "corrected or reference: every rule agent of every "
         "pool plays with the rules as the papers' Java code ran them, bugs included "
         "(docs/rules.md §12) (default: the ruleset the pools' MAP-Elites run recorded, else "
         "corrected, also for the published 5x5/20x20; the command prints which it uses)"),
        ("--seed", "SEED", SEED_HELP, 0),
        ("--workers", "WORKERS", "local workers, >= 1: threads for rule agents, processes for "
         "other policies (default: all cores; results do not depend on it)"),
        ("--scheduler-address", "ADDRESS", "play the rule agents' games on this Dask cluster, "
         "e.g. tcp://host:8786: response tables, self-play measures and the compiled "
         "meta-agent evaluation (default: local; results are identical)"),
        ("--wait", "FLAG", WAIT_HELP),
    )  # fmt: skip


def _all_variants() -> tuple[str, ...]:
    from meta.evaluate import ALL_VARIANTS

    return ALL_VARIANTS


def add_subcommands(subparsers) -> None:
    """Add ``meta-table`` and ``meta-eval`` to an ``argparse`` subparsers object."""
    add_command(subparsers, "meta-table", _table, None, (
        *_common_rows(),
        ("--train-games", "N", "games per (r, h) pair (default 400, as [Bayes21])", 400),
        ("--out", {"metavar": "CSV"}, "table path; an existing table is resumed (default "
         "runs/meta/table.csv)", "runs/meta/table.csv"),
        ("--json", "FLAG", "print the result as one JSON line instead of a sentence"),
    ), help="offline table I(r, h) (resumable CSV)",
        description="Plays every (response r, hypothesis h) pair and writes the response table "
        "I(r, h) (score, h's communicativeness and IPP) as a resumable CSV. " + SOURCE_HELP,
    )  # fmt: skip
    quick, paper = CONFIGS["quick"], CONFIGS["paper"]
    add_command(subparsers, "meta-eval", _eval, None, (
        *_common_rows(),
        ("--partners", "SOURCE", "pool E of partners (default: H)"),
        ("--adopt", "FLAG", ADOPT_HELP),
        ("--config", {"choices": sorted(CONFIGS)}, "preset of --train-games/--episodes/--games: "
         f"quick = {quick['train_games']}/{quick['episodes']}/{quick['games']}, paper = "
         f"{paper['train_games']}/{paper['episodes']}/{paper['games']} (default quick)",
         "quick"),
        ("--train-games", "N", "games per pair of the response tables (default: from --config)"),
        ("--episodes", {"type": positive_int, "metavar": "K"}, "episodes per partner and "
         "variant (default: from --config)"),
        ("--games", {"type": positive_int, "metavar": "G"}, "games per episode (default: from "
         "--config)"),
        ("--variants", {}, "comma-separated subset of: " + ",".join(_all_variants())
         + " (default adaptive,generalist,oracle,random)", "adaptive,generalist,oracle,random"),
        ("--response-threshold", "N0", "response-adaptive: partner moves observed before "
         "leaving the Generalist (default 0, as [ToG20])", 0),
        ("--empty-niche", {"choices": ("generalist", "nearest")}, "response-* variants: what to "
         "play when the estimated niche has no response (default generalist)", "generalist"),
        ("--self-play-games", "N0", "mirror games per partner for the niche-estimate MAE, 0 = "
         "skip (default 200)", 200),
        ("--figures", "DIR", "write the PNG figures of meta.plot here (default: no figures)"),
        ("--out", "DIR", "output folder: table.csv, evaluation.json, games.csv, observed.csv "
         "(default runs/meta)", "runs/meta"),
        ("--json", "FLAG", "print the results as JSON instead of tables"),
    ), aliases=["meta-evaluate"],
        help="evaluate the meta-agent variants ([Bayes21], [ToG20])",
        description="Builds the response table I(R, H) (and I(R, E) for the Oracle), then "
        "plays K episodes of G games with every partner of E for each variant; writes "
        "OUT/evaluation.json, games.csv, observed.csv and prints tables of mean +- s.e.m., "
        "Welch's t-tests and the niche-estimate MAE (--json: as JSON). " + SOURCE_HELP,
    )  # fmt: skip
