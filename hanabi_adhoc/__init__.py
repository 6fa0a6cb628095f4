"""The top layer of the toolkit: the command line, the study pipeline and its report.

Everything here is glue over the four libraries below it, which never import it::

    hanabi_adhoc (cli, study, benchmark, web)
        -> meta (meta-agents) -> qd (MAP-Elites, GA) -> agents (rule agents, backends)
        -> hanabi_env (the game, the env, its vocabulary and metrics)

* :mod:`hanabi_adhoc.cli` — ``hanabi-adhoc`` and its subcommands;
* :mod:`hanabi_adhoc.benchmark` — the ad-hoc teamwork benchmark; :mod:`hanabi_adhoc.web` — play
  in the browser;
* :mod:`hanabi_adhoc.study` — the whole study in one call
  (:func:`hanabi_adhoc.study.pipeline.run_pipeline`), its resume checks and its report folder
  (``hanabi_adhoc.pipeline``, ``.resume`` and ``.report``, the old paths, warn until 0.4.0).

See docs/architecture.md.
"""
