"""Play Hanabi in the browser with any agent: ``hanabi-adhoc serve`` (docs/browser.md).

A local web app (Flask; the ``web`` extra) in front of the engine. The server keeps each
session's game (:class:`hanabi_env.HanabiGame`) and checks every request against it; the page
(plain HTML, CSS and JavaScript in ``static/``, no build step) draws what the server sends and
holds no game rules.

* :mod:`hanabi_adhoc.web.app`: the Flask app and its JSON API (:func:`create_app`);
* :mod:`hanabi_adhoc.web.session`: one person's session: the game, the partners (any agent
  ``agents.make`` builds, or the Bayesian meta-agent), the per-move log, the study phases;
* :mod:`hanabi_adhoc.web.partners`: the partners offered and the meta-agent's shared table;
* :mod:`hanabi_adhoc.web.prepare`: the warm-up ``serve`` runs before it prints its address;
* :mod:`hanabi_adhoc.web.board`: the board as the page draws it;
* :mod:`hanabi_adhoc.web.study`: consent and questionnaires (off by default);
* :mod:`hanabi_adhoc.web.store`: the session folders (per-move logs, hanab.live records), from
  which a restarted server resumes its live sessions.

Importing this package does not import Flask; :func:`create_app` does.
"""

from hanabi_adhoc.web.session import AppOptions, Settings

__all__ = ["AppOptions", "Settings", "create_app"]


def create_app(options: AppOptions, host: str = "127.0.0.1"):
    """The Flask app (:func:`hanabi_adhoc.web.app.create_app`); needs the ``web`` extra."""
    from hanabi_adhoc.web.app import create_app as make

    return make(options, host)
