"""``hanabi-adhoc serve``: play Hanabi in the browser with any agent (docs/browser.md).

Starts the local web app of :mod:`hanabi_adhoc.web` (Flask, the ``web`` extra) on
127.0.0.1 and prints its address once the page is ready: every partner it offers has played
one game (compiling its kernels on a first run, loading them later) and the meta-agent's
response table is built, each step with a progress line on standard error
(:func:`hanabi_adhoc.web.partners.warm_up`); sessions left live by a stopped server are
resumed. Every session is saved under ``--out`` (per-move logs,
hanab.live records, study answers); nothing leaves the machine. What is served to whom, the
limits and ``--trust-model``: docs/browser.md §6.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

__all__ = ["add_subcommand"]

DESCRIPTION = (
    "Serves a page where a person plays Hanabi with agents of their choice (2-5 players): "
    "baseline names, the reference bots (SmartBot, InfoBot, HolmesBot, ValueBot, SimpleBot), "
    "chromosomes, shipped partners (rl:NAME, bad:NAME), or meta / "
    "meta:generalist / meta:random, the Bayesian meta-agent that "
    "adapts to the person over the session's games and shows its belief about them (2 "
    "players); with --trust-model also package.module:Name, path/file.py:Name and model files "
    "(sb3:PATH, rl:PATH.json, bad:PATH.json). Every game is saved in OUT/<session>/: a "
    "per-move log and a record that replays on hanab.live, shown once the game is over to the "
    "browser that played it (to everyone with --publish-records). Needs the web extra: pip "
    "install 'hanabi-adhoc[web]'. The address is printed once every offered partner is ready "
    "(its kernels compiled or loaded, the meta-agent's table built); sessions left unfinished "
    "by a stopped server are resumed."
)


def add_subcommand(sub) -> None:
    """Register ``serve`` on ``sub`` (the subparsers of ``hanabi-adhoc``)."""
    from hanabi_adhoc.cli.options import add_command, seed_int

    add_command(sub, "serve", _serve, "web", (
        ("--host", {"metavar": "ADDRESS"}, "address to listen on (default 127.0.0.1: this "
         "computer only)", "127.0.0.1"),
        ("--port", {"type": int, "metavar": "PORT"}, "port (default 8000; 0 = any free port)",
         8000),
        ("--out", "DIR", "folder of the session records (default runs/web)", "runs/web"),
        ("--partner", {"action": "append", "metavar": "SPEC"}, "a partner every session "
         "plays with (repeat for 3-5 players); given, the page cannot change the partners or "
         "the number of games, as a study needs (default: the page chooses, Piers first)"),
        ("--games", "N", "games per session (default 3)", 3),
        ("--scoring", "strict|lenient", "strict (HLE, hanab.live) or lenient (the papers) "
         "(default strict)", "strict"),
        ("--hand-size", {"type": int, "choices": range(2, 6), "metavar": "N"}, "cards per "
         "hand (default: the rulebook's, 5 at 2-3 players, 4 at 4-5)"),
        ("--seed", {"type": seed_int, "metavar": "SEED"}, "master seed of every session's "
         "deals and agents, and of the meta-agent's response table (default: each session "
         "draws its own seed and records it; the table uses 0)"),
        ("--ruleset", "corrected|reference", "rules of the rule agents and of the meta-agent's "
         "pool (default corrected)", "corrected"),
        ("--train-games", "N", "games per pair of the meta-agent's response table "
         "(default 20)", 20),
        ("--trust-model", "FLAG", "allow partners that run code or read files: from the page "
         "module:Name, file.py:Name, sb3:PATH, rl:PATH.json, bad:PATH.json, and sb3:PATH at "
         "all (loading one runs code stored in the file) (default: refused)"),
        ("--publish-records", "FLAG", "show every session's finished games on /replay to "
         "every browser (default: only to the browser that played them)"),
        ("--max-sessions", "N", "most unfinished sessions one client address may have at "
         "once (default 20)", 20),
        ("--session-rate", "N", "most new sessions one client address may start a minute "
         "(default 10)", 10),
        ("--study", {"nargs": "?", "const": "", "metavar": "FILE"}, "ask for consent and "
         "a questionnaire before and after each session: the built-in ones, or those of a "
         "JSON FILE (docs/browser.md) (default: off)"),
        ("--hide-belief", "FLAG", "do not show the meta-agent's belief between games (it is "
         "logged all the same) (default: shown)"),
        ("--agent-delay", {"type": int, "metavar": "MS"}, "pause before each partner move, in "
         "milliseconds (default 700)", 700),
    ), help="play in the browser: any agent as partner, meta-agent beliefs, study records",
        description=DESCRIPTION)  # fmt: skip


def _options(args: argparse.Namespace):
    """The app options of ``serve``'s arguments, every one checked before serving.

    Raises:
        OptionError: A bad option or partner.
    """
    from hanabi_adhoc.cli.options import OptionError, check_out_dir
    from hanabi_adhoc.specs import check_meta_variant, is_meta, meta_variant
    from hanabi_adhoc.web.session import AppOptions, Settings, make_partner
    from hanabi_adhoc.web.study import load_study

    if not 0 <= args.web_port <= 65535:
        raise OptionError("--port", f"{args.web_port} is not a port; allowed: 0-65535")
    if not 0 <= args.web_agent_delay <= 60_000:
        raise OptionError("--agent-delay", "allowed: 0 to 60000 milliseconds")
    if args.web_max_sessions > 10_000:
        raise OptionError("--max-sessions", "allowed: 1 to 10000")
    if args.web_session_rate > 10_000:
        raise OptionError("--session-rate", "allowed: 1 to 10000 a minute")
    if args.web_games > 100:
        raise OptionError("--games", "at most 100 games per session")
    check_out_dir("--out", args.web_out)
    study = None
    if args.web_study is not None:
        try:
            study = load_study(args.web_study or None)
        except (OSError, ValueError) as exc:
            raise OptionError("--study", str(exc)) from None
    partners = tuple(args.web_partner or ("Piers",))
    if not 1 <= len(partners) <= 4:
        raise OptionError("--partner", f"give 1 to 4 partners (2-5 players), got {len(partners)}")
    settings = Settings(partners, 0, args.web_games, args.web_scoring, args.web_hand_size,
                        args.web_seed, args.web_ruleset)  # fmt: skip
    try:
        settings.config()
    except ValueError as exc:
        raise OptionError("--hand-size", str(exc)) from None
    options = AppOptions(
        meta_table_seed=args.web_seed or 0,
        out=Path(args.web_out),
        defaults=settings,
        fixed=args.web_partner is not None,
        study=study,
        show_belief=not args.web_hide_belief,
        train_games=args.web_train_games,
        trust_model=args.web_trust_model,
        agent_delay_ms=args.web_agent_delay,
        publish_records=args.web_publish_records,
        max_sessions=args.web_max_sessions,
        session_rate=args.web_session_rate,
    )
    for i, spec in enumerate(partners):  # a bad spec fails now, not in the person's browser
        if is_meta(spec) and len(partners) > 1:
            raise OptionError("--partner", "the meta-agent plays 2-player games only")
        if is_meta(spec):  # built per session (its response table takes a moment)
            try:
                check_meta_variant(meta_variant(spec) or "adaptive")
            except ValueError as exc:
                raise OptionError("--partner", f"{spec!r}: {exc}") from None
            continue
        try:
            make_partner(spec, i, settings, options)
        except (ValueError, ImportError, TypeError) as exc:
            raise OptionError("--partner", f"{spec!r}: {exc}") from None
    return options


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _prepare(options) -> None:
    """Compile (or load) what the offered partners need, before the address is printed.

    Progress goes to standard error, one line per step, so that standard output starts with
    the address.
    """
    from hanabi_adhoc.warmup import ensure_compiled
    from hanabi_adhoc.web.partners import offered
    from hanabi_adhoc.web.prepare import warm_up

    menu = offered(options)
    needs_meta = any(m["spec"].lower().startswith("meta") for m in menu)
    ensure_compiled(["env", "rule games", "meta"] if needs_meta else ["env"], say=_say)
    t0 = time.perf_counter()
    _say(f"preparing {len(menu)} partner(s): one game each at each size it plays"
         + (" and the meta-agent's response table" if needs_meta else "") + "...")  # fmt: skip
    try:
        warm_up(options, say=_say)
    except Exception as exc:  # a partner's own failure, said in one line
        from hanabi_adhoc.cli.options import CommandError

        why = f"{type(exc).__name__}: {exc}"
        raise CommandError(f"a partner failed its warm-up game: {why}") from None
    _say(f"partners ready in {time.perf_counter() - t0:.1f} s")


def _serve(args: argparse.Namespace) -> int:
    from hanabi_adhoc.cli.options import CommandError

    if importlib.util.find_spec("flask") is None:
        raise CommandError("serve needs Flask: pip install 'hanabi-adhoc[web]'")
    options = _options(args)
    import logging

    from werkzeug.serving import make_server

    from hanabi_adhoc.web import create_app

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    host = args.web_host
    _prepare(options)
    app = create_app(options, host)  # resumes the sessions a stopped server left live
    try:
        server = make_server(host, args.web_port, app, threaded=True)
    except (OSError, SystemExit) as exc:
        raise CommandError(f"cannot listen on {host}:{args.web_port} ({exc})") from None
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{server.server_port}/"
    try:  # Ctrl-C at any point from here stops the server cleanly
        print(f"Hanabi in the browser: open {url}  (Ctrl-C stops)")
        print(f"sessions are saved in {options.out}/ (replays: {url}replay)", flush=True)
        resumed = app.extensions.get("hanabi_adhoc.restored", 0)
        if resumed:
            print(f"resumed {resumed} live session(s) of the last run", flush=True)
        if host not in ("127.0.0.1", "localhost", "::1"):
            seen = "every browser" if options.publish_records else "the browser that played it"
            print(f"warning: {host} is reachable from other computers: anyone who reaches it "
                  f"can play; a finished game is shown to {seen}", flush=True)  # fmt: skip
        server.serve_forever()  # returns on Ctrl-C (werkzeug catches it)
    except KeyboardInterrupt:  # Ctrl-C before serving began
        pass
    finally:
        server.server_close()
    print("\nstopped.", flush=True)
    return 0
