"""The policy/value network of BAD and of the baseline: an MLP, run in NumPy or torch.

The input of a decision is the public features of the position seen from the acting seat
(:meth:`agents.bad.public.PublicState.features`) and the acting player's private observation:
its partner's hand (:meth:`agents.bad.public.PublicState.private_features`). The first layer
is split into a public and a private part, so that the public part is computed once per
position and only the private part once per possible partner hand (the many hands of a
partial policy, :func:`agents.bad.belief.partial_policy`)::

    h1 = relu(pub @ w_pub + priv @ w_priv + b1)
    h2 = relu(h1 @ w2 + b2)                      (``layers - 1`` such layers)
    logits = h @ w_pi + b_pi,   value = h @ w_v + b_v

:class:`NumpyNet` is the playing path (the agent and the trainer's rollouts; float32, no
torch); :func:`torch_net` builds the same network for training. Parameters are named as
above (``w_pub``, ``w_priv``, ``b1``, ``w2``, ``b2``, ..., ``w_pi``, ``b_pi``, ``w_v``,
``b_v``); a test checks both paths give the same outputs.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

__all__ = ["NumpyNet", "param_shapes", "torch_net"]


def param_shapes(
    pub_dim: int, priv_dim: int, hidden: int, layers: int, n_actions: int
) -> dict[str, tuple[int, ...]]:
    """Name → shape of every parameter (see the module docstring)."""
    shapes: dict[str, tuple[int, ...]] = {
        "w_pub": (pub_dim, hidden),
        "w_priv": (priv_dim, hidden),
        "b1": (hidden,),
    }
    for k in range(2, layers + 1):
        shapes[f"w{k}"] = (hidden, hidden)
        shapes[f"b{k}"] = (hidden,)
    shapes.update({"w_pi": (hidden, n_actions), "b_pi": (n_actions,)})
    shapes.update({"w_v": (hidden, 1), "b_v": (1,)})
    return shapes


class NumpyNet:
    """The network in NumPy (float32), from a dict of parameter arrays.

    Args:
        params: Name → array (:func:`param_shapes`).
        dtype: Arithmetic precision (float32 for the trainer's rollouts; the playing agent
            and the evaluation use float64).

    Raises:
        ValueError: A parameter is missing.
    """

    def __init__(self, params: Mapping[str, np.ndarray], dtype: type = np.float64):
        """See the class docstring."""
        self.p: dict[str, np.ndarray] = {k: np.asarray(v, dtype=dtype) for k, v in params.items()}
        for name in ("w_pub", "w_priv", "b1", "w_pi", "b_pi", "w_v", "b_v"):
            if name not in self.p:
                raise ValueError(f"the network's parameters lack {name!r}")
        self.layers = 1 + sum(1 for k in self.p if k[1:].isdigit() and k.startswith("w"))
        self.dtype = dtype

    def hidden(self, pub: np.ndarray, priv: np.ndarray, game: np.ndarray) -> np.ndarray:
        """``(N, H)`` last hidden layer of rows ``n``: position ``game[n]``, private ``priv[n]``.

        Args:
            pub: ``(B, pub_dim)`` public features of the positions.
            priv: ``(N, priv_dim)`` private features of the rows.
            game: ``(N,)`` position of each row.
        """
        first = (pub.astype(self.dtype) @ self.p["w_pub"])[game]
        h = np.maximum(first + priv.astype(self.dtype) @ self.p["w_priv"] + self.p["b1"], 0.0)
        for k in range(2, self.layers + 1):
            h = np.maximum(h @ self.p[f"w{k}"] + self.p[f"b{k}"], 0.0)
        return h

    def logits(self, pub: np.ndarray, priv: np.ndarray, game: np.ndarray) -> np.ndarray:
        """``(N, A)`` policy logits of the rows (arguments of :meth:`hidden`)."""
        return self.hidden(pub, priv, game) @ self.p["w_pi"] + self.p["b_pi"]

    def value(self, pub: np.ndarray, priv: np.ndarray, game: np.ndarray) -> np.ndarray:
        """``(N,)`` value estimates (points still to score) of the rows."""
        return (self.hidden(pub, priv, game) @ self.p["w_v"] + self.p["b_v"])[:, 0]


def torch_net(shapes: Mapping[str, tuple[int, ...]], seed: int):
    """The network as a ``torch.nn.Module`` with parameters named as :func:`param_shapes`.

    Weights start uniform in ``±1/√fan_in`` (torch's default for linear layers), the policy
    head 100 times smaller (nearly uniform first moves), biases at zero; drawn from
    ``numpy.random.default_rng(seed)`` so that they do not depend on torch's global state.

    Args:
        shapes: :func:`param_shapes`.
        seed: Seed of the initial weights.

    Returns:
        A module whose ``forward(pub (N, Dp), priv (N, Dq))`` returns ``(logits (N, A),
        value (N,))``.
    """
    import torch

    rng = np.random.default_rng(seed)
    layers = sum(1 for k in shapes if k[1:].isdigit() and k.startswith("w")) + 1

    class _Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.params = torch.nn.ParameterDict()
            for name, shape in shapes.items():
                if name.startswith("b"):
                    value = np.zeros(shape)
                else:
                    bound = 1.0 / np.sqrt(shape[0]) * (0.01 if name == "w_pi" else 1.0)
                    value = rng.uniform(-bound, bound, shape)
                self.params[name] = torch.nn.Parameter(torch.tensor(value, dtype=torch.float32))

        def forward(self, pub, priv):
            p = self.params
            h = torch.relu(pub @ p["w_pub"] + priv @ p["w_priv"] + p["b1"])
            for k in range(2, layers + 1):
                h = torch.relu(h @ p[f"w{k}"] + p[f"b{k}"])
            return h @ p["w_pi"] + p["b_pi"], (h @ p["w_v"] + p["b_v"])[:, 0]

    return _Net()
