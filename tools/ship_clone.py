r"""Ship a clone made by ``hanabi-adhoc clone`` as a partner of ``agents/data/rl_partners``.

docs/human_proxies.md §4. ``hanabi-adhoc clone --records ... --out runs/x/NAME.json`` writes a
partner (docs/cloning.md); a shipped partner records more (docs/rl_partners.md §5, checked by
``tests/agents/test_rl_partners.py``): how it was made (the commands, seed, commit, gradient
steps, wall and CPU time), where its records came from, its self-play over 1000 or more games
and an export check. This tool adds them and writes ``DEST/NAME.json`` and ``DEST/NAME.npz``
(the clone's weights, unchanged), each atomically::

    python tools/ship_clone.py --clone runs/hgroup/clone-hgroup-l1.json \
        --records-provenance runs/hgroup/l1p2/provenance.json \
        --clone-command "hanabi-adhoc clone --records ... --out runs/hgroup/clone-hgroup-l1.json" \
        --clone-wall-s 120 --clone-cpu-s 200 --name clone-hgroup-l1

A clone of a teacher's games (``hanabi-adhoc clone smartbot ...``) needs no
``--records-provenance``: its JSON already names its teacher, the deals' seed and the
teacher's mean score. Measured and recorded (the clone's game size, lenient scoring, the
clone's masked argmax):

* ``self_play``: ``--games`` mirror games (``agents.evaluate.evaluate``, seed ``--seed``),
  mean ± s.e.m.;
* ``with_partners``: ``--partner-games`` mixed games with each of ``--partners`` (default IGGI
  and SmartBot; the clone in a random seat), and the mean score of the records it learnt from;
* ``export_check``: the shipped weights run by torch (``torch.nn.Linear`` layers, float32) and
  by the partner's numpy forward pass on the observations of random games give the same move
  on every one (needs torch).

Bad options give one ``error: ...`` line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hanabi_env.outputs import atomic_write_bytes, atomic_write_json  # noqa: E402
from tools.cli_common import OneLineParser, positive_int  # noqa: E402

DEST = ROOT / "agents" / "data" / "rl_partners"


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{value} is not allowed; allowed: seconds >= 0")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line (module docstring)."""
    p = OneLineParser(prog="tools/ship_clone.py", description="Ship a behaviour clone as a partner "
                "with its provenance and measurements. docs/human_proxies.md.")  # fmt: skip
    p.add_argument("--clone", type=Path, required=True, help="the clone's JSON (clone --out)")
    p.add_argument("--name", required=True, help="the shipped name (rl:NAME)")
    p.add_argument(
        "--records-provenance",
        type=Path,
        action="append",
        default=None,
        help="provenance.json of tools/hgroup_records.py (repeat per folder; for a clone "
        "of records; a clone of a teacher's games records its teacher itself)",
    )
    p.add_argument("--clone-command", required=True, help="the hanabi-adhoc clone command")
    p.add_argument("--clone-wall-s", type=_seconds, required=True, help="its wall time")
    p.add_argument("--clone-cpu-s", type=_seconds, required=True, help="its CPU time")
    p.add_argument("--description", default="", help="one or two sentences")
    p.add_argument("--games", type=positive_int, default=1000, help="self-play games (1000)")
    p.add_argument("--partner-games", type=positive_int, default=200, help="games per partner")
    p.add_argument("--partners", default="IGGI,smartbot", help="comma-separated agent specs")
    p.add_argument("--seed", type=int, default=0, help="evaluation seed (default 0)")
    p.add_argument("--dest", type=Path, default=DEST, help="where partners are shipped")
    return p  # fmt: skip


def _commit() -> str:
    out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                         text=True, check=False)  # fmt: skip
    return out.stdout.strip() or "unknown"


def export_check(
    partner, arrays: list[np.ndarray], n_games: int = 64, steps: int = 40, seed: int = 0
) -> dict:
    """The partner's numpy moves against torch's forward pass of the same weights.

    Args:
        partner: The loaded partner (:class:`agents.rl.RLPartner`).
        arrays: Its weights as stored, ``[w0, b0, ...]`` (``w_i`` ``(out, in)``).
        n_games: Random-move games whose observations are compared.
        steps: Moves per game.
        seed: Seed of the deals and the random moves.

    Returns:
        ``{"observations", "same_moves", "max_logit_error", "weight_dtype", "against"}``.
    """
    import torch

    from hanabi_env.vector import HanabiVectorEnv

    players = int(partner.config["game"]["players"])
    env = HanabiVectorEnv(n_games, players=players, observation_dtype="float32",
                          autoreset_mode="same_step")  # fmt: skip
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    all_obs, all_mask = [], []
    for _ in range(steps):
        all_obs.append(obs)
        all_mask.append(info["action_mask"])
        moves = [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]
        obs, _, _, _, info = env.step(np.array(moves))
    x, mask = np.concatenate(all_obs), np.concatenate(all_mask) != 0
    act = torch.relu if partner.config["architecture"]["activation"] == "relu" else torch.tanh
    with torch.no_grad():
        h = torch.as_tensor(x, dtype=torch.float32)
        for i in range(0, len(arrays), 2):
            layer = torch.nn.Linear(arrays[i].shape[1], arrays[i].shape[0])
            layer.weight.copy_(torch.as_tensor(np.asarray(arrays[i], np.float32)))
            layer.bias.copy_(torch.as_tensor(np.asarray(arrays[i + 1], np.float32)))
            h = layer(h)
            if i + 2 < len(arrays):
                h = act(h)
        ref = h.double().numpy()
    ours = partner.logits(x)
    err = float(np.abs(np.where(mask, ref - ours, 0.0)).max())
    same = np.where(mask, ref, -np.inf).argmax(1) == np.where(mask, ours, -np.inf).argmax(1)
    return {"observations": len(x), "same_moves": int(same.sum()), "max_logit_error": err,
            "weight_dtype": partner.config["weights"]["dtype"],
            "against": "torch.nn.Linear layers (float32) on the shipped weights"}  # fmt: skip


def measure(partner, args: argparse.Namespace) -> tuple[dict, dict]:
    """Self-play and play with each of ``args.partners`` (the partner's game size, lenient)."""
    import agents
    from agents.evaluate import evaluate

    players = [int(partner.config["game"]["players"])]
    mirror = evaluate(partner, "mirror", players=players, games=args.games, seed=args.seed,
                      workers=1)  # fmt: skip
    metrics = {k: round(float(mirror.rows[0][k]), 4)
               for k in ("communicativeness", "ipp", "risk_aversion")}  # fmt: skip
    self_play = {**_row(mirror.rows[0]), "seed": args.seed, "deterministic": True, **metrics}
    withs = {}
    for spec in args.partners.split(","):
        mixed = evaluate(partner, "mixed", players=players, games=args.partner_games,
                         pool=[agents.make(spec)], seed=args.seed, workers=1)  # fmt: skip
        withs[spec] = _row(mixed.rows[0])
    return self_play, withs


def _row(row: dict) -> dict:
    return {"mean": round(float(row["mean"]), 3), "sem": round(float(row["sem"]), 3),
            "games": int(row["games"])}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool (module docstring); returns the exit code."""
    from agents.rl import load_partner
    from hanabi_env.validate import check_str

    parser = build_parser()
    given = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(given)
    try:
        check_str("--name", args.name)
        partner = load_partner(str(args.clone))
        provenance = args.records_provenance or []
        records = [json.loads(p.read_text(encoding="utf-8")) for p in provenance]
    except (OSError, ValueError, TypeError) as err:
        parser.error(str(err))
    t0 = time.perf_counter()
    config = json.loads(args.clone.read_text(encoding="utf-8"))
    settings = config["training"]["settings"]
    steps = args_steps(settings)
    self_play, withs = measure(partner, args)
    if records:
        withs["records_mean"] = round(
            sum(r["mean_score"] * r["valid"] for r in records) / sum(r["valid"] for r in records),
            3,
        )
    else:
        withs["teacher_mean"] = round(float(config["training"]["teacher_mean_score"]), 3)
    config["name"] = args.name
    if args.description:
        config["description"] = args.description
    npz = args.clone.with_suffix(".npz")
    config["weights"]["file"] = f"{args.name}.npz"
    ship = shlex.join(["python", "tools/ship_clone.py", *given])
    config["training"].update({
        "command": f"{args.clone_command} && {ship}",
        "seed": settings["seed"], "commit": _commit(), "steps": steps,
        "wall_s": args.clone_wall_s, "cpu_s": args.clone_cpu_s,
    })  # fmt: skip
    if records:
        config["training"]["records"] = records
    with np.load(npz, allow_pickle=False) as data:
        arrays = [data[k] for k in config["weights"]["arrays"]]
    config["export_check"] = export_check(partner, arrays)
    config["self_play"] = self_play
    config["with_partners"] = withs
    args.dest.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(args.dest / f"{args.name}.npz", npz.read_bytes())
    atomic_write_json(args.dest / f"{args.name}.json", config)
    shipped = load_partner(str(args.dest / f"{args.name}.json"))
    print(f"{args.name}: self-play {self_play['mean']} ± {self_play['sem']} "
          f"({self_play['games']} games); with {withs}; export check "
          f"{config['export_check']['same_moves']}/{config['export_check']['observations']}; "
          f"{time.perf_counter() - t0:.0f} s; wrote {args.dest}/{args.name}.json "
          f"({shipped.name})")  # fmt: skip
    return 0


def args_steps(settings: dict) -> int:
    """Adam steps of the training: epochs × batches of the training decisions."""
    per_epoch = math.ceil(settings["train_decisions"] / settings["batch_size"])
    return int(settings["epochs"] * per_epoch)


if __name__ == "__main__":
    sys.exit(main())
