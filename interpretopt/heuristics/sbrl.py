"""Scalable Bayesian rule lists (Yang, Rudin and Seltzer, ICML 2017), as a Metropolis-Hastings sampler.

A rule list ``d = (a_1, ..., a_m, default)`` over pre-mined antecedents has the prior

    m ~ Poisson(lambda) truncated to {0..J},
    c_j | c_<j ~ Poisson(eta) truncated to the cardinalities with unused antecedents left,
    a_j | c_j uniform over the unused antecedents of cardinality c_j,

and, with ``n_{j,k}`` the samples of class ``k`` captured by rule ``j`` (the default being
rule ``m + 1``), the Dirichlet-multinomial marginal likelihood

    p(y | d) = prod_j  Gamma(n_{j,0} + a_0) Gamma(n_{j,1} + a_1) / Gamma(n_j + a_0 + a_1)
               * Gamma(a_0 + a_1) / (Gamma(a_0) Gamma(a_1)).

The sampler runs ``n_chains`` Metropolis-Hastings chains of ``n_iter`` steps with SBRL's
moves (swap, add, remove; Hastings-corrected for the asymmetric add/remove) and returns the
list with the highest posterior seen (the maximum a posteriori list SBRL reports). Each rule
predicts the class with the larger posterior mean ``(n_{j,k} + a_k) / (n_j + a_0 + a_1)``.

The reference ``pysbrl`` package did not build in this environment, so this is a
re-implementation of the sampler as a heuristic: it omits SBRL's bit-vector tricks and
its upper bounds on the posterior, which speed up but do not change the search.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from interpretopt._validation import as_generator, check_in_range, check_int
from interpretopt.exceptions import InputError
from interpretopt.heuristics.mining import pack_bool

__all__ = ["SBRLResult", "sbrl", "sbrl_log_posterior"]


@dataclass(frozen=True)
class SBRLResult:
    """The MAP list found: ``prefix`` (pool indices), ``labels``, ``default``, ``log_posterior``,
    ``probabilities`` (posterior mean of class 1 per rule, default last)."""

    prefix: tuple[int, ...]
    labels: tuple[int, ...]
    default: int
    log_posterior: float
    probabilities: tuple[float, ...]
    n_chains: int
    n_iter: int
    chain_best: tuple = ()

    def first_chains(self, k: int, packed, y, *, cards=None, lam: float = 3.0, eta: float = 1.0,
                     alpha=(1.0, 1.0)) -> "SBRLResult":
        """The result a run with ``n_chains=k`` would have returned (chains are seeded by index)."""
        check_int("k", k, 1, self.n_chains)
        lp, best = max(self.chain_best[:k], key=lambda t: t[0])
        return _finish(_Model(np.ascontiguousarray(packed, dtype=np.uint64), np.asarray(y).astype(np.int64).ravel(),
                              np.ones(np.shape(packed)[0], dtype=np.int64) if cards is None else cards,
                              lam, eta, float(alpha[0]), float(alpha[1])), best, lp, k, self.n_iter, self.chain_best[:k])


def _count(words):
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int64)


class _Model:
    def __init__(self, P, y, cards, lam, eta, a0, a1):
        self.P = P
        self.n = len(y)
        self.y1 = pack_bool(y == 1)
        self.tot1 = int(_count(self.y1))
        self.cards = np.asarray(cards, dtype=np.int64)
        self.card_values = np.unique(self.cards)
        self.card_totals = {int(c): int(np.sum(self.cards == c)) for c in self.card_values}
        self.lam, self.eta, self.a0, self.a1 = lam, eta, a0, a1
        J = P.shape[0]
        ms = np.arange(J + 1)
        self.log_len = ms * math.log(lam) - lam - gammaln(ms + 1) if lam > 0 else np.where(ms == 0, 0.0, -np.inf)
        self.log_len = self.log_len - np.logaddexp.reduce(self.log_len)
        self.const = float(gammaln(a0 + a1) - gammaln(a0) - gammaln(a1))
        self._Pi = None
        self._card_lp = {int(c): (int(c) * math.log(eta) - eta - math.lgamma(int(c) + 1)) if eta > 0 else 0.0
                         for c in self.card_values}

    def counts(self, prefix):
        W = self.P.shape[1]
        if prefix:
            rows = self.P[list(prefix)]
            acc = np.bitwise_or.accumulate(rows, axis=0)
            prior = np.vstack([np.zeros((1, W), dtype=np.uint64), acc[:-1]])
            new = rows & ~prior
            c = _count(new)
            c1 = _count(new & self.y1)
            covered = int(_count(acc[-1]))
            covered1 = int(_count(acc[-1] & self.y1))
        else:
            c = c1 = np.zeros(0, dtype=np.int64)
            covered = covered1 = 0
        c = np.append(c, self.n - covered)
        c1 = np.append(c1, self.tot1 - covered1)
        return c, c1

    def log_prior(self, prefix):
        lp = float(self.log_len[len(prefix)])
        remaining = dict(self.card_totals)
        clp = self._card_lp
        cards = self.cards
        for a in prefix:
            avail = [clp[k] for k, v in remaining.items() if v > 0]
            mx = max(avail)
            norm = mx + math.log(sum(math.exp(v - mx) for v in avail))
            ca = int(cards[a])
            lp += clp[ca] - norm - math.log(remaining[ca])
            remaining[ca] -= 1
        return lp

    def log_posterior(self, prefix):
        """Log prior + log marginal likelihood; pure-Python big-integer bit sets (lists are short)."""
        if self._Pi is None:
            to_int = lambda row: int.from_bytes(np.ascontiguousarray(row, dtype="<u8").tobytes(), "little")  # noqa: E731
            self._Pi = [to_int(r) for r in self.P]
            self._y1i = to_int(self.y1)
        lg, a0, a1, const = math.lgamma, self.a0, self.a1, self.const
        prev, cov, cov1, ll = 0, 0, 0, 0.0
        P, y1 = self._Pi, self._y1i
        for a in prefix:
            x = P[a]
            new = x & ~prev
            prev |= x
            c = new.bit_count()
            c1 = (new & y1).bit_count()
            cov += c
            cov1 += c1
            ll += lg(c - c1 + a0) + lg(c1 + a1) - lg(c + a0 + a1) + const
        c, c1 = self.n - cov, self.tot1 - cov1
        ll += lg(c - c1 + a0) + lg(c1 + a1) - lg(c + a0 + a1) + const
        return ll + self.log_prior(prefix)


def sbrl_log_posterior(packed, y, prefix, *, cards, lam=3.0, eta=1.0, alpha=(1.0, 1.0)) -> float:
    """Log posterior (up to a constant) of a list under SBRL's model."""
    y = np.asarray(y).astype(np.int64).ravel()
    return _Model(np.asarray(packed, dtype=np.uint64), y, cards, lam, eta, *alpha).log_posterior(tuple(prefix))


def sbrl(
    packed,
    y,
    *,
    cards=None,
    lam: float = 3.0,
    eta: float = 1.0,
    alpha=(1.0, 1.0),
    n_chains: int = 5,
    n_iter: int = 5_000,
    max_length: int = 9,
    rng=None,
) -> SBRLResult:
    """Sample rule lists from SBRL's posterior; return the MAP list seen.

    Parameters
    ----------
    packed : uint64 (J, W), coverage of the candidate antecedents.
    y : labels (n,) in {0, 1}.
    cards : int (J,), number of items of each antecedent (default 1 for all).
    lam : expected list length ``lambda``; eta : expected antecedent cardinality ``eta``.
    alpha : Dirichlet pseudo-counts ``(a_0, a_1)``.
    n_chains, n_iter : chains and steps per chain (Appendix A tunes ``Nc`` and ``lambda``).
    max_length : longest list the sampler may propose (Appendix A keeps lists under 20 conditions).
    rng : seed or Generator.
    """
    rng = as_generator(rng)
    P = np.ascontiguousarray(packed, dtype=np.uint64)
    y = np.asarray(y).astype(np.int64).ravel()
    J = P.shape[0]
    if J == 0:
        raise InputError("SBRL needs at least one candidate antecedent")
    check_in_range("lam", lam, 0.0, None)
    check_in_range("eta", eta, 0.0, None)
    check_int("n_chains", n_chains, 1, None)
    check_int("n_iter", n_iter, 0, None)
    check_int("max_length", max_length, 1, None)
    cards = np.ones(J, dtype=np.int64) if cards is None else np.asarray(cards, dtype=np.int64)
    model = _Model(P, y, cards, lam, eta, float(alpha[0]), float(alpha[1]))
    # one independent stream per chain, by chain index: the first k chains of a run are the
    # chains of a run with n_chains=k (Appendix A's grid of Nc from one run)
    streams = np.random.SeedSequence(int(rng.integers(2**63 - 1))).spawn(n_chains)
    chain_best = []
    for stream in streams:
        rng = np.random.default_rng(stream)
        best_lp, best = -math.inf, ()
        m0 = int(min(max_length, J, max(1, rng.poisson(lam))))
        cur = tuple(int(v) for v in rng.choice(J, size=m0, replace=False))
        cur_lp = model.log_posterior(cur)
        if cur_lp > best_lp:
            best_lp, best = cur_lp, cur
        for _ in range(n_iter):
            u = rng.random()
            m = len(cur)
            log_q = 0.0
            if u < 1 / 3:  # swap
                if m < 2:
                    continue
                i, j = rng.choice(m, size=2, replace=False)
                lst = list(cur)
                lst[i], lst[j] = lst[j], lst[i]
                cand = tuple(lst)
            elif u < 2 / 3:  # add
                if m >= min(max_length, J):
                    continue
                used = set(cur)
                free = [a for a in range(J) if a not in used] if J < 4 * (m + 1) else None
                if free is not None:
                    a = int(free[rng.integers(len(free))])
                else:
                    a = int(rng.integers(J))
                    while a in used:
                        a = int(rng.integers(J))
                pos = int(rng.integers(m + 1))
                cand = cur[:pos] + (a,) + cur[pos:]
                log_q = math.log(J - m)  # q(remove back) / q(add)
            else:  # remove
                if m < 1:
                    continue
                pos = int(rng.integers(m))
                cand = cur[:pos] + cur[pos + 1:]
                log_q = -math.log(J - m + 1)
            cand_lp = model.log_posterior(cand)
            if math.log(rng.random() + 1e-300) < cand_lp - cur_lp + log_q:
                cur, cur_lp = cand, cand_lp
                if cur_lp > best_lp:
                    best_lp, best = cur_lp, cur
        chain_best.append((float(best_lp), tuple(best)))
    best_lp, best = max(chain_best, key=lambda t: t[0])
    return _finish(model, best, best_lp, n_chains, n_iter, tuple(chain_best))


def _finish(model, best, best_lp, n_chains, n_iter, chain_best) -> SBRLResult:
    c, c1 = model.counts(best)
    prob = (c1 + model.a1) / (c + model.a0 + model.a1)
    labels = tuple(int(p > 0.5) for p in prob[:-1])
    return SBRLResult(tuple(best), labels, int(prob[-1] > 0.5), float(best_lp), tuple(float(p) for p in prob),
                      n_chains, n_iter, tuple(chain_best))
