"""Simulated-annealing core shared by the rule-list searches (CRL Algorithm 1, ABBR eq. 15).

The core is generic over the state: the caller supplies a ``propose`` function that returns a
neighbour *and its objective*, so that a method can compute the objective incrementally from
cached coverage (STYLE 11) while the loop, the acceptance rule and the book-keeping live here.

Acceptance (maximization): a candidate whose objective is not lower is always accepted; a worse
one with probability ``exp(delta / T_k)`` where ``delta < 0`` and ``T_k = temperature(k)``.
A method whose acceptance rule differs passes ``accept(delta, k, rng) -> bool``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

S = TypeVar("S")

__all__ = ["AnnealResult", "anneal", "metropolis"]


@dataclass
class AnnealResult(Generic[S]):
    """Outcome of :func:`anneal`.

    Attributes
    ----------
    best_state, best_value : the best state seen and its objective.
    state, value : the state where the walk ended and its objective.
    history : objective of the current state after each step (float array of length n_iter).
    n_accepted : how many proposals were accepted.
    """

    best_state: S
    best_value: float
    state: S
    value: float
    history: np.ndarray = field(repr=False)
    n_accepted: int = 0


def metropolis(temperature: Callable[[int], float]) -> Callable[[float, int, np.random.Generator], bool]:
    """Metropolis acceptance for maximization: always take ``delta >= 0``, else ``exp(delta/T_k)``."""

    def accept(delta: float, k: int, rng: np.random.Generator) -> bool:
        if delta >= 0:
            return True
        t = temperature(k)
        if t <= 0:
            return False
        return rng.random() < math.exp(delta / t)

    return accept


def anneal(
    init: S,
    init_value: float,
    propose: Callable[[S, float, np.random.Generator], tuple[S, float] | None],
    n_iter: int,
    rng: np.random.Generator,
    *,
    temperature: Callable[[int], float] | None = None,
    accept: Callable[[float, int, np.random.Generator], bool] | None = None,
    callback: Callable[[int, S, float], Any] | None = None,
) -> AnnealResult[S]:
    """Maximize an objective by simulated annealing.

    Parameters
    ----------
    init, init_value : starting state and its objective.
    propose : ``propose(state, value, rng) -> (candidate, candidate_value)`` or ``None`` when no
        move is possible from ``state`` (the step is then skipped). Must not mutate ``state``.
    n_iter : number of proposals.
    rng : the one ``numpy.random.Generator`` of the run.
    temperature : ``T_k`` for the Metropolis rule; ignored when ``accept`` is given.
    accept : custom acceptance ``accept(delta, k, rng) -> bool``.
    callback : called as ``callback(k, state, value)`` after every step.

    Returns
    -------
    AnnealResult
    """
    if n_iter < 0:
        raise ValueError(f"n_iter must be >= 0, got {n_iter}")
    if accept is None:
        if temperature is None:
            raise ValueError("give either temperature or accept")
        accept = metropolis(temperature)
    state, value = init, float(init_value)
    best_state, best_value = state, value
    history = np.empty(n_iter, dtype=float)
    n_accepted = 0
    for k in range(n_iter):
        proposal = propose(state, value, rng)
        if proposal is not None:
            cand, cand_value = proposal
            if accept(cand_value - value, k, rng):
                state, value = cand, float(cand_value)
                n_accepted += 1
                if value > best_value:
                    best_state, best_value = state, value
        history[k] = value
        if callback is not None:
            callback(k, state, value)
    return AnnealResult(best_state, best_value, state, value, history, n_accepted)
