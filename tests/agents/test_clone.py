"""Behaviour cloning (agents.clone, ``hanabi-adhoc clone``): demonstrations, training, export.

The demonstrations are the observations the env gives each seat and the moves made (checked
against a game replayed move by move); hanab.live records give the same decisions as the game
they record; a clone of a rule agent learns its moves (held-out accuracy far above chance) and
plays as a no-code partner (``rl:PATH.json``) whose moves are the trained network's; the command
line writes the files and reports, and refuses bad input with one ``error:`` line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
from agents.clone import play_demonstrations, record_demonstrations
from hanabi_env import HanabiGame
from hanabi_env.config import HanabiConfig
from hanabi_env.records import to_hanablive
from hanabi_env.seeding import derive_seed

torch = pytest.importorskip("torch", reason="training needs torch (the rl extra)")

CONFIG = HanabiConfig(players=2, scoring="lenient")


def test_demonstrations_are_the_seats_observations_and_moves():
    demos = play_demonstrations(["iggi", "piers"], 3, config=CONFIG, seed=5, record_seats=[1])
    again = play_demonstrations(["iggi", "piers"], 3, config=CONFIG, seed=5, record_seats=[1])
    assert np.array_equal(demos.observations, again.observations)
    assert np.array_equal(demos.actions, again.actions)
    assert set(demos.seats.tolist()) == {1}
    assert demos.n_games == 3
    # replay game 0 with the same agents and compare every recorded decision of seat 1
    game = HanabiGame(CONFIG)
    deal = derive_seed(5, 0)
    game.reset(deal, start_player=0)
    iggi, piers = agents.make("iggi"), agents.make("piers")
    iggi.reset(deal)
    piers.reset(deal)
    rows = np.flatnonzero(demos.games == 0)
    k = 0
    while not game.is_terminal:
        seat = game.current_player
        action = (iggi, piers)[seat].act(game.view(seat))
        if seat == 1:
            i = rows[k]
            assert np.array_equal(demos.observation_batch(np.array([i]))[0], game.observation(1))
            assert np.array_equal(demos.legal[i], game.legal_mask().astype(bool))
            assert demos.actions[i] == action
            k += 1
        game.step(action)
    assert k == len(rows)
    assert demos.scores[0] == game.score


def test_records_give_the_decisions_of_the_game_they_record(tmp_path):
    games = []
    for seed in (1, 2):
        game = HanabiGame(players=2, scoring="lenient")
        game.reset(seed, start_player=0)
        bot, moves = agents.make("piers"), []
        bot.reset(seed)
        while not game.is_terminal:
            moves.append(bot.act(game.view(game.current_player)))
            game.step(moves[-1])
        games.append((game, moves))
    path = tmp_path / "games.hanablive.json"
    path.write_text(json.dumps([to_hanablive(g) for g, _ in games]))
    demos = record_demonstrations([path])
    assert demos.n_games == 2
    for g, (game, moves) in enumerate(games):
        kept = to_hanablive(game)["hanabi_adhoc"]["moves"]  # hanab.live may cut the end
        assert demos.actions[demos.games == g].tolist() == moves[:kept]
    bad = json.loads(path.read_text())
    bad[0]["deck"] = bad[0]["deck"][:10]
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=r"games\.hanablive\.json\[0\]"):
        record_demonstrations([path])


def test_a_clone_learns_its_teacher_and_plays_without_torch(tmp_path):
    from agents.clone import export_clone, train_clone

    demos = play_demonstrations("iggi", 150, config=CONFIG, seed=0)
    result = train_clone(demos, hidden=(128,), epochs=6, holdout=0.2, seed=0, learning_rate=3e-3)
    acc = [e["holdout_accuracy"] for e in result.history]
    chance = float(np.mean(1.0 / demos.legal.sum(1)))
    assert acc[-1] > 5 * chance, (acc, chance)  # far above guessing among the legal moves
    assert acc[-1] > acc[0], acc  # and learning
    partner = export_clone(result, demos, tmp_path / "iggi-clone.json", name="iggi-clone")
    loaded = agents.make(f"rl:{tmp_path / 'iggi-clone.json'}")
    doc = json.loads((tmp_path / "iggi-clone.json").read_text())
    assert doc["training"]["teacher"]["seats"] == ["IGGI", "IGGI"]
    assert doc["training"]["history"][-1]["holdout_accuracy"] == pytest.approx(acc[-1])
    # the numpy partner chooses the torch network's moves (float16 storage aside: compare
    # against the stored weights' forward pass)
    idx = np.arange(min(len(demos), 500))
    obs = demos.observation_batch(idx).astype(np.float32)
    logits = loaded.logits(obs)
    ours = np.where(demos.legal[idx], logits, -np.inf).argmax(1)
    x = torch.as_tensor(obs)
    ws = [torch.as_tensor(np.asarray(a, np.float32)) for a in doc_arrays(tmp_path, doc)]
    for i in range(0, len(ws) - 2, 2):
        x = torch.relu(x @ ws[i].T + ws[i + 1])
    ref = (x @ ws[-2].T + ws[-1]).numpy()
    assert np.array_equal(ours, np.where(demos.legal[idx], ref, -np.inf).argmax(1))
    assert partner.name == "rl:iggi-clone"


def doc_arrays(folder, doc) -> list[np.ndarray]:
    with np.load(folder / doc["weights"]["file"], allow_pickle=False) as z:
        return [z[n] for n in doc["weights"]["arrays"]]


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="games"):
        play_demonstrations("iggi", 0)
    with pytest.raises(ValueError, match="seats has 3 agents"):
        play_demonstrations(["iggi"] * 3, 1)
    with pytest.raises(ValueError, match="observation_type"):
        play_demonstrations("iggi", 1, observation_type="seer")
    from agents.clone import train_clone

    with pytest.raises(TypeError, match="demos"):
        train_clone("not demos")  # type: ignore[arg-type]


def test_the_command_line_clones_and_reports(tmp_path, capsys):
    from hanabi_adhoc.cli import main

    out = tmp_path / "c.json"
    code = main(["clone", "iggi", "--games", "20", "--epochs", "1", "--hidden", "16",
                 "--eval-games", "4", "--quiet", "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert out.is_file()
    assert (tmp_path / "c.npz").is_file()
    assert "clone self-play:" in printed
    assert "teacher self-play:" in printed
    for argv, named in (
        (["clone", "--out", str(tmp_path / "d.json")], "AGENT"),
        (["clone", "iggi", "--out", str(tmp_path / "d.txt")], "--out"),
        (["clone", "iggi", "piers", "iggi", "--out", str(tmp_path / "d.json")], "AGENT"),
        (["clone", "nosuchagent", "--out", str(tmp_path / "d.json")], "AGENT"),
        (["clone", "iggi", "--hidden", "0", "--out", str(tmp_path / "d.json")], "--hidden"),
    ):
        code = _exit_code(main, argv)
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2, (argv, err)
        assert len(err) == 1 or err[0].startswith("usage:"), err
        assert err[-1].startswith("error:") or "error:" in err[-1], err
        assert named in err[-1], (argv, err)
    assert not (tmp_path / "d.json").exists()


def _exit_code(main, argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's usage errors
        return int(exc.code or 0)


def test_settings_by_object_or_keywords_train_the_same_network():
    """``train_clone(settings=CloneSettings(...))`` is the keywords' network; the object checks
    each field when made, is frozen, and is not mixed with its keywords (issue 42 item 4)."""
    import dataclasses

    from agents.clone import CloneSettings, train_clone

    demos = play_demonstrations("iggi", 20, config=CONFIG, seed=1)
    keywords = {"hidden": (16,), "epochs": 2, "seed": 3, "learning_rate": 3e-3, "holdout": 0.25}
    a = train_clone(demos, **keywords)  # type: ignore[arg-type]
    b = train_clone(demos, settings=CloneSettings(**keywords))  # type: ignore[arg-type]
    assert all(np.array_equal(x, y) for x, y in zip(a.arrays, b.arrays, strict=True))
    assert a.settings == b.settings
    assert a.history[-1]["holdout_accuracy"] == b.history[-1]["holdout_accuracy"]
    for bad, name in (({"hidden": ()}, "hidden"), ({"epochs": 0}, "epochs"),
                      ({"learning_rate": 0}, "learning_rate"), ({"holdout": 1.0}, "holdout"),
                      ({"activation": "gelu"}, "activation"), ({"recurrent": "lstm"}, "recurrent"),
                      ({"seed": -1}, "seed")):  # fmt: skip
        with pytest.raises((TypeError, ValueError), match=name):
            CloneSettings(**bad)  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        CloneSettings().epochs = 3  # type: ignore[misc]
    with pytest.raises(TypeError, match="settings"):
        train_clone(demos, settings=CloneSettings(), epochs=3)


def test_training_further_starts_from_the_partners_weights(tmp_path, capsys):
    """``init=`` / ``--init``: the run starts where the partner ends (a zero-size step keeps
    its held-out accuracy), records the starting weights' digest, and refuses a partner of
    another shape before any game is played."""
    from agents.clone import export_clone, train_clone
    from agents.rl.partners import partner_weights
    from hanabi_adhoc.cli import main

    demos = play_demonstrations("iggi", 40, config=CONFIG, seed=0)
    first = train_clone(demos, hidden=(32,), epochs=2, seed=0, learning_rate=3e-3)
    export_clone(first, demos, tmp_path / "a.json", name="a")
    config, arrays = partner_weights(str(tmp_path / "a.json"))
    still = train_clone(demos, hidden=(32,), epochs=1, seed=0, learning_rate=1e-12, init=arrays)
    fresh = train_clone(demos, hidden=(32,), epochs=1, seed=0, learning_rate=1e-12)
    assert still.history[0]["holdout_accuracy"] == pytest.approx(
        first.history[-1]["holdout_accuracy"], abs=0.02)  # float16 storage aside  # fmt: skip
    assert fresh.history[0]["holdout_accuracy"] < still.history[0]["holdout_accuracy"]
    assert still.settings["init_sha256"] == config["weights"]["sha256"]
    with pytest.raises(ValueError, match="init: shapes"):
        train_clone(demos, hidden=(64,), epochs=1, init=arrays)
    with pytest.raises(ValueError, match="init: starting weights are for an MLP"):
        train_clone(demos, hidden=(32,), epochs=1, init=arrays, recurrent="gru")
    out = tmp_path / "b.json"
    code = main(["clone", "iggi", "--games", "20", "--epochs", "1", "--hidden", "32",
                 "--eval-games", "0", "--quiet", "--init", f"rl:{tmp_path / 'a.json'}",
                 "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr()
    doc = json.loads(out.read_text())
    assert doc["training"]["settings"]["init_sha256"] == config["weights"]["sha256"]
    for argv, text in (
        (["--hidden", "64"], "hidden [32]"),
        (["--init", "rl:nope"], "no such RL partner"),
        (["--init", "sb3:model.zip"], "is not a network"),
        (["--recurrent", "gru"], "not with --recurrent"),
    ):
        if "--init" not in argv:
            argv = [*argv, "--init", str(tmp_path / "a.json")]
        if "--hidden" not in argv:
            argv = [*argv, "--hidden", "32"]
        code = _exit_code(main, ["clone", "iggi", "--out", str(tmp_path / "c.json"), *argv])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2, err
        assert "--init" in err[-1], err
        assert text in err[-1], err
    assert not (tmp_path / "c.json").exists()
