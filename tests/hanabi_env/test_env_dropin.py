"""``hanabi_env`` as a drop-in for PettingZoo's ``hanabi_v5``: the parts a user switching notices.

Registration in PettingZoo's registry, the ``rgb_array`` picture, the order of the dead steps after
the game ends (compared with hanabi_v5 itself on identical deals), hanabi_v5's extra public
attributes, and the user documentation reachable as the README says.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pettingzoo
import pytest

import hanabi_env
from hanabi_env.render import render_rgb_array

REPO = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------------------------
# hanabi_v5 (OpenSpiel through Shimmy), driven in lockstep with our env on the same deal
# ---------------------------------------------------------------------------------------------


def _v5(**kwargs):
    pytest.importorskip("pyspiel", reason="hanabi_v5 needs open_spiel")
    pytest.importorskip("shimmy", reason="hanabi_v5 needs shimmy")
    return pettingzoo.make("aec", "classic/hanabi-v5", **kwargs)


def _full_deck(cfg: dict) -> Counter:
    c, r = cfg.get("colors", 5), cfg.get("ranks", 5)
    return Counter(
        {col * r + k: 3 if k == 0 else 1 if k == r - 1 else 2 for col in range(c) for k in range(r)}
    )


def _play(e, choose):
    """Run a game to the end; record every visit (agent, reward, done) and each live step."""
    visits, actions, legal, observations = [], [], [], []
    u = e.unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TerminateIllegalWrapper warns on the illegal move
        for agent in e.agent_iter():
            obs, rew, term, trunc, _ = e.last()
            visits.append((agent, float(rew), bool(term), bool(trunc)))
            if term or trunc:
                e.step(None)
                continue
            legal.append(u.legal_moves)
            observations.append(np.asarray(obs["observation"], dtype=np.int8))
            action = choose(len(actions), obs["action_mask"])
            actions.append(action)
            e.step(action)
    return visits, actions, legal, observations


def _random_chooser(seed, illegal_at=None):
    rng = np.random.default_rng(seed)

    def choose(i, mask):
        if i == illegal_at:
            return int(np.flatnonzero(mask == 0)[0])
        return int(rng.choice(np.flatnonzero(mask)))

    return choose


def _lockstep(cfg, seed, illegal_at=None):
    """Play hanabi_v5, then replay its deal and moves on ``hanabi_env.env``."""
    v5 = _v5(**cfg)
    v5.reset(seed=seed)
    v5_run = _play(v5, _random_chooser(seed, illegal_at))
    state = v5.unwrapped.hanabi_env.game_state
    dealt = [pa.action for pa in state.full_history() if pa.player == -1]  # chance = deals
    rest = _full_deck(cfg)
    rest.subtract(Counter(dealt))
    deck = dealt + sorted(rest.elements())  # the cards never drawn, in any order
    ours = hanabi_env.env(**cfg)
    ours.reset(options={"deck": deck})
    moves = iter(v5_run[1])
    our_run = _play(ours, lambda i, mask: next(moves))
    return v5, v5_run, ours, our_run


LOCKSTEP = [({"players": p}, seed) for p in (2, 3, 4) for seed in range(3)] + [
    ({"players": 2, "colors": 3, "ranks": 3, "hand_size": 3, "max_life_tokens": 2}, 5),
]


@pytest.mark.parametrize(("cfg", "seed"), LOCKSTEP)
def test_post_game_agent_order_matches_hanabi_v5(cfg, seed):
    v5, (v5_visits, _, v5_legal, v5_obs), ours, (our_visits, _, our_legal, our_obs) = _lockstep(
        cfg, seed
    )
    assert not any(trunc for *_, trunc in v5_visits), "hanabi_v5 truncated: not comparable"
    # the same game: same observations at every live step
    assert len(v5_obs) == len(our_obs)
    for a, b in zip(v5_obs, our_obs, strict=True):
        np.testing.assert_array_equal(a, b)
    # every visit, live and dead, in the same order with the same rewards
    assert our_visits == v5_visits
    dead = [agent for agent, _, term, _ in our_visits if term]
    assert dead == ours.unwrapped.possible_agents  # player_0 first, seat order
    assert ours.unwrapped.agent_selection == v5.unwrapped.agent_selection == "player_0"
    assert our_legal == v5_legal


def test_the_last_mover_is_not_always_player_0_in_the_lockstep_games():
    """The order test is not vacuous: some games end on a move by another seat."""
    last_movers = set()
    for cfg, seed in LOCKSTEP[:6]:
        _, _, _, (visits, *_) = _lockstep(cfg, seed)
        live = [agent for agent, _, term, _ in visits if not term]
        last_movers.add(live[-1])
    assert last_movers - {"player_0"}


@pytest.mark.parametrize("players", [2, 3])
def test_post_game_order_after_an_illegal_move_matches_hanabi_v5(players):
    _, (v5_visits, *_), _, (our_visits, *_) = _lockstep({"players": players}, 11, illegal_at=3)
    assert our_visits == v5_visits
    assert any(rew == -1 for _, rew, term, _ in our_visits if term)


def test_raw_env_dead_steps_start_with_player_0():
    e = hanabi_env.raw_env(players=3)
    e.reset(seed=2)
    rng = np.random.default_rng(0)
    while not e.game.is_terminal:
        e.step(int(rng.choice(e.legal_moves)))
    assert e.agent_selection == "player_0"
    order = []
    while e.agents:
        order.append(e.agent_selection)
        e.step(None)
    assert order == ["player_0", "player_1", "player_2"]
    assert e.agent_selection == "player_0"
    assert e.legal_moves == []


# ---------------------------------------------------------------------------------------------
# hanabi_v5's public attributes
# ---------------------------------------------------------------------------------------------

# Public names of hanabi_v5's unwrapped env that ours deliberately lacks.
NOT_APPLICABLE = {
    "hanabi_env": "hanabi_v5's Shimmy/OpenSpiel backend object; our engine is `game` (HanabiGame)",
    "screen": "hanabi_v5's pygame surface for its pygame rendering; ours draws with Pillow",
}


def _public(obj) -> set[str]:
    return {n for n in dir(obj) if not n.startswith("_")}


@pytest.mark.parametrize("cfg", [{}, {"players": 3}, {"players": 4, "hand_size": 4}])
def test_every_public_attribute_of_hanabi_v5_exists(cfg):
    v5 = _v5(**cfg)
    v5.reset(seed=0)
    ours = hanabi_env.env(**cfg)
    ours.reset(seed=0)
    theirs, mine = v5.unwrapped, ours.unwrapped
    missing = _public(theirs) - _public(mine) - set(NOT_APPLICABLE)
    assert not missing, f"hanabi_v5 attributes missing from raw_env: {sorted(missing)}"
    assert set(NOT_APPLICABLE) <= _public(theirs), "an exclusion no longer applies"

    # values that do not depend on the deal agree (same types too)
    for name in (
        "observation_vector_dim",
        "all_moves",
        "required_keys",
        "possible_agents",
        "agents",
        "agent_selection",
        "num_agents",
        "max_num_agents",
        "render_mode",
        "action_spaces",
        "terminations",
        "truncations",
        "rewards",
    ):
        a, b = getattr(theirs, name), getattr(mine, name)
        assert type(a) is type(b), name
        assert a == b, name
    assert mine.observation_vector_dim == (mine.game.observation_size,)
    for agent in mine.possible_agents:
        # the same spaces (default observation_dtype="float64"), so SB3 models cross-load
        assert mine.observation_space(agent) == theirs.observation_space(agent)
        assert mine.observation_spaces[agent] == theirs.observation_spaces[agent]
        a, b = ours.observe(agent), v5.observe(agent)
        for key in ("observation", "action_mask"):
            assert a[key].dtype == b[key].dtype, key
            assert a[key].shape == b[key].shape, key
    assert set(theirs.metadata) == set(mine.metadata)
    assert set(theirs.metadata["render_modes"]) <= set(mine.metadata["render_modes"])
    assert theirs.metadata["is_parallelizable"] == mine.metadata["is_parallelizable"]
    assert set(theirs.infos) == set(mine.infos)
    # legal_moves: a list of ints, the action mask's ones (values compared in the lockstep test)
    legal = mine.legal_moves
    assert isinstance(legal, list)
    assert all(type(a) is int for a in legal)
    assert legal == np.flatnonzero(ours.observe(ours.agent_selection)["action_mask"]).tolist()
    assert type(theirs.legal_moves) is list
    # reachable through the wrappers as in hanabi_v5
    assert ours.legal_moves == legal
    assert ours.all_moves == mine.all_moves


def test_extra_attributes_need_no_hanabi_v5():
    e = hanabi_env.raw_env(colors=3, ranks=2, players=2, hand_size=3)
    assert e.all_moves == list(range(e.game.n_actions))  # available before reset
    assert e.observation_vector_dim == e.observation_space("player_0")["observation"].shape
    # hanabi_v5's configuration keys, spelled out here (not read from the env under test)
    keys = {"colors", "ranks", "players", "hand_size", "observation_type", "random_start_player"}
    assert e.required_keys == keys | {"max_information_tokens", "max_life_tokens"}
    e.reset(seed=1)
    assert e.legal_moves == e.game.legal_actions().tolist()


# ---------------------------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------------------------


def test_make_by_name():
    assert hanabi_env.ENV_ID == "hanabi_adhoc/hanabi_env-v2"
    e = pettingzoo.make("aec", hanabi_env.ENV_ID, players=3, hand_size=4)
    assert isinstance(e.unwrapped, hanabi_env.raw_env)
    assert e.unwrapped.config.players == 3
    assert type(e) is type(hanabi_env.env())  # the wrapped factory, like classic/hanabi-v5
    e.reset(seed=0)
    assert len(e.agents) == 3
    # PettingZoo's id forms resolve to it: unversioned, and the metadata-style underscore name
    for name in ("hanabi_adhoc/hanabi_env", "hanabi_adhoc/hanabi_env_v2"):
        assert pettingzoo.spec("aec", name).id == hanabi_env.ENV_ID
    name = "hanabi_adhoc/" + e.unwrapped.metadata["name"]  # "hanabi_env_v2"
    assert pettingzoo.spec("aec", name).id == hanabi_env.ENV_ID
    # the previous version is not registered: PettingZoo names the available one
    with pytest.raises(pettingzoo.env_registry.exceptions.VersionNotFound, match="v2"):
        pettingzoo.make("aec", "hanabi_adhoc/hanabi_env-v1")


def test_registration_is_idempotent_and_leaves_hanabi_v5_alone():
    before = pettingzoo.spec("aec", "classic/hanabi-v5")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo warns when an id is overridden
        assert hanabi_env.register_envs() == [hanabi_env.ENV_ID]
        assert hanabi_env.register_envs() == [hanabi_env.ENV_ID]
    assert pettingzoo.spec("aec", "classic/hanabi-v5") == before
    assert before.entry_point == "pettingzoo.classic.hanabi.hanabi:env"
    assert hanabi_env.ENV_ID not in pettingzoo.parallel_registry  # turn-based, as hanabi_v5


def test_registration_happens_on_import_hanabi_env_only():
    code = (
        "import warnings; warnings.simplefilter('error')\n"
        "import pettingzoo\n"
        "assert 'hanabi_adhoc/hanabi_env-v2' not in pettingzoo.aec_registry\n"
        "import hanabi_env, importlib\n"
        "assert 'hanabi_adhoc/hanabi_env-v2' in pettingzoo.aec_registry\n"
        "importlib.reload(hanabi_env)  # re-import: no override warning\n"
        "print(type(pettingzoo.make('aec', 'hanabi_adhoc/hanabi_env-v2').unwrapped).__name__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "raw_env"


# ---------------------------------------------------------------------------------------------
# rgb_array
# ---------------------------------------------------------------------------------------------

TOY = {"colors": 2, "ranks": 3, "players": 2, "hand_size": 2, "max_information_tokens": 3}


def _random_moves(e, n, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        if e.game.is_terminal:
            break
        e.step(int(rng.choice(e.legal_moves)))


@pytest.mark.parametrize(
    "cfg",
    [
        {},
        TOY,
        {"players": 3},
        {"players": 5, "hand_size": 4},
        {"colors": 5, "ranks": 2, "players": 4, "hand_size": 2, "max_life_tokens": 1},
    ],
)
def test_rgb_array_is_an_image(cfg):
    e = hanabi_env.raw_env(render_mode="rgb_array", **cfg)
    e.reset(seed=3)
    img = e.render()
    assert isinstance(img, np.ndarray)
    assert img.dtype == np.uint8
    assert img.ndim == 3
    assert img.shape[2] == 3
    assert 200 <= img.shape[0] <= 1200
    assert 200 <= img.shape[1] <= 1200
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 10  # not a blank canvas
    # the size depends on the configuration only, not on the state
    _random_moves(e, 200)
    assert e.game.is_terminal
    assert e.render().shape == img.shape


def test_rgb_array_changes_after_a_move_and_differs_between_states():
    e = hanabi_env.raw_env(render_mode="rgb_array")
    e.reset(seed=0)
    obs = e.observe("player_0")["observation"].copy()
    first = e.render()
    np.testing.assert_array_equal(e.render(), first)  # deterministic
    np.testing.assert_array_equal(e.observe("player_0")["observation"], obs)  # no side effect
    e.step(e.legal_moves[-1])  # a hint: only knowledge, tokens and the last move change
    after_hint = e.render()
    assert after_hint.shape == first.shape
    assert not np.array_equal(after_hint, first)
    e.step(5)  # play slot 0
    assert not np.array_equal(e.render(), after_hint)

    other = hanabi_env.raw_env(render_mode="rgb_array")
    other.reset(seed=1)  # another deal
    assert not np.array_equal(other.render(), first)


def test_rgb_array_through_the_wrappers_and_render_test():
    from pettingzoo.test import render_test

    e = hanabi_env.env(render_mode="rgb_array")
    e.reset(seed=0)
    np.testing.assert_array_equal(e.render(), render_rgb_array(e.unwrapped.game))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        render_test(hanabi_env.env)  # every mode in metadata, including "human" (prints)


def test_rgb_array_png_at_toy_scale(tmp_path):
    from PIL import Image

    e = hanabi_env.raw_env(render_mode="rgb_array", **TOY)
    e.reset(seed=0)
    _random_moves(e, 3)
    img = e.render()
    path = tmp_path / "toy.png"
    Image.fromarray(img).save(path)
    back = np.asarray(Image.open(path).convert("RGB"))
    np.testing.assert_array_equal(back, img)
    # a bigger picture at scale 2, same layout
    big = render_rgb_array(e.game, scale=2.0)
    assert abs(big.shape[0] - 2 * img.shape[0]) <= 2
    assert abs(big.shape[1] - 2 * img.shape[1]) <= 2


def test_rgb_array_shows_the_card_colours():
    """Each hand card is drawn in its colour: the pixels of every colour in play appear."""
    from hanabi_env.render import CARD_RGB

    e = hanabi_env.raw_env(render_mode="rgb_array")
    e.reset(seed=4)
    img = e.render()
    colours = {tuple(int(v) for v in px) for px in img.reshape(-1, 3)}
    held = {int(c) // 5 for c in e.game.view(0, seer=True).hands.ravel() if c >= 0}
    for c in held:
        assert CARD_RGB[c] in colours


# ---------------------------------------------------------------------------------------------
# the user documentation
# ---------------------------------------------------------------------------------------------


def test_documented_command_prints_the_module_doc():
    """README: ``python3 -c "import hanabi_env.env as m; print(m.__doc__)"``."""
    proc = subprocess.run(
        [sys.executable, "-c", "import hanabi_env.env as m; print(m.__doc__)"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert len(out.splitlines()) > 100
    for heading in (
        "# Hanabi (`hanabi_env`, version 2)",
        "## Arguments",
        "## Observation layout",
        "## Global state",
        "## Actions",
        "## Rewards, ends, infos",
        "## Rendering",
        "## Creating the env by name",
        "## Differences from hanabi_v5",
    ):
        assert heading in out, heading


def test_function_and_module_docs():
    import hanabi_env.env as m

    module = sys.modules["hanabi_env.env"]
    assert m is hanabi_env.env  # the name binds the factory function, hence the doc below
    assert module.__doc__ in m.__doc__
    assert m.__doc__.startswith("Hanabi with PettingZoo's standard wrappers")  # summary first
    assert "rgb_array" in module.__doc__
    assert hanabi_env.ENV_ID in module.__doc__
