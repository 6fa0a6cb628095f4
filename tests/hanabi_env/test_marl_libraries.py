"""The real MARL libraries run ``hanabi_env`` unmodified (issue 31; docs/marl.md).

Each test drives one library the way its documentation does, through the same check functions
that ``benchmarks/marl_compat.py`` runs side by side with PettingZoo's hanabi_v5 (one
implementation, loaded from that script). A library that is not installed is skipped with the
reason: ``pip install ".[marl]"`` installs Tianshou, TorchRL and SuperSuit (CI does); RLlib and
AgileRL pin other Gymnasium/PettingZoo versions and run in venvs of their own (docs/marl.md).

Some tests also show that a check can fail: the ``infos`` of version 1 (``None`` while a metric
was undefined, the action mask repeated) break Tianshou and TorchRL exactly as issue 31 reported.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import hanabi_env
from hanabi_env.env import CheckedActionWrapper, OrderEnforcing, TerminateIllegal
from hanabi_env.metrics import INFO_KEYS, INFO_METRICS

ROOT = Path(__file__).resolve().parents[2]
MARL = 'not installed; pip install ".[marl]" (after CPU torch) installs it'


def _compat():
    spec = importlib.util.spec_from_file_location("marl_compat", ROOT / "benchmarks/marl_compat.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("marl_compat", module)
    spec.loader.exec_module(module)
    return module


compat = _compat()


class _V1Infos(hanabi_env.raw_env):
    """``raw_env`` with version 1's infos: ``None`` while undefined, optionally the mask too."""

    repeat_mask = False

    def _v1(self) -> None:
        infos = {}
        for agent, info in self.infos.items():
            old = {m: info[m] if info[f"{m}_defined"] else None for m in INFO_METRICS}
            if self.repeat_mask:
                old["action_mask"] = self.observe(agent)["action_mask"]
            infos[agent] = {**info, **old}
        self.infos = infos

    def _update_infos(self) -> None:
        super()._update_infos()
        self._v1()

    def _refresh_infos(self, mover: str) -> None:
        super()._refresh_infos(mover)
        self._v1()


def _wrapped(raw):
    return OrderEnforcing(CheckedActionWrapper(TerminateIllegal(raw, illegal_reward=-1)))


def _v1_none():
    return _wrapped(_V1Infos())


def _v1_none_and_mask():
    raw = _V1Infos()
    raw.repeat_mask = True
    return _wrapped(raw)


def _mask_in_infos():
    """This version's infos plus the mask repeated (hanabi_v5 puts it in both places)."""

    class Repeat(hanabi_env.raw_env):
        def _update_infos(self):
            super()._update_infos()
            self._repeat()

        def _refresh_infos(self, mover):
            super()._refresh_infos(mover)
            self._repeat()

        def _repeat(self):
            self.infos = {
                a: {**i, "action_mask": self.observe(a)["action_mask"]}
                for a, i in self.infos.items()
            }

    return _wrapped(Repeat())


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """Libraries' tiny networks on one thread (the machine is shared; see agents.sb3)."""
    torch = pytest.importorskip("torch", reason="the MARL libraries need torch (CPU wheel)")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


# ---------------------------------------------------------------------------------------------
# Tianshou
# ---------------------------------------------------------------------------------------------


def test_tianshou_pettingzoo_example_trains():
    """About 3 s of CPU, plus Tianshou's import (~3 s CPU; 10-25 s wall on a busy machine)."""
    pytest.importorskip("tianshou", reason=f"Tianshou {MARL}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        detail = compat.check_tianshou(hanabi_env.env, steps=100)
    assert detail.startswith("trained 100 steps")


def test_tianshou_refuses_version_1_infos():
    """The check can fail: ``None`` in infos is NaN to Tianshou's buffer (issue 31)."""
    pytest.importorskip("tianshou", reason=f"Tianshou {MARL}")
    from tianshou.data.buffer.buffer_base import MalformedBufferError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(MalformedBufferError, match="NaN"):
            compat.check_tianshou(_v1_none, steps=50)


# ---------------------------------------------------------------------------------------------
# TorchRL
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("return_state", [False, True])
def test_torchrl_wrapper_passes_check_env_specs_and_rolls_out(return_state):
    pytest.importorskip("torchrl", reason=f"TorchRL {MARL}")
    detail = compat.check_torchrl(hanabi_env.env, return_state=return_state)
    assert f"{len(INFO_KEYS) + 1} info keys" in detail  # + score


def test_torchrl_infos_are_finite_tensors_with_flags():
    pytest.importorskip("torchrl", reason=f"TorchRL {MARL}")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(hanabi_env.env(), use_mask=True, seed=3)
    td = env.rollout(400, break_when_any_done=True)
    assert set(env.group_map) == {"player_0", "player_1"}  # TorchRL's groups: one per agent
    for group in env.group_map:
        info = td["next", group, "info"]
        for key in INFO_METRICS:
            assert np.isfinite(info[key].numpy()).all()
            flag = info[f"{key}_defined"].numpy()
            assert set(np.unique(flag)) <= {0.0, 1.0}  # the bool flag as TorchRL stores it
            assert (info[key].numpy()[flag == 0] == 0).all()
        assert (info["communicativeness_defined"].numpy() == 1).any()


@pytest.mark.parametrize(
    ("make_env", "match"),
    [(_v1_none, "infer dtype of NoneType"), (_mask_in_infos, "does not support item assignment")],
    ids=["none-in-infos", "mask-in-obs-and-infos"],
)
def test_torchrl_refuses_what_version_1_had(make_env, match):
    """The check can fail: ``None`` in infos, or the mask both in the observation and infos."""
    pytest.importorskip("torchrl", reason=f"TorchRL {MARL}")
    with pytest.raises(Exception, match=match):
        compat.check_torchrl(make_env)


# ---------------------------------------------------------------------------------------------
# RLlib, AgileRL (venvs of their own: RLlib pins Gymnasium 1.2.2, AgileRL PettingZoo < 1.27)
# ---------------------------------------------------------------------------------------------


def test_rllib_pettingzoo_env_passes_the_multi_agent_check():
    pytest.importorskip(
        "ray.rllib", reason='RLlib is not installed (pip install "ray[rllib]"; docs/marl.md)'
    )
    assert compat.check_rllib(hanabi_env.env).startswith("check passed")


@pytest.mark.parametrize("where", ["aec", "partner_env"])
def test_agilerl_dqn_acts_with_the_masks(where):
    pytest.importorskip(
        "agilerl.algorithms.dqn",
        reason="AgileRL with its algorithms is not installed (pip install agilerl peft; "
        "docs/marl.md)",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if where == "aec":
            detail = compat.check_agilerl(hanabi_env.env, steps=100)
        else:
            detail = compat.check_agilerl_partner_env(hanabi_env.env, steps=100)
    assert "masked moves" in detail


# ---------------------------------------------------------------------------------------------
# SuperSuit, side by side with hanabi_v5
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("wrapper", compat.SUPERSUIT_WRAPPERS)
def test_supersuit_wrapper_behaves_as_on_hanabi_v5(wrapper):
    pytest.importorskip("supersuit", reason=f"SuperSuit {MARL}")
    pytest.importorskip("pyspiel", reason="hanabi_v5 needs open_spiel (the test extra)")
    pytest.importorskip("shimmy", reason="hanabi_v5 needs shimmy[openspiel] (the test extra)")
    results = {}
    for name in compat.ENV_NAMES:
        text, _ = compat._run_one(lambda m: compat.check_supersuit(m, wrapper), compat.MAKERS[name])
        results[name] = text
    theirs, ours = results["hanabi_v5"], results["hanabi_env"]
    # where hanabi_v5 works, and where it raises KeyError (it cannot observe an agent that has
    # left the game), this env works
    if theirs.startswith("ok") or "KeyError" in theirs:
        assert ours.startswith("ok"), results
    else:  # a Box-only observation wrapper: refused on both Dict observations, the same way
        assert ours.split(":")[:2] == theirs.split(":")[:2], results
