"""Train, resume and export the shipped RL partners (``agents/data/rl_partners``).

Every partner is ``MaskablePPO`` (sb3-contrib) trained in 2-player self-play with lenient
scoring on :class:`agents.sb3.vec_env.HanabiSB3VecEnv` (``num_envs`` games stepped in compiled
kernels), with the settings of :data:`PARTNERS`. Anyone can retrain them with the commands in
docs/rl_partners.md §4::

    python tools/train_rl_partners.py train NAME            # trains, checkpoints, resumes
    python tools/train_rl_partners.py export NAME           # numpy weights + JSON config
    python tools/train_rl_partners.py list                  # the settings of every partner

``train`` writes ``runs/rl_partners/NAME/checkpoint.zip`` (SB3's zip: loading it runs code, so
it is a working file only and never shipped) and ``progress.json`` (steps, wall time, the
training curve) every ``--checkpoint-every`` rollouts, and resumes from them when started again
(the resumed run continues the same schedule; PPO's random state is not restored, so a resumed
run is not bit-identical to an uninterrupted one). ``export`` writes the policy network of the
final model as ``NAME.npz`` (float16 by default, checked to choose the same moves as the SB3
model) and ``NAME.json`` (architecture, observation, game, provenance, self-play score) with
:func:`agents.rl.export.export_partner`.

Source: sb3-contrib's MaskablePPO (https://sb3-contrib.readthedocs.io/en/master/modules/ppo_mask.html).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

GAME = {"players": 2, "scoring": "lenient"}
"""The game every partner is trained in (the papers' 2-player setting, docs/rules.md §6)."""

COMMON = {
    "n_envs": 512,
    "n_steps": 64,
    "batch_size": 4096,
    "n_epochs": 4,
    "learning_rate": 5e-4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.01,
    "net_arch": [256, 256],
    "total_timesteps": 3_000_000,
}
"""Settings shared by the partners unless :data:`PARTNERS` changes them."""

PARTNERS: dict[str, dict] = {
    "ppo-sp1": {
        "seed": 102,
        "description": "Self-play MaskablePPO, 4 epochs of 4096-sample minibatches per rollout, "
        "learning rate 5e-4, entropy 0.01, two tanh layers of 256.",
    },
    "ppo-sp2": {
        "seed": 2,
        "description": "ppo-sp1's settings with another seed: its conventions come from the seed "
        "alone.",
    },
    "ppo-piers": {
        "seed": 11,
        "partners": ["piers"],
        "description": "MaskablePPO trained as the partner of the Piers rule agent (one learner "
        "seat, Piers in the other; HanabiPoolVecEnv), ppo-sp1's PPO settings.",
    },
    "ppo-pool": {
        "seed": 12,
        "partners": ["iggi", "vandenbergh", "outer"],
        "description": "MaskablePPO trained with a pool of rule agents (IGGI, VanDenBergh, "
        "Outer; one drawn per game), ppo-sp1's PPO settings.",
    },
    "ppo-vdb": {
        "seed": 13,
        "partners": ["vandenbergh"],
        "description": "MaskablePPO trained as the partner of the VanDenBergh rule agent (one "
        "learner seat, VanDenBergh in the other; HanabiPoolVecEnv), ppo-sp1's PPO settings.",
    },
    "ppo-piers-sp": {
        "seed": 21,
        "init": "ppo-piers",
        "total_timesteps": 1_500_000,
        "description": "ppo-piers's network trained on in self-play: conventions learned with "
        "Piers, then kept and refined with itself.",
    },
}
"""Each partner's settings (over :data:`COMMON`) and what sets it apart."""


def settings(name: str) -> dict:
    """The full training settings of partner ``name``."""
    if name not in PARTNERS:
        raise SystemExit(f"error: unknown partner {name!r}; known: {', '.join(PARTNERS)}")
    return {**COMMON, **PARTNERS[name]}


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _write_json(path: Path, obj: dict) -> None:
    from hanabi_env.outputs import atomic_write_json

    atomic_write_json(path, obj)


def _write_text(path: Path, text: str) -> None:
    from hanabi_env.outputs import atomic_write_text

    atomic_write_text(path, text)


def _provenance(run: Path) -> dict:
    """Steps, wall and CPU time of a finished run (the start of a fine-tuned partner)."""
    progress = json.loads((run / "progress.json").read_text())
    return {k: progress[k] for k in ("steps", "wall_s", "cpu_s", "commit", "started", "finished")}


def _load_avg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not on every platform
        return []


def _training_env(cfg: dict):
    """Self-play games on the vector env, or one learner seat against a rule-agent pool."""
    if cfg.get("partners"):
        from agents.rl.pool_env import HanabiPoolVecEnv

        return HanabiPoolVecEnv(cfg["n_envs"], cfg["partners"], seed=cfg["seed"], **GAME)
    from agents.sb3.vec_env import HanabiSB3VecEnv

    env = HanabiSB3VecEnv(cfg["n_envs"], observation_dtype="float32", **GAME)
    env.seed(cfg["seed"])
    return env


def train(name: str, out: Path, checkpoint_every: int, threads: int) -> None:
    """Train (or resume) partner ``name`` under ``out/name``."""
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = settings(name)
    run = out / name
    run.mkdir(parents=True, exist_ok=True)
    ckpt, prog_path = run / "checkpoint.zip", run / "progress.json"
    torch.set_num_threads(threads)
    env = _training_env(cfg)
    if ckpt.exists() and prog_path.exists():
        progress = json.loads(prog_path.read_text())
        progress["name"], progress["settings"] = name, cfg
        model = MaskablePPO.load(str(ckpt), env=env, device="cpu")
        print(f"{name}: resuming at {model.num_timesteps} steps", flush=True)
    else:
        progress = {
            "name": name,
            "settings": cfg,
            "game": GAME,
            "commit": _commit(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "wall_s": 0.0,
            "cpu_s": 0.0,
            "curve": [],
            "sessions": [],
        }
        ppo = ("n_steps", "batch_size", "n_epochs", "learning_rate", "gamma", "gae_lambda",
               "clip_range", "ent_coef")  # fmt: skip
        model = MaskablePPO(
            "MlpPolicy",
            env,
            **{key: cfg[key] for key in ppo},
            policy_kwargs={"net_arch": list(cfg["net_arch"])},
            seed=cfg["seed"],
            device="cpu",
            verbose=0,
        )
        if cfg.get("init"):  # start from another partner's trained network
            start = out / cfg["init"] / "final.zip"
            model.policy.load_state_dict(
                MaskablePPO.load(str(start), device="cpu").policy.state_dict()
            )
            progress["init"] = {"from": cfg["init"], **_provenance(out / cfg["init"])}
    progress["sessions"].append(
        {
            "command": " ".join(shlex.quote(a) for a in sys.argv),
            "commit": _commit(),
            "start_steps": int(model.num_timesteps),
            "host": platform.node(),
            "cpus": os.cpu_count(),
            "load_avg_start": _load_avg(),
        }
    )

    class Checkpoint(BaseCallback):
        def __init__(self):
            super().__init__()
            self.scores: list[int] = []
            self.rollouts = 0
            self.t0, self.c0 = time.time(), time.process_time()
            self.wall0, self.cpu0 = progress["wall_s"], progress["cpu_s"]

        def _on_step(self) -> bool:
            dones = self.locals["dones"]
            infos = self.locals["infos"]
            for i in np.flatnonzero(dones):
                self.scores.append(int(infos[i]["score"]))
            return True

        def _on_rollout_end(self) -> None:
            self.rollouts += 1
            wall = self.wall0 + time.time() - self.t0
            cpu = self.cpu0 + time.process_time() - self.c0
            scores = np.array(self.scores or [0])
            progress["curve"].append(
                [int(self.num_timesteps), round(wall, 1), round(float(scores.mean()), 3)]
            )
            self.scores = []
            progress["wall_s"], progress["cpu_s"] = round(wall, 1), round(cpu, 1)
            progress["steps"] = int(self.num_timesteps)
            if self.rollouts % checkpoint_every == 0:
                self.save()
            step, w, s = progress["curve"][-1]
            print(f"{name}: {step:>10} steps {w:8.0f} s  training score {s:6.2f}", flush=True)

        def save(self) -> None:
            from hanabi_env.outputs import atomic_path

            with atomic_path(ckpt) as tmp:
                self.model.save(str(tmp))
            progress["sessions"][-1]["load_avg_end"] = _load_avg()
            _write_json(prog_path, progress)

    callback = Checkpoint()
    remaining = int(cfg["total_timesteps"]) - int(model.num_timesteps)
    if remaining > 0:
        model.learn(remaining, callback=callback, reset_num_timesteps=False)
    callback.save()
    model.save(str(run / "final.zip"))
    progress["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    _write_json(prog_path, progress)
    env.close()
    print(f"{name}: done, {model.num_timesteps} steps, {progress['wall_s']:.0f} s", flush=True)


SELF_PLAY_GAMES = 2000
"""Games of the recorded self-play score (2 players, lenient)."""

CHECK_GAMES = 16
"""Games of the ``check`` record (:func:`agents.rl.partners.self_play_record`)."""


def _self_play_observations(model, n_envs: int = 256, steps: int = 80):
    """Observations and masks of the model's own greedy self-play (about n_envs * steps)."""
    import numpy as np

    from hanabi_env.vector import HanabiVectorEnv

    venv = HanabiVectorEnv(n_envs, observation_dtype="float32", autoreset_mode="same_step", **GAME)
    obs, info = venv.reset(seed=12345)
    all_obs, all_mask = [], []
    for _ in range(steps):
        mask = info["action_mask"]
        all_obs.append(obs)
        all_mask.append(mask)
        act, _ = model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
        obs, _, _, _, info = venv.step(np.asarray(act))
    venv.close()
    return np.concatenate(all_obs), np.concatenate(all_mask)


def self_play_summary(partner, games: int, seed: int = 0) -> dict:
    """Mirror self-play of ``partner`` (2 players, lenient): score, metrics, MAP-Elites cells.

    The cells are those of the papers' grids over communicativeness x IPP in [0, 1]: 5x5
    ([Bayes21]) and 20x20 ([CoG19]); docs/rules.md §7.1.
    """
    import agents
    from qd.measures import bin_index

    res = agents.evaluate(partner, mode="mirror", players=(2,), games=games, seed=seed)
    comm, ipp = res.metrics["communicativeness"], res.metrics["ipp"]
    cells = {
        f"cell_{d}x{d}": [int(c) for c in bin_index([comm, ipp], (d, d), ((0.0, 1.0),) * 2)]
        for d in (5, 20)
    }
    return {
        "mean": round(res.mean, 3),
        "sem": round(res.sem, 3),
        "games": games,
        "seed": seed,
        "deterministic": True,
        "communicativeness": round(comm, 4),
        "ipp": round(ipp, 4),
        "risk_aversion": round(res.metrics["risk_aversion"], 4),
        **cells,
    }


RESULTS = ROOT / "docs" / "results" / "rl-partners"
"""Where ``report`` writes ``report.json`` and ``tables.md`` (docs/rl_partners.md includes it)."""

RULE_AGENTS = ["IGGI", "Piers", "Outer", "VanDenBergh"]
"""The rule agents of ``report``'s mixed-play table (baselines, docs/rules.md §4)."""


def _thin(curve: list) -> list:
    """About 40 points of a training curve, its last point included."""
    return curve[:: max(1, len(curve) // 40)] + curve[-1:]


def export(name: str, out: Path, dest: Path, checkpoint: bool = False) -> None:
    """Export partner ``name`` from ``out/name`` into ``dest`` (NPZ + JSON, see the docstring).

    ``checkpoint``: export the latest checkpoint of an unfinished run (to look at it).
    """
    import sb3_contrib
    import stable_baselines3
    import torch
    from sb3_contrib import MaskablePPO

    from agents.rl import export_partner, move_agreement
    from agents.rl.partners import self_play_record
    from agents.sb3 import SB3Policy
    from hanabi_env.config import HanabiConfig

    torch.set_num_threads(1)
    run = out / name
    final = run / ("checkpoint.zip" if checkpoint else "final.zip")
    progress = json.loads((run / "progress.json").read_text())
    if not final.exists():
        raise SystemExit(f"error: {final} does not exist: train {name} to the end first")
    model = MaskablePPO.load(str(final), device="cpu")
    game = HanabiConfig(**GAME)
    check = self_play_record(SB3Policy(final), CHECK_GAMES, seed=0)
    obs, mask = _self_play_observations(model)
    spec = settings(name)
    training = {
        "algorithm": "MaskablePPO (sb3-contrib), MlpPolicy, "
        + (
            f"one learner seat against {', '.join(spec['partners'])} on HanabiPoolVecEnv"
            if spec.get("partners")
            else "self-play on HanabiSB3VecEnv"
        ),
        "libraries": {
            "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__,
            "torch": torch.__version__,
        },
        "settings": spec,
        "seed": spec["seed"],
        "steps": progress["steps"],
        "wall_s": progress["wall_s"],
        "cpu_s": progress["cpu_s"],
        "commit": progress["commit"],
        "started": progress["started"],
        "finished": progress.get("finished"),
        "command": f"python tools/train_rl_partners.py train {name}",
        "sessions": progress["sessions"],
        "init": progress.get("init"),
        "curve": progress["curve"][:: max(1, len(progress["curve"]) // 40)]
        + progress["curve"][-1:],
    }
    for dtype in ("float16", "float32"):
        try:  # refused (nothing written) when the network does not replay the model's check
            partner = export_partner(
                model,
                dest / f"{name}.json",
                name=name,
                game=game,
                description=spec["description"],
                weight_dtype=dtype,
                extra={"training": training, "check": check},
            )
        except ValueError as err:
            print(f"{name}: {dtype} weights: {err}")
            continue
        agree = move_agreement(model, partner, obs, mask)
        ours = self_play_record(partner, CHECK_GAMES, seed=0)
        same = agree["same_moves"] == agree["observations"] and ours == check
        print(f"{name}: {dtype} weights, {agree}, check games equal: {ours == check}")
        if same:
            break
    else:
        raise SystemExit(f"error: {name}: the exported network does not play the model's moves")
    summary = self_play_summary(partner, SELF_PLAY_GAMES)
    extra = {
        "training": training,
        "export_check": {**agree, "weight_dtype": dtype},
        "check": check,
        "self_play": summary,
    }
    export_partner(
        model, dest / f"{name}.json", name=name, game=game, description=spec["description"],
        weight_dtype=dtype, extra=extra,
    )  # fmt: skip
    print(f"{name}: self-play {summary['mean']:.2f} +- {summary['sem']:.2f} "
          f"({SELF_PLAY_GAMES} games), cell {summary['cell_5x5']}")  # fmt: skip


def cross_play(names: list[str], games: int, seed: int = 1) -> dict:
    """Every ordered pair of partners (seat 0, seat 1): mean and s.e.m. of the scores."""
    import numpy as np

    from agents.evaluate import game_seeds, play_games
    from agents.rl import load_partner
    from hanabi_env.config import HanabiConfig
    from hanabi_env.stats import sem

    pols = [load_partner(n) for n in names]
    cfg = HanabiConfig(**GAME)
    _, deals, agent_seeds = game_seeds(seed, games, 2, False)
    table: dict = {}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            seat = np.tile(np.array([0, 1] if i != j else [0, 0]), (games, 1))
            pool = [pols[i], pols[j]] if i != j else [pols[i]]
            scores = play_games(pool, seat, deals, agent_seeds, cfg).scores
            table[f"{a}|{b}"] = [round(float(scores.mean()), 3), round(float(sem(scores)), 3)]
    return {"games": games, "seed": seed, "table": table}


def with_rule_agents(paths: list[str], games: int, seed: int = 2) -> dict:
    """Each partner in mixed play with each of :data:`RULE_AGENTS` (2 players, lenient).

    The rule agents in mirror play too, for comparison.
    """
    import agents
    from agents.rl import load_partner

    def rows(res) -> dict:
        return {r["partner"]: [round(r["mean"], 3), round(r["sem"], 3)] for r in res.rows}

    table = {}
    for path in paths:
        res = agents.evaluate(
            load_partner(path), mode="mixed", players=(2,), games=games, seed=seed,
            pool=RULE_AGENTS,
        )  # fmt: skip
        table[Path(path).stem] = rows(res)
    mirror = {}
    for name in RULE_AGENTS:
        res = agents.evaluate(name, mode="mirror", players=(2,), games=games, seed=seed)
        mirror[name] = [round(res.mean, 3), round(res.sem, 3)]
    return {"games": games, "seed": seed, "protocol": "mixed, random seat", "table": table,
            "rule_agents_mirror": mirror}  # fmt: skip


def _pm(pair) -> str:
    return f"{pair[0]:.2f} ± {pair[1]:.2f}"


def _tables(names: list[str], configs: dict, partners: dict, xp: dict, rules: dict) -> str:
    """The Markdown tables of ``report`` (docs/rl_partners.md includes them)."""
    lines = [
        "| partner | trained with | seed | steps | wall | CPU | training score | self-play "
        "(greedy) | communicativeness | IPP | cell 5×5 | cell 20×20 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n in names:
        tr, sp = configs[n]["training"], partners[n]
        mates = ", ".join(tr["settings"].get("partners") or ["itself"])
        lines.append(
            f"| `rl:{n}` | {mates} | {tr['seed']} | {tr['steps'] / 1e6:.2f} M | "
            f"{tr['wall_s'] / 60:.0f} min | {tr['cpu_s'] / 60:.1f} min | "
            f"{tr['curve'][-1][2]:.2f} | "
            f"{_pm((sp['mean'], sp['sem']))} | {sp['communicativeness']:.3f} | {sp['ipp']:.3f} | "
            f"{tuple(sp['cell_5x5'])} | {tuple(sp['cell_20x20'])} |"
        )
    games = partners[names[0]]["games"]
    lines += ["", f"*The partners; self-play: {games} games, greedy moves, seed 0.*", ""]
    lines += [f"| seat 0 ↓, seat 1 → | {' | '.join(names)} |", "|---" * (len(names) + 1) + "|"]
    for a in names:
        lines.append(f"| {a} | " + " | ".join(_pm(xp["table"][f"{a}|{b}"]) for b in names) + " |")
    lines += ["", f"*Cross-play: {xp['games']} games per ordered pair, seed {xp['seed']}.*", ""]
    pool = list(RULE_AGENTS)
    lines += [f"| partner | {' | '.join(pool)} |", "|---" * (len(pool) + 1) + "|"]
    for n in names:
        lines.append(f"| {n} | " + " | ".join(_pm(rules["table"][n][m]) for m in pool) + " |")
    mirror = rules["rule_agents_mirror"]
    lines.append("| *the rule agent with itself* | " + " | ".join(_pm(mirror[m]) for m in pool))
    lines[-1] += " |"
    lines += ["", f"*With rule agents: {rules['protocol']}, {rules['games']} games per pair, "
              f"seed {rules['seed']}.*", ""]  # fmt: skip
    return "\n".join(lines)


def report(dest: Path, games: int, self_play_games: int, out: Path) -> None:
    """Self-play, cross-play and rule-agent tables of the partners in ``dest``.

    Writes ``out/report.json`` (every number) and ``out/tables.md`` (the tables), and prints
    the tables.
    """
    from agents.rl import load_partner, partner_config

    start, cpu0 = time.time(), time.process_time()
    names = sorted(p.stem for p in dest.glob("*.json"))
    paths = [str(dest / f"{n}.json") for n in names]
    configs = {n: partner_config(p) for n, p in zip(names, paths, strict=True)}
    partners = {n: self_play_summary(load_partner(p), self_play_games)
                for n, p in zip(names, paths, strict=True)}  # fmt: skip
    xp = cross_play(paths, games)
    xp["table"] = {
        "|".join(Path(k).stem for k in key.split("|")): v for key, v in xp["table"].items()
    }
    rules = with_rule_agents(paths, games)
    tables = _tables(names, configs, partners, xp, rules)
    provenance = {
        "command": " ".join(
            ["python tools/train_rl_partners.py report", *map(shlex.quote, sys.argv[2:])]
        ),
        "commit": _commit(),
        "date": time.strftime("%Y-%m-%d"),
        "wall_s": round(time.time() - start, 1),
        "cpu_s": round(time.process_time() - cpu0, 1),
        "host": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }
    out.mkdir(parents=True, exist_ok=True)
    _write_json(out / "report.json", {"provenance": provenance, "self_play": partners,
                                      "cross_play": xp, "with_rule_agents": rules})  # fmt: skip
    footer = (f"Measured by `{provenance['command']}` on {provenance['date']} (commit "
              f"{provenance['commit'][:10]}, {provenance['wall_s'] / 60:.1f} min "
              "wall).")  # fmt: skip
    _write_text(out / "tables.md", tables + "\n" + footer + "\n")
    print(tables)
    print(footer)


def main(argv: list[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_train = sub.add_parser("train", help="train or resume one partner")
    p_train.add_argument("name")
    p_train.add_argument("--out", type=Path, default=ROOT / "runs" / "rl_partners")
    p_train.add_argument("--checkpoint-every", type=int, default=10, help="rollouts")
    p_train.add_argument("--torch-threads", type=int, default=1)
    p_export = sub.add_parser("export", help="write a trained partner's NPZ + JSON")
    p_export.add_argument("name")
    p_export.add_argument("--out", type=Path, default=ROOT / "runs" / "rl_partners")
    p_export.add_argument("--dest", type=Path, default=ROOT / "agents" / "data" / "rl_partners")
    p_export.add_argument("--checkpoint", action="store_true", help="the latest checkpoint")
    p_report = sub.add_parser("report", help="cross-play table and cells of exported partners")
    p_report.add_argument("--dest", type=Path, default=ROOT / "agents" / "data" / "rl_partners")
    p_report.add_argument("--games", type=int, default=1000, help="per ordered pair")
    p_report.add_argument("--self-play-games", type=int, default=SELF_PLAY_GAMES)
    p_report.add_argument("--out", type=Path, default=RESULTS, help="report.json, tables.md")
    sub.add_parser("list", help="print every partner's settings")
    args = parser.parse_args(argv)
    if args.command == "list":
        for name in PARTNERS:
            print(name, json.dumps(settings(name)))
    elif args.command == "train":
        train(args.name, args.out, args.checkpoint_every, args.torch_threads)
    elif args.command == "export":
        export(args.name, args.out, args.dest, args.checkpoint)
    elif args.command == "report":
        report(args.dest, args.games, args.self_play_games, args.out)


if __name__ == "__main__":
    main()
