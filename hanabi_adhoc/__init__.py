"""The top layer of the toolkit: the command line, the study pipeline and its report.

Everything here is glue over the four libraries below it, which never import it::

    hanabi_adhoc (cli, pipeline, report)
        -> meta (meta-agents) -> qd (MAP-Elites, GA) -> agents (rule agents, backends)
        -> hanabi_env (the game, the env, its vocabulary and metrics)

* :mod:`hanabi_adhoc.cli` — ``hanabi-adhoc`` and its subcommands;
* :mod:`hanabi_adhoc.pipeline` — the whole study in one call (:func:`run_pipeline`);
* :mod:`hanabi_adhoc.report` — the study's report folder.

See docs/architecture.md.
"""
