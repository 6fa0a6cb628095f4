"""Study hooks of the browser app: a consent text and questionnaires before and after a session.

Off by default. ``hanabi-adhoc serve --study`` turns them on with :data:`DEFAULT_STUDY`;
``--study FILE`` reads a study of your own, a JSON file of the same shape::

    {"consent": "text shown before anything else (the person must agree to go on)",
     "pre":  [QUESTION, ...],     # asked before the first game
     "post": [QUESTION, ...]}     # asked after the last game

    QUESTION = {"id": "experience", "text": "How often have you played Hanabi?",
                "kind": "choice", "options": ["never", "a few times", "often"]}
             | {"id": "trust", "text": "...", "kind": "scale", "min": 1, "max": 7,
                "labels": ["not at all", "completely"]}
             | {"id": "comments", "text": "...", "kind": "text", "required": false}

Answers are checked here (:func:`check_answers`) and stored in the session's ``session.json``
with the time they were given (docs/browser.md §3).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

__all__ = ["DEFAULT_STUDY", "MAX_TEXT", "check_answers", "check_study", "load_study"]

MAX_TEXT = 2000
"""Longest free-text answer, in characters."""

DEFAULT_STUDY: dict = {
    "consent": (
        "This is a study of how people play Hanabi with computer partners. You will play a few "
        "games in this browser window. Your moves, the time you take for each and your answers "
        "to two short questionnaires are saved on this computer; no name or other personal "
        "data is asked for, and nothing is sent over the internet. You may stop at any time by "
        "closing the window. Do you agree to take part?"
    ),
    "pre": [
        {
            "id": "experience",
            "text": "How often have you played Hanabi before?",
            "kind": "choice",
            "options": ["never", "once or twice", "a few times", "often"],
        },
        {
            "id": "style",
            "text": "When you play, how much do you like to give hints?",
            "kind": "scale",
            "min": 1,
            "max": 7,
            "labels": ["rarely", "as often as I can"],
        },
    ],
    "post": [
        {
            "id": "partner_understood",
            "text": "How well did your partner understand your hints?",
            "kind": "scale",
            "min": 1,
            "max": 7,
            "labels": ["not at all", "perfectly"],
        },
        {
            "id": "partner_adapted",
            "text": "Did your partner adapt to the way you play?",
            "kind": "scale",
            "min": 1,
            "max": 7,
            "labels": ["not at all", "very much"],
        },
        {
            "id": "comments",
            "text": "Anything else you want to tell us?",
            "kind": "text",
            "required": False,
        },
    ],
}
"""The study of ``serve --study`` without a file."""

_KINDS = ("choice", "scale", "text")


def check_study(study: object) -> dict:
    """``study`` checked: a consent text and lists of well-formed questions with distinct ids.

    Returns:
        The study, with ``pre``/``post`` defaulting to empty lists.

    Raises:
        ValueError: What is wrong and where (``study['pre'][1]['kind']: ...``).
    """
    if not isinstance(study, Mapping):
        raise ValueError(f"study must be a JSON object, got {type(study).__name__}")
    consent = study.get("consent")
    if not isinstance(consent, str) or not consent.strip():
        raise ValueError("study['consent'] must be a non-empty text")
    out: dict = {"consent": consent}
    for stage in ("pre", "post"):
        questions = study.get(stage, [])
        if not isinstance(questions, list):
            raise ValueError(f"study[{stage!r}] must be a list of questions")
        ids = [q.get("id") if isinstance(q, Mapping) else None for q in questions]
        if len(set(ids)) != len(ids):
            raise ValueError(f"study[{stage!r}]: question ids must be distinct, got {ids}")
        out[stage] = [_check_question(f"study[{stage!r}][{i}]", q) for i, q in enumerate(questions)]
    unknown = sorted(set(study) - {"consent", "pre", "post"})
    if unknown:
        raise ValueError(f"study: unknown keys {unknown}; allowed: consent, pre, post")
    return out


def _check_question(where: str, q: object) -> dict:
    if not isinstance(q, Mapping):
        raise ValueError(f"{where} must be an object")
    for key in ("id", "text"):
        if not isinstance(q.get(key), str) or not q[key].strip():
            raise ValueError(f"{where}[{key!r}] must be a non-empty text")
    kind = q.get("kind")
    if kind not in _KINDS:
        raise ValueError(f"{where}['kind']={kind!r}; allowed: {', '.join(_KINDS)}")
    if kind == "choice":
        options = q.get("options")
        if not isinstance(options, list) or len(options) < 2:
            raise ValueError(f"{where}['options'] must list at least 2 answers")
        if not all(isinstance(o, str) and o.strip() for o in options):
            raise ValueError(f"{where}['options'] must be non-empty texts")
    if kind == "scale":
        lo, hi = q.get("min"), q.get("max")
        if type(lo) is not int or type(hi) is not int or not lo < hi <= lo + 20:
            raise ValueError(f"{where}: 'min' < 'max' must be ints at most 20 apart")
    if not isinstance(q.get("required", True), bool):
        raise ValueError(f"{where}['required'] must be true or false")
    return dict(q)


def load_study(path: str | Path | None) -> dict:
    """The study of ``serve --study [FILE]``: :data:`DEFAULT_STUDY`, or FILE checked.

    Raises:
        OSError: FILE cannot be read.
        ValueError: FILE is not JSON, or not a study (:func:`check_study`).
    """
    if path is None:
        return check_study(DEFAULT_STUDY)
    with open(path) as fh:
        try:
            data = json.load(fh)
        except ValueError as exc:
            raise ValueError(f"{path}: not JSON ({exc})") from None
    try:
        return check_study(data)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def check_answers(questions: list[dict], answers: object) -> dict:
    """The answers to ``questions``, checked: every required one given, each of its kind.

    Args:
        questions: The stage's questions (:func:`check_study`).
        answers: ``{question id: answer}`` (a choice's text, a scale's int, a text).

    Returns:
        ``{question id: answer}`` for the answered questions (unanswered optional ones absent).

    Raises:
        ValueError: A missing required answer, an answer of the wrong kind or out of range, or
            an unknown question id; the message names the question.
    """
    if not isinstance(answers, Mapping):
        raise ValueError("answers must be an object {question id: answer}")
    known = {q["id"]: q for q in questions}
    unknown = sorted(set(answers) - set(known))
    if unknown:
        raise ValueError(f"unknown questions {unknown}; this stage asks {sorted(known)}")
    out = {}
    for qid, q in known.items():
        a = answers.get(qid)
        if a is None or a == "":
            if q.get("required", True):
                raise ValueError(f"please answer: {q['text']}")
            continue
        if q["kind"] == "choice" and a not in q["options"]:
            raise ValueError(f"{qid}: {a!r} is not one of {q['options']}")
        if q["kind"] == "scale" and (type(a) is not int or not q["min"] <= a <= q["max"]):
            raise ValueError(f"{qid}: {a!r} is not a whole number from {q['min']} to {q['max']}")
        if q["kind"] == "text" and (not isinstance(a, str) or len(a) > MAX_TEXT):
            raise ValueError(f"{qid}: the answer must be a text of at most {MAX_TEXT} characters")
        out[qid] = a
    return out
