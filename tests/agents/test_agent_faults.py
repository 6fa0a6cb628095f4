"""No policy sees what its seat may not; a policy's faults are its own (docs/reliability.md §9).

Through the Python API: a batch policy that asks for the ``"seer"`` observation is refused on
every path that plays it (``agents.evaluate``, ``agents.play``, the lockstep player, the
per-game path), while the analysis tools that ask for a hidden-card view by name keep it; a
policy that raises, returns anything but a legal move id, or takes too long ends the run with
an :class:`agents.AgentFault` naming it, the game and the move, on the serial, thread and
process paths and in the lockstep player. The command line: tests/hanabi_adhoc/
test_cli_agent_faults.py.
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import time

import numpy as np
import pytest

import agents
import hanabi_env
from agents import AgentFault
from agents.backend import ThreadBackend
from agents.batch import UniformBatchPolicy, draw_uniform, policy_observation_type
from agents.evaluate import _run_policy_games, game_seeds, play_games
from agents.faults import check_move_time_limit
from agents.lockstep import play_lockstep
from agents.policy import Policy, play_out
from hanabi_env import HanabiConfig, HanabiGame
from hanabi_env.rng import new_rng

CFG = HanabiConfig(players=2, scoring="lenient")


# --------------------------------------------------------------------------------------------
# policies (module-level: worker processes unpickle them)
# --------------------------------------------------------------------------------------------


class Seer(UniformBatchPolicy):
    """The attack: a batch policy asking for every hand face up, its own included."""

    observation_type = "seer"
    observation_dtype = "int8"

    def __init__(self):
        super().__init__(name="seer-cheat")


class Honest(UniformBatchPolicy):
    """Its honest twin."""

    def __init__(self):
        super().__init__(name="honest-twin")


class SeerPlain(Policy):
    """A plain policy declaring the seer observation (nothing serves it; refused anyway)."""

    name = "plain-seer"
    observation_type = "seer"

    def act(self, view):
        return int(view.legal_actions()[0])


class Returns(Policy):
    """Returns ``value`` (a fault) after ``after`` moves of its own in the game whose agent seed
    is ``at`` (any game if None)."""

    def __init__(self, value, at=None, after=0):
        self.value, self.at, self.after = value, at, after
        self.name = "returns"
        self._armed, self._calls = at is None, 0

    def reset(self, seed=None):
        self._armed, self._calls = self.at is None or seed == self.at, 0

    def _due(self) -> bool:
        self._calls += 1
        return self._armed and self._calls > self.after

    def act(self, view):
        if self._due():
            return self.value
        return int(view.legal_actions()[0])


class Raises(Returns):
    def act(self, view):
        if self._due():
            raise KeyError("boom")
        return int(view.legal_actions()[0])


class Sleeps(Policy):
    """Sleeps ``seconds`` per move, catching what it can (a hang when ``seconds`` is large)."""

    name = "sleeper"

    def __init__(self, seconds):
        self.seconds = seconds

    def act(self, view):
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            # a policy that swallows errors cannot swallow the limit
            with contextlib.suppress(Exception):
                time.sleep(min(0.05, max(0.0, end - time.monotonic())))
        return int(view.legal_actions()[0])


class BatchReturns(UniformBatchPolicy):
    """A batch policy whose ``act_batch`` answer is ``transform(the uniform answer)``."""

    def __init__(self, transform):
        super().__init__(name="bad-batch")
        self.transform = transform

    def act_batch(self, obs, mask, seats, draws):
        return self.transform(super().act_batch(obs, mask, seats, draws), mask)


def _first_illegal(acts, mask):
    out = acts.copy()
    out[0] = int(np.flatnonzero(mask[0] == 0)[0])
    return out


def _raise(acts, mask):
    raise RuntimeError("net exploded")


# --------------------------------------------------------------------------------------------
# A. no policy sees what its seat may not
# --------------------------------------------------------------------------------------------

SEER_REFUSAL = r"'seer-cheat' asks for observation_type='seer'.*allowed.*'card_knowledge'"


def test_the_seer_cheat_is_refused_by_evaluate_play_and_play_games():
    with pytest.raises(ValueError, match=SEER_REFUSAL) as err:
        agents.evaluate(Seer(), players=(2,), games=5, workers=1)
    assert not isinstance(err.value, AgentFault)  # refused before any game, not a fault
    with pytest.raises(ValueError, match=SEER_REFUSAL):
        agents.play([Seer(), "piers"], games=2)
    with pytest.raises(ValueError, match=SEER_REFUSAL):
        agents.evaluate(Seer(), mode="mixed", players=(3,), games=2, workers=1)
    _, deals, seeds = game_seeds(0, 4, 2, random_seat=False)
    with pytest.raises(ValueError, match="'plain-seer' asks for observation_type='seer'"):
        play_games([SeerPlain()], np.zeros((4, 2), np.int64), deals, seeds, CFG)


def test_the_seer_cheat_is_refused_by_the_lockstep_player_and_its_own_act():
    _, deals, seeds = game_seeds(0, 4, 2, random_seat=False)
    with pytest.raises(ValueError, match=SEER_REFUSAL):
        play_lockstep([Seer()], np.zeros((4, 2), np.int64), deals, seeds, CFG)
    game = HanabiGame(CFG)
    game.reset(0)
    with pytest.raises(ValueError, match=SEER_REFUSAL):  # the per-game path, the browser
        Seer().act(game.view(0))
    with pytest.raises(ValueError, match="allowed for a policy"):
        policy_observation_type(Seer(), game.state.cfg)


def test_a_seer_asked_for_only_during_play_is_refused_too():
    class Sly(UniformBatchPolicy):  # honest when checked up front, a seer once playing
        calls = 0

        def observation_type_for(self, cfg):
            Sly.calls += 1
            return "card_knowledge" if Sly.calls == 1 else "seer"

    _, deals, seeds = game_seeds(0, 2, 2, random_seat=False)
    with pytest.raises(ValueError, match="asks for observation_type='seer'"):
        play_lockstep([Sly(name="sly")], np.zeros((2, 2), np.int64), deals, seeds, CFG)


def test_the_honest_twin_still_plays_on_every_path():
    result = agents.evaluate(Honest(), players=(2,), games=20, workers=1)
    assert 0 <= result.mean <= 25
    batch = agents.play([Honest(), "piers"], games=3)
    assert batch.scores.shape == (3,)
    game = HanabiGame(CFG)
    game.reset(1)
    assert play_out(game, [Honest(), Honest()]) > 0


def test_analysis_tools_that_ask_for_the_seer_view_by_name_keep_it():
    game = HanabiGame(HanabiConfig(players=2))
    game.reset(5)
    seer = game.view(0, seer=True)
    assert (seer.hands[0] >= 0).all()  # the viewer's own cards, asked for by name
    assert (game.view(0).hands[0] < 0).all()  # never in a seat's view
    np.testing.assert_array_equal(game.observation(0, "seer"), seer.encode("seer"))
    env = hanabi_env.env(players=2, observation_type="seer")
    env.reset(seed=0)
    assert env.unwrapped.state().shape[0] > 0  # the env's state(): every hand face up


# --------------------------------------------------------------------------------------------
# B. faults: the per-game path
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (None, "returned None, not an int move id"),
        (5.7, r"returned 5\.7 \(float\), not an int move id"),
        ("3", r"returned '3' \(str\), not an int"),
        (np.float64(3.0), r"returned 3\.0 \(float64\), not an int"),
        (True, r"returned True \(bool\), not an int"),
        (10**6, r"returned 1000000, not a move id; allowed: 0\.\.19"),
        (-1, "returned -1, not a move id"),
    ],
)
def test_a_non_move_is_the_agents_fault_never_rounded(value, reason):
    game = HanabiGame(CFG)
    game.reset(0)
    with pytest.raises(AgentFault, match=reason) as err:
        play_out(game, [Returns(value, after=2), agents.make("piers")], game_index=7)
    fault = err.value
    assert (fault.agent, fault.game, fault.move) == ("returns", 7, 4)  # its third move
    assert str(fault).startswith("agent 'returns' (game 7, move 4) ")
    assert isinstance(fault, ValueError)


def test_an_illegal_move_is_a_fault_and_numpy_ints_are_moves():
    game = HanabiGame(CFG)
    game.reset(0)
    illegal = int(np.flatnonzero(game.legal_mask() == 0)[0])  # a discard: no hint token spent
    with pytest.raises(AgentFault, match=f"returned {illegal}, not a legal move; legal now"):
        play_out(game, [Returns(illegal), Returns(illegal)])

    class NumpyInt(Policy):
        def act(self, view):
            return np.int16(view.legal_actions()[-1])

    game.reset(0)
    assert play_out(game, [NumpyInt(), NumpyInt()]) > 0


def test_an_exception_is_the_agents_fault_chained_to_it():
    game = HanabiGame(CFG)
    game.reset(0)
    with pytest.raises(
        AgentFault, match=r"'returns' \(game 0, move 2\) raised KeyError: 'boom'"
    ) as err:
        play_out(game, [Raises(None, after=1), agents.make("piers")], game_index=0)
    assert isinstance(err.value.__cause__, KeyError)


def test_a_hanging_policy_is_stopped_at_the_limit_and_the_timer_is_restored():
    before = signal.getsignal(signal.SIGALRM)
    game = HanabiGame(CFG)
    game.reset(0)
    t0 = time.monotonic()
    stopped = r"'sleeper' \(move 0\) was stopped after 1\.\d s \(limit 0\.2 s per move; 1\.2 s for"
    with pytest.raises(AgentFault, match=stopped):  # its first call: 6 times the limit
        play_out(game, [Sleeps(3600), agents.make("piers")], move_time_limit=0.2)
    assert time.monotonic() - t0 < 10
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    game.reset(0)  # no limit: a slow policy plays on
    assert play_out(game, [Sleeps(0.01), Sleeps(0.0)], move_time_limit=None) > 0


def test_the_limit_is_checked_when_it_cannot_interrupt():
    """In a thread (no SIGALRM there) a late move is measured and is a fault when it returns.

    (Its first move, 0.3 s, is within the first call's 6 x 0.1 s; its second is late.)
    """
    _, deals, seeds = game_seeds(0, 2, 2, random_seat=False)
    task = (CFG, [Sleeps(0.3), agents.make("piers")], np.array([[0, 1], [0, 1]]), deals, seeds)
    late = r"'sleeper' \(game 5, move 2\) took 0\.\d s \(limit 0\.1 s per move\)"
    with ThreadBackend(2, compile_first=False) as backend, pytest.raises(AgentFault, match=late):
        backend.map(_run_policy_games, [(*task, 5, 0.1), (*task, 9, 0.1)])


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf")])
def test_a_bad_limit_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match="move_time_limit"):
        agents.evaluate("piers", players=(2,), games=1, move_time_limit=bad)
    with pytest.raises(TypeError, match="move_time_limit"):
        agents.play(["piers", "piers"], move_time_limit="10")
    assert check_move_time_limit("x", 0) is None
    assert check_move_time_limit("x", None) is None
    assert check_move_time_limit("x", 2) == 2.0


# --------------------------------------------------------------------------------------------
# B. faults through agents.evaluate / play_games: serial and worker processes
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
def test_a_fault_names_the_runs_game_on_the_serial_and_process_paths(workers):
    n = 6
    _, deals, seeds = game_seeds(3, n, 2, random_seat=False)
    seat_agents = np.array([[0, 1]] * n)
    for bad in (Returns(5.7, at=int(seeds[4, 0]), after=1), Raises(None, at=int(seeds[4, 0]))):
        with pytest.raises(AgentFault, match=r"'returns' \(game 4, move") as err:
            play_games([bad, agents.make("piers")], seat_agents, deals, seeds, CFG,
                       workers=workers, chunk_size=2)  # fmt: skip
        assert err.value.game == 4
        assert pickle.loads(pickle.dumps(err.value)).args == err.value.args


def test_a_hanging_policy_is_stopped_in_a_worker_process():
    _, deals, seeds = game_seeds(0, 4, 2, random_seat=False)
    t0 = time.monotonic()
    with pytest.raises(AgentFault, match=r"'sleeper' \(game [0-3], move 0\) was stopped"):
        play_games([Sleeps(3600), agents.make("piers")], np.array([[0, 1]] * 4), deals, seeds,
                   CFG, workers=2, chunk_size=2, move_time_limit=0.3)  # fmt: skip
    assert time.monotonic() - t0 < 30


def test_evaluate_raises_the_fault_unchanged():
    with pytest.raises(AgentFault, match=r"agent 'returns' \(game 0, move 0\) returned None"):
        agents.evaluate(Returns(None), players=(2,), games=3, workers=1)
    with pytest.raises(AgentFault, match=r"agent 'sleeper' .* was stopped after"):
        agents.evaluate(Sleeps(3600), players=(2,), games=2, workers=1, move_time_limit=0.2)


# --------------------------------------------------------------------------------------------
# B. faults in the lockstep player
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transform", "reason"),
    [
        (lambda a, m: a.astype(np.float64), r"act_batch returned float64 of shape \(\d+,\)"),
        (lambda a, m: a.astype(bool), "act_batch returned bool"),
        (lambda a, m: a[:-1], r"of shape \(\d+,\); allowed: \(\d+,\) integer move ids"),
        (lambda a, m: a[:, None], r"of shape \(\d+, 1\)"),
        (lambda a, m: None, "act_batch returned None"),
        (lambda a, m: [a.tolist(), [1]], "act_batch returned"),
        (lambda a, m: a + 10**6, r"returned 10000\d\d, not a move id; allowed: 0\.\.19"),
        (_first_illegal, "not a legal move; legal now"),
        (_raise, "raised RuntimeError: net exploded"),
    ],
)
def test_a_bad_batch_answer_is_the_policys_fault(transform, reason):
    with pytest.raises(AgentFault, match=reason) as err:
        agents.play([BatchReturns(transform), "piers"], games=5)
    assert err.value.agent == "bad-batch"
    assert 0 <= err.value.game < 5
    assert err.value.move >= 0


class DrawTrap(UniformBatchPolicy):
    """Answers an illegal move for the decision whose draw is ``trap`` (one game's first)."""

    def __init__(self, trap):
        super().__init__(name="trap")
        self.trap = trap

    def act_batch(self, obs, mask, seats, draws):
        acts = super().act_batch(obs, mask, seats, draws)
        for j in np.flatnonzero(draws == self.trap):
            acts[j] = int(np.flatnonzero(mask[j] == 0)[0])
        return acts


def test_the_lockstep_fault_names_the_runs_game_across_chunks():
    n = 6
    _, deals, seeds = game_seeds(0, n, 2, random_seat=False)
    trap = draw_uniform(new_rng(int(seeds[4, 0])))  # game 4's first decision (seat 0, move 0)
    with pytest.raises(AgentFault, match=r"agent 'trap' \(game 4, move 0\) returned") as err:
        play_lockstep([DrawTrap(trap)], np.zeros((n, 2), np.int64), deals, seeds, CFG, chunk=3)
    assert (err.value.game, err.value.move) == (4, 0)  # in the second chunk of 3 games


def test_a_slow_batch_policy_is_stopped():
    class Slow(UniformBatchPolicy):
        def act_batch(self, obs, mask, seats, draws):
            time.sleep(3600)

    _, deals, seeds = game_seeds(0, 2, 2, random_seat=False)
    t0 = time.monotonic()
    late = r"was stopped after .* \(limit 0\.1 s per move, 0\.2 s for 2 decisions; 1\.2 s for"
    with pytest.raises(AgentFault, match=late):
        play_lockstep([Slow(name="slow")], np.zeros((2, 2), np.int64), deals, seeds, CFG,
                      move_time_limit=0.1)  # fmt: skip
    assert time.monotonic() - t0 < 10
