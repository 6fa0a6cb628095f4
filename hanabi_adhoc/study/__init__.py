"""The study of the papers ([ToG20], [Bayes21]) end to end, its resume checks and its report.

* :mod:`hanabi_adhoc.study.pipeline` — the whole study in one call
  (:func:`~hanabi_adhoc.study.pipeline.run_pipeline`), on a named configuration;
* :mod:`hanabi_adhoc.study.resume` — what a resumed study checks before trusting a file;
* :mod:`hanabi_adhoc.study.report` — the study's report folder
  (:func:`~hanabi_adhoc.study.report.write_report`).

One group of the floor above ``specs``/``settings``/``warmup``, beside the benchmark and the
web app (docs/architecture.md §1.1). Until 0.4.0 the old paths ``hanabi_adhoc.pipeline``,
``hanabi_adhoc.resume`` and ``hanabi_adhoc.report`` import these modules with one
``DeprecationWarning``.
"""
