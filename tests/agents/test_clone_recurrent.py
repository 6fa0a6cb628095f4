"""Recurrent clones (``train_clone(recurrent="gru")``, ``hanabi-adhoc clone --recurrent gru``).

A GRU clone trains on whole games and is exported in the no-code partner format (kind
``"gru"``); the numpy partner's forward pass is torch's GRU on the same inputs; it keeps one
hidden state per game and seat, so games played interleaved (lockstep batches, direct
``act_batch`` calls alternating between games) give the moves each game gets alone; damaged
files are refused as for the MLP partners; the command line trains one and refuses a bad
``--recurrent``.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
from agents.clone import export_clone, play_demonstrations, sequences, train_clone
from agents.evaluate import game_seeds, play_games
from agents.rl.partners import RecurrentPartner, load_partner
from hanabi_env import HanabiGame
from hanabi_env.config import HanabiConfig

torch = pytest.importorskip("torch", reason="training needs torch (the rl extra)")

CONFIG = HanabiConfig(players=2, scoring="lenient")


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A small GRU clone of IGGI (encoder 24, GRU 16), exported with float32 weights."""
    demos = play_demonstrations("iggi", 40, config=CONFIG, seed=3)
    result = train_clone(
        demos, hidden=(24, 16), epochs=2, batch_size=256, holdout=0.25, seed=1,
        recurrent="gru", threads=1, learning_rate=3e-3,
    )  # fmt: skip
    path = tmp_path_factory.mktemp("gru") / "iggi-gru.json"
    partner = export_clone(result, demos, path, name="iggi-gru", weight_dtype="float32")
    return demos, result, path, partner


def test_a_gru_clone_trains_on_whole_games_and_exports_as_a_recurrent_partner(clone):
    demos, result, path, partner = clone
    assert result.kind == "gru"
    assert len(result.history) == 2
    assert all(0 <= e["holdout_accuracy"] <= 1 for e in result.history)
    doc = json.loads(path.read_text())
    assert doc["architecture"]["kind"] == "gru"
    assert doc["architecture"]["layers"] == [demos.obs_size, 24, 16, demos.legal.shape[1]]
    assert doc["training"]["settings"]["recurrent"] == "gru"
    loaded = agents.make(f"rl:{path}")
    assert isinstance(loaded, RecurrentPartner)
    assert isinstance(partner, RecurrentPartner)
    # every decision of the training data is in exactly one sequence, in the order played
    seqs = sequences(demos, np.arange(len(demos)))
    assert sorted(np.concatenate(seqs).tolist()) == list(range(len(demos)))
    for q in seqs:
        assert len(set(demos.games[q].tolist())) == 1
        assert len(set(demos.seats[q].tolist())) == 1
        assert np.all(np.diff(q) > 0)


def _torch_reference(doc: dict, folder, obs: np.ndarray) -> np.ndarray:
    """Logits of torch's own GRU (float64) over one sequence ``obs`` ``(T, obs_dim)``."""
    with np.load(folder / doc["weights"]["file"], allow_pickle=False) as z:
        a = {n: torch.as_tensor(z[n].astype(np.float64)) for n in doc["weights"]["arrays"]}
    layers = doc["architecture"]["layers"]
    k = len(layers) - 3
    gru = torch.nn.GRU(layers[-3], layers[-2], batch_first=True).double()
    with torch.no_grad():
        gru.weight_ih_l0.copy_(a["gru_wi"])
        gru.weight_hh_l0.copy_(a["gru_wh"])
        gru.bias_ih_l0.copy_(a["gru_bi"])
        gru.bias_hh_l0.copy_(a["gru_bh"])
        x = torch.as_tensor(obs.astype(np.float64))
        for i in range(k):
            x = torch.relu(x @ a[f"w{i}"].T + a[f"b{i}"])
        h = gru(x[None])[0][0]
        return (h @ a[f"w{k}"].T + a[f"b{k}"]).numpy()


def test_the_numpy_forward_is_torchs_gru(clone):
    demos, _, path, _ = clone
    doc = json.loads(path.read_text())
    partner = load_partner(str(path))
    for q in sequences(demos, np.arange(len(demos)))[:6]:
        obs = demos.observation_batch(q).astype(np.float32)
        ref = _torch_reference(doc, path.parent, obs)
        h = np.zeros((1, partner.units))
        ours = []
        for row in obs:
            logits, h = partner.step(row[None], h)
            ours.append(logits[0])
        np.testing.assert_allclose(np.array(ours), ref, atol=1e-5, rtol=0)
        # the same rows as one batch of first decisions are the zero-state logits
        np.testing.assert_allclose(partner.logits(obs)[0], ref[0], atol=1e-5, rtol=0)


def _play_alone(partner: RecurrentPartner, deal: int) -> tuple[list[int], list[np.ndarray]]:
    """One game, both seats the partner, decided one view at a time (act): the moves and
    each seat's last hidden state."""
    game = HanabiGame(CONFIG)
    game.reset(deal, start_player=0)
    partner.reset(0)
    moves = []
    while not game.is_terminal:
        moves.append(partner.act(game.view(game.current_player)))
        game.step(moves[-1])
    return moves, [partner.states.solo_h[seat][0] for seat in range(2)]


def test_interleaved_games_play_as_each_alone(clone):
    _, _, path, _ = clone
    partner = load_partner(str(path))
    deals = [11, 12, 13]
    alone, states = zip(*(_play_alone(partner, d) for d in deals), strict=True)
    assert len({tuple(m) for m in alone}) > 1  # the games differ
    # act_batch, alternating between the games of one chunk, one decision at a time
    games = [HanabiGame(CONFIG) for _ in deals]
    for g, d in zip(games, deals, strict=True):
        g.reset(d, start_player=0)
    partner.start_games(np.zeros((len(deals), 2), dtype=np.int64))
    played: list[list[int]] = [[] for _ in deals]
    while not all(g.is_terminal for g in games):
        for i in reversed(range(len(games))):  # another order than game by game
            g = games[i]
            if g.is_terminal:
                continue
            seat = g.current_player
            view = g.view(seat)
            obs = view.encode("card_knowledge")[None].astype(np.float32)
            mask = g.legal_mask().astype(np.int8)[None]
            move = partner.act_batch(
                obs, mask, np.array([seat]), np.zeros(1), views=[view], games=np.array([i])
            )
            played[i].append(int(move[0]))
            g.step(int(move[0]))
    assert played == list(alone)
    for i, last in enumerate(states):  # each game's states are its own, as if alone
        np.testing.assert_allclose(partner.states.chunk[2 * i : 2 * i + 2], last, atol=1e-12)
    # the lockstep player: all games in one batch, and each in a batch of its own
    _, deal_seeds, agent_seeds = game_seeds(7, 5, 2, False)
    seats = np.zeros((5, 2), dtype=np.int64)
    together = play_games([partner], seats, deal_seeds, agent_seeds, CONFIG, record_actions=True)
    for i in range(5):
        one = play_games(
            [partner], seats[i : i + 1], deal_seeds[i : i + 1], agent_seeds[i : i + 1], CONFIG,
            record_actions=True,
        )  # fmt: skip
        n = int((one.actions[0] >= 0).sum())
        assert np.array_equal(together.actions[i, :n], one.actions[0, :n])
        game = HanabiGame(CONFIG)
        game.reset(int(deal_seeds[i]), start_player=0)
        assert one.scores[0] == together.scores[i]


def test_the_hidden_state_matters(clone):
    """A GRU partner is not an MLP in disguise: the same observation after another history
    gives other logits."""
    demos, _, path, _ = clone
    partner = load_partner(str(path))
    q = sequences(demos, np.arange(len(demos)))[0]
    obs = demos.observation_batch(q).astype(np.float32)
    h = np.zeros((1, partner.units))
    for row in obs[:-1]:
        _, h = partner.step(row[None], h)
    after, _ = partner.step(obs[-1:], h)
    assert not np.allclose(after, partner.logits(obs[-1:]))


def test_damaged_recurrent_files_are_refused(clone, tmp_path):
    _, _, path, _ = clone
    doc = json.loads(path.read_text())
    npz = doc["weights"]["file"]
    (tmp_path / npz).write_bytes((path.parent / npz).read_bytes())
    arch = doc["architecture"]
    bad = dict(doc, architecture={**arch, "layers": arch["layers"][:2]})
    (tmp_path / "a.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="three or more"):
        load_partner(str(tmp_path / "a.json"))
    wrong = dict(doc, weights={**doc["weights"], "arrays": ["w0", "b0"]})
    (tmp_path / "b.json").write_text(json.dumps(wrong))
    with pytest.raises(ValueError, match="gru_wi"):
        load_partner(str(tmp_path / "b.json"))
    moved = dict(doc, check={**doc["check"], "scores": [s + 1 for s in doc["check"]["scores"]]})
    (tmp_path / "c.json").write_text(json.dumps(moved))
    with pytest.raises(ValueError, match="does not play the moves"):
        load_partner(str(tmp_path / "c.json"))
    with pytest.raises(ValueError, match="recurrent"):
        train_clone(clone[0], recurrent="lstm")
    partner = load_partner(str(path))
    with pytest.raises(ValueError, match="views and games"):
        partner.act_batch(np.zeros((1, 3)), np.ones((1, 3)), np.zeros(1, int), np.zeros(1))
