r"""Game records of H-group play: WillFlame14/hanabi-bot's self-play, collected and checked.

docs/human_proxies.md §3. `hanabi-bot <https://github.com/WillFlame14/hanabi-bot>`_ (GPL-3.0,
Node >= 22) plays the H-group conventions (levels 1-11) that most hanab.live players use, and its
``self-play`` script writes each game as a hanab.live JSON record (``seeds/<seed>.json``). This
tool runs it offline on a checkout you provide, then keeps the records that replay on this
engine (:func:`hanabi_env.records.from_hanablive`) and end as hanab.live ends them. The bot's
code never enters this repository; it is run as a separate program and only its output (game
records: decks and moves) is read.

Offline: at start-up the bot downloads hanab.live's ``variants.json`` and ``suits.json``
(``https.get`` in its ``src/variants.js``). Give local copies (``--variants-json``,
``--suits-json``; in the hanab.live repository, ``packages/game/src/json/``): the tool starts
node with a small preload module (``--import``) that answers those two requests from the files,
so the checkout is run unmodified and nothing touches the network.

Usage::

    python tools/hgroup_records.py --bot ~/hanabi-bot --node ~/node22/node_modules/.bin/node \
        --variants-json variants.json --suits-json suits.json \
        --games 2000 --seed 0 --level 1 --players 2 --out runs/hgroup/l1p2

Steps: the bot plays ``--games`` games, seeds ``--seed`` .. ``--seed + games - 1`` (its deck of
game ``i`` is shuffled from the string ``"i"``; the bot draws no other random number), in
chunks of ``--chunk`` games per node process, into ``--work`` (default ``OUT/work``): a second
run with the same work folder plays only the games whose record is missing (resume). Then every
record is checked; ``--out`` receives, each file written atomically:

* ``records.json``: the valid records, a list (hanab.live's JSON, as the bot wrote them, less
  the bot's per-card ``notes`` unless ``--keep-notes``); ``hanabi-adhoc clone --records
  OUT/records.json`` learns from them.
* ``invalid.json``: ``[{"seed", "reason"}, ...]`` for the records refused.
* ``provenance.json``: the bot's repository, commit and licence, the node version, the level,
  players, seeds and games, the tool's command, the date, the SHA-256 of the two JSON files,
  the counts (valid, invalid), the valid games' mean score, and the games this run played
  (``played_now``; the others were in the work folder) with their CPU time (``bot_cpu_s``).

A record is valid when it replays on the engine (every move legal where it stands), its last
action is type 4 (the end-game action the bot appends), and its moves before that end exactly
where hanab.live's server ends the game (:func:`hanabi_env.records.hanablive_end`: strikeout,
final round, the most reachable score, no playable card left). The bot writes the type-4 action
with ``value`` 1 after the final round and 2 otherwise (also after a game ended at the most
reachable score), which hanab.live's replay reads as the end of the moves either way.

Bad options give one ``error: ...`` line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hanabi_env.outputs import atomic_write_json  # noqa: E402
from hanabi_env.records import from_hanablive, hanablive_end  # noqa: E402
from tools.cli_common import OneLineParser, positive_int  # noqa: E402

BOT_REPO = "https://github.com/WillFlame14/hanabi-bot"
"""Where the bot comes from (recorded in ``provenance.json``)."""

MIN_NODE = 22
"""The oldest Node major version the bot runs on (its ``package.json`` ``engines``)."""

MAX_LEVEL = 11
"""The highest H-group level the bot plays (its ``MAX_H_LEVEL``)."""

END_ACTION = 4
"""hanab.live's action type of a game ended by the server (the bot's ``ACTION.END_GAME``)."""

PRELOAD = """\
// Written by hanabi-adhoc's tools/hgroup_records.py: answers the bot's two start-up downloads
// (hanab.live's variants.json and suits.json) from local files, so that it runs offline.
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { syncBuiltinESMExports } from 'node:module';

const files = JSON.parse(process.env.HGROUP_OFFLINE_FILES);
https.get = (url, callback) => {
  const name = String(url).split('/').pop();
  if (!(name in files)) throw new Error(`offline: no local file for ${url}`);
  const response = new PassThrough();
  response.statusCode = 200;
  process.nextTick(() => { callback(response); response.end(readFileSync(files[name])); });
  return new EventEmitter();
};
syncBuiltinESMExports();
"""
"""The node preload module (``node --import``) that serves the two JSON files locally."""


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**31:
        raise argparse.ArgumentTypeError(f"{value} is not allowed; allowed: 0 to 2**31 - 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command line (module docstring)."""
    p = OneLineParser(
        prog="tools/hgroup_records.py",
        description="Run WillFlame14/hanabi-bot's self-play (H-group conventions) offline and "
        "collect its valid hanab.live records. docs/human_proxies.md.",
    )
    p.add_argument("--bot", type=Path, required=True, help="the hanabi-bot checkout")
    p.add_argument("--node", type=Path, required=True, help=f"a node binary, v{MIN_NODE} or later")
    p.add_argument("--variants-json", type=Path, required=True, help="hanab.live's variants.json")
    p.add_argument("--suits-json", type=Path, required=True, help="hanab.live's suits.json")
    p.add_argument("--games", type=positive_int, default=100, help="games (default 100)")
    p.add_argument("--seed", type=_seed, default=0, help="first game's seed (default 0)")
    p.add_argument("--level", type=positive_int, default=1, help=f"H-group level, 1-{MAX_LEVEL}")
    p.add_argument("--players", type=positive_int, default=2, help="players, 2-5 (default 2)")
    p.add_argument("--chunk", type=positive_int, default=50, help="games per node process (50)")
    p.add_argument("--bot-commit", help="the checkout's commit (default: git rev-parse HEAD)")
    p.add_argument("--work", type=Path, help="where the bot writes (default OUT/work); resumes")
    p.add_argument("--keep-notes", action="store_true", help="keep the bot's notes per card")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    return p


def node_version(node: Path) -> str:
    """``node --version`` of ``node`` (e.g. ``"v22.23.3"``).

    Raises:
        ValueError: Not a node binary, or older than :data:`MIN_NODE`.
    """
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=60)
    except OSError as err:
        raise ValueError(f"--node {node}: cannot run it ({err.strerror})") from None
    match = re.fullmatch(r"v(\d+)\.\d+\.\d+", out.stdout.strip())
    if out.returncode != 0 or not match:
        raise ValueError(f"--node {node}: not a node binary (--version said {out.stdout!r})")
    if int(match.group(1)) < MIN_NODE:
        raise ValueError(f"--node {node} is {match.group(0)}; allowed: v{MIN_NODE} or later")
    return match.group(0)


def bot_commit(bot: Path, given: str | None) -> str:
    """The checkout's commit: ``given``, else ``git rev-parse HEAD`` in ``bot``.

    Raises:
        ValueError: Neither (e.g. a ``git archive`` copy without ``--bot-commit``).
    """
    if given is not None:
        if not re.fullmatch(r"[0-9a-f]{40}", given):
            raise ValueError(f"--bot-commit {given!r} is not allowed; allowed: 40 hex digits")
        return given
    out = subprocess.run(
        ["git", "-C", str(bot), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    if out.returncode != 0:
        raise ValueError(f"--bot {bot} is not a git checkout; give its commit with --bot-commit")
    return out.stdout.strip()


def bot_license(bot: Path) -> str:
    """The SPDX name of the checkout's licence as its ``LICENSE`` file states it."""
    try:
        text = (bot / "LICENSE").read_text(encoding="utf-8", errors="replace")[:2000]
    except OSError:
        return "unknown (no LICENSE file)"
    if "GNU GENERAL PUBLIC LICENSE" in text and "Version 3" in text:
        return "GPL-3.0"
    return "unknown (see its LICENSE file)"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_self_play(
    args: argparse.Namespace, work: Path, say: Callable[[str], None] = print
) -> tuple[int, float]:
    """Play the missing games of ``args.seed .. args.seed + args.games - 1`` into ``work/seeds``.

    Returns:
        The games played now (the others were there) and the CPU seconds the node processes
        took (user + system of the children).

    Raises:
        RuntimeError: A node process failed (its last output lines in the message).
    """
    seeds_dir = work / "seeds"
    seeds_dir.mkdir(parents=True, exist_ok=True)
    preload = work / "offline.mjs"
    preload.write_text(PRELOAD, encoding="utf-8")
    files = {"variants.json": str(args.variants_json.resolve()),
             "suits.json": str(args.suits_json.resolve())}  # fmt: skip
    env = dict(os.environ, HGROUP_OFFLINE_FILES=json.dumps(files))
    script = (args.bot / "src" / "self-play.js").resolve()
    cpu0 = _children_cpu()
    played = 0
    stop = args.seed + args.games
    for start in range(args.seed, stop, args.chunk):
        end = min(start + args.chunk, stop)
        missing = [i for i in range(start, end) if not (seeds_dir / f"{i}.json").is_file()]
        if not missing:
            continue
        first = missing[0]
        cmd = [str(args.node), "--import", preload.resolve().as_uri(), str(script),
               f"games={end - first}", f"seed={first}", f"level={args.level}",
               f"players={args.players}", "convention=HGroup"]  # fmt: skip
        t0 = time.perf_counter()
        out = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            tail = " | ".join((out.stderr or out.stdout).strip().splitlines()[-3:])
            raise RuntimeError(f"the bot failed on seeds {first}-{end - 1}: {tail}")
        played += end - first
        say(f"seeds {first}-{end - 1}: {end - first} games in {time.perf_counter() - t0:.0f} s")
    return played, _children_cpu() - cpu0


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def check_record(record: object) -> tuple[str | None, int]:
    """Why a record of the bot is not valid (None: it is), and its score on hanab.live.

    Valid: it replays on the engine (:func:`hanabi_env.records.from_hanablive`, strict
    scoring), its last action is the end-game action (type 4), and its moves end exactly where
    hanab.live ends the game (:func:`hanabi_env.records.hanablive_end`).
    """
    if not isinstance(record, dict):
        return "not a JSON object", 0
    try:
        game = from_hanablive(record, scoring="strict")
    except (TypeError, ValueError) as err:
        return f"does not replay: {err}", 0
    actions = record["actions"]
    if not actions or not isinstance(actions[-1], dict) or actions[-1].get("type") != END_ACTION:
        return "no end-game action (type 4) at the end: the bot's game stopped early", 0
    end = hanablive_end(game)
    if end is None:
        return f"ends after {game.n_moves} moves, before hanab.live ends the game", 0
    if end.moves != game.n_moves:
        return f"{game.n_moves} moves, but hanab.live ends the game after {end.moves}", 0
    return None, end.score


def collect(
    seeds_dir: Path, seeds: Sequence[int], keep_notes: bool = False
) -> tuple[list[dict], list[dict], list[int]]:
    """The valid records of ``seeds`` in ``seeds_dir``, the refused ones and the valid scores.

    Returns:
        ``(records, invalid, scores)``: the valid records (without ``notes`` unless
        ``keep_notes``), ``[{"seed", "reason"}]`` for the others, hanab.live's score of each
        valid one.
    """
    records: list[dict] = []
    invalid: list[dict] = []
    scores: list[int] = []
    for seed in seeds:
        path = seeds_dir / f"{seed}.json"
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            invalid.append({"seed": seed, "reason": f"cannot read {path.name}: {err}"})
            continue
        reason, score = check_record(record)
        if reason is not None:
            invalid.append({"seed": seed, "reason": reason})
            continue
        if not keep_notes:
            record.pop("notes", None)
        records.append(record)
        scores.append(score)
    return records, invalid, scores


def _check_args(args: argparse.Namespace) -> None:
    if not (args.bot / "src" / "self-play.js").is_file():
        raise ValueError(f"--bot {args.bot}: no src/self-play.js (not a hanabi-bot checkout)")
    for flag, path in (("--variants-json", args.variants_json), ("--suits-json", args.suits_json)):
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise ValueError(f"{flag} {path}: not a readable JSON file ({err})") from None
    if not 1 <= args.level <= MAX_LEVEL:
        raise ValueError(f"--level {args.level} is not allowed; allowed: 1 to {MAX_LEVEL}")
    if not 2 <= args.players <= 5:
        raise ValueError(f"--players {args.players} is not allowed; allowed: 2 to 5")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tool (module docstring); returns the exit code."""
    parser = build_parser()
    given = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(given)
    try:
        _check_args(args)
        version = node_version(args.node)
        commit = bot_commit(args.bot, args.bot_commit)
    except ValueError as err:
        parser.error(str(err))
    work = args.work or args.out / "work"
    t0 = time.perf_counter()
    try:
        played, cpu = run_self_play(args, work)
    except RuntimeError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    seeds = range(args.seed, args.seed + args.games)
    records, invalid, scores = collect(work / "seeds", seeds, args.keep_notes)
    provenance = {
        "source": "WillFlame14/hanabi-bot self-play (H-group conventions)",
        "bot_repository": BOT_REPO,
        "bot_commit": commit,
        "bot_license": bot_license(args.bot),
        "node_version": version,
        "convention": "HGroup",
        "level": args.level,
        "players": args.players,
        "variant": "No Variant",
        "seeds": [args.seed, args.seed + args.games - 1],
        "games": args.games,
        "valid": len(records),
        "invalid": len(invalid),
        "mean_score": round(sum(scores) / len(scores), 4) if scores else None,
        "notes_kept": bool(args.keep_notes),
        "variants_json_sha256": _sha256(args.variants_json),
        "suits_json_sha256": _sha256(args.suits_json),
        "command": shlex.join(["python", "tools/hgroup_records.py", *map(str, given)]),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "wall_s": round(time.perf_counter() - t0, 1),
        "played_now": played,
        "bot_cpu_s": round(cpu, 1),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(args.out / "records.json", records, indent=None)
    atomic_write_json(args.out / "invalid.json", invalid)
    atomic_write_json(args.out / "provenance.json", provenance)
    mean = provenance["mean_score"]
    print(f"{len(records)} valid, {len(invalid)} invalid of {args.games} games "
          f"(mean score {mean}); wrote {args.out}/records.json")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
