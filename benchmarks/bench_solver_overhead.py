"""Per-solve overhead of interpretopt.solvers against highspy called directly, and a
column-generation-like loop (highspy ``addCols`` vs ``IncrementalModel`` vs a Pyomo rebuild).

The LP is a synthetic BRCG master (Dash et al. 2018, eqs. (1)-(2), LP relaxation):

    min (1/n) [sum_{i in P} xi_i + sum_k |Z_k| w_k] + sum_k (l0 + l1 |k|) w_k
    s.t. xi_i + sum_{k covers i} w_k >= 1   (i in P),   xi, w >= 0

with columns that are random conjunctions of 1-3 features of a random binary matrix.

Usage::

    python benchmarks/bench_solver_overhead.py            # default sizes
    python benchmarks/bench_solver_overhead.py --n 5000 --rounds 15 --repeat 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp


def make_master(n: int, n_cols: int, seed: int = 0, lam0: float = 1e-3, lam1: float = 1e-3):
    """Arrays of a synthetic BRCG master LP: (cost_xi, cost_w, cover_P (|P| x k CSC), pos)."""
    rng = np.random.default_rng(seed)
    d = 30
    X = rng.random((n, d)) < rng.uniform(0.3, 0.8, size=d)
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3]) | (rng.random(n) < 0.1)
    pos = np.flatnonzero(y)
    neg = np.flatnonzero(~y)

    def columns(k):
        cov_p, costs = [], []
        for _ in range(k):
            feats = rng.choice(d, size=rng.integers(1, 4), replace=False)
            sign = rng.random(len(feats)) < 0.5
            cov = np.all(X[:, feats] == sign, axis=1)
            cov_p.append(cov[pos])
            costs.append(cov[neg].sum() / n + lam0 + lam1 * len(feats))
        return sp.csc_array(np.column_stack(cov_p).astype(float)), np.asarray(costs)

    return pos, neg, columns


def pyomo_master(n_pos: int, n: int, A: sp.csc_array, cw: np.ndarray):
    import pyomo.environ as pe
    from pyomo.core.expr.numeric_expr import LinearExpression

    m = pe.ConcreteModel()
    m.P = pe.RangeSet(0, n_pos - 1)
    m.K = pe.RangeSet(0, A.shape[1] - 1)
    m.xi = pe.Var(m.P, bounds=(0, None))
    m.w = pe.Var(m.K, bounds=(0, None))
    Ar = A.tocsr()
    rows = []
    for i in range(n_pos):
        ks = Ar.indices[Ar.indptr[i]:Ar.indptr[i + 1]].tolist()
        rows.append(LinearExpression(constant=0, linear_coefs=[1.0] + [1.0] * len(ks),
                                     linear_vars=[m.xi[i]] + [m.w[k] for k in ks]))
    m.cover = pe.Constraint(m.P, rule=lambda mm, i: rows[i] >= 1)
    m.obj = pe.Objective(expr=LinearExpression(
        constant=0, linear_coefs=[1.0 / n] * n_pos + cw.tolist(),
        linear_vars=[m.xi[i] for i in range(n_pos)] + [m.w[k] for k in range(A.shape[1])]))
    return m


def raw_highs_lp(n_pos, n, A, cw):
    """highspy alone: addRows + addCols + run, primal values and duals read back."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    k = A.shape[1]
    full = sp.hstack([sp.identity(n_pos, format="csc"), A], format="csc")
    h.addRows(n_pos, np.ones(n_pos), np.full(n_pos, np.inf), 0, np.zeros(n_pos, dtype=np.int32),
              np.zeros(0, dtype=np.int32), np.zeros(0))
    h.addCols(n_pos + k, np.concatenate([np.full(n_pos, 1.0 / n), cw]), np.zeros(n_pos + k),
              np.full(n_pos + k, np.inf), full.nnz, full.indptr[:-1].astype(np.int32),
              full.indices.astype(np.int32), full.data)
    h.run()
    sol = h.getSolution()
    _x, _y = np.asarray(sol.col_value), np.asarray(sol.row_dual)
    return h, h.getInfo().objective_function_value


def raw_highs_passmodel(n_pos, n, A, cw):
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    k = A.shape[1]
    full = sp.hstack([sp.identity(n_pos, format="csc"), A], format="csc")
    lp = highspy.HighsLp()
    lp.num_col_ = n_pos + k
    lp.num_row_ = n_pos
    lp.col_cost_ = np.concatenate([np.full(n_pos, 1.0 / n), cw])
    lp.col_lower_ = np.zeros(n_pos + k)
    lp.col_upper_ = np.full(n_pos + k, np.inf)
    lp.row_lower_ = np.ones(n_pos)
    lp.row_upper_ = np.full(n_pos, np.inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = full.indptr.astype(np.int32)
    lp.a_matrix_.index_ = full.indices.astype(np.int32)
    lp.a_matrix_.value_ = full.data.astype(float)
    h.passModel(lp)
    h.run()
    return h, h.getInfo().objective_function_value


def timed(fn, repeat, warmup=True):
    if warmup:
        fn()
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def overhead(n: int, n_cols: int, repeat: int) -> None:
    from interpretopt.solvers import make_incremental, solve

    pos, neg, columns = make_master(n, n_cols, seed=1)
    A, cw = columns(n_cols)
    n_pos = len(pos)
    model = pyomo_master(n_pos, n, A, cw)

    def ours_incremental():
        m = make_incremental("highs")
        m.add_rows(np.ones(n_pos), np.full(n_pos, np.inf))
        m.add_columns(np.full(n_pos, 1.0 / n), 0.0, np.inf, A=sp.identity(n_pos, format="csc"))
        m.add_columns(cw, 0.0, np.inf, A=A)
        return m.solve().objective

    t_raw, (h_raw, obj_raw) = timed(lambda: raw_highs_lp(n_pos, n, A, cw), repeat)
    t_pass, _ = timed(lambda: raw_highs_passmodel(n_pos, n, A, cw), repeat)
    t_inc, obj_inc = timed(ours_incremental, repeat)
    t_direct, r_direct = timed(lambda: solve(model, "highs_direct"), repeat)
    t_pyomo, r_pyomo = timed(lambda: solve(model, "highs"), repeat)
    _ = h_raw
    # re-solve overhead: change one cost, re-solve (warm), read x and duals
    inc = make_incremental("highs")
    inc.add_rows(np.ones(n_pos), np.full(n_pos, np.inf))
    inc.add_columns(np.full(n_pos, 1.0 / n), 0.0, np.inf, A=sp.identity(n_pos, format="csc"))
    inc.add_columns(cw, 0.0, np.inf, A=A)
    inc.solve()
    j = n_pos + int(np.argmax(cw))
    vals = [cw.max() * 1.01, cw.max()]
    n_re = 40

    def resolve_raw():
        for t in range(n_re):
            h_raw.changeColCost(j, vals[t % 2])
            h_raw.run()
            sol = h_raw.getSolution()
            _x, _y = np.asarray(sol.col_value), np.asarray(sol.row_dual)

    def resolve_ours():
        for t in range(n_re):
            inc.set_costs([j], [vals[t % 2]])
            inc.solve()

    t_re_raw, _ = timed(resolve_raw, repeat)
    t_re_ours, _ = timed(resolve_ours, repeat)
    for label, obj in [("IncrementalModel", obj_inc), ("highs_direct", r_direct.objective), ("highs (Pyomo)", r_pyomo.objective)]:
        assert abs(obj - obj_raw) <= 1e-6 * max(1, abs(obj_raw)), (label, obj, obj_raw)
    print(f"\nLP {n_pos} rows x {n_pos + n_cols} cols, {A.nnz + n_pos} nonzeros (best of {repeat}):")
    print(f"  {'highspy direct (addRows/addCols + run)':42s} {t_raw * 1e3:9.1f} ms   1.00x")
    for label, t in [("highspy direct (passModel + run)", t_pass),
                     ("IncrementalModel from arrays + solve", t_inc),
                     ("solve(model, 'highs_direct')", t_direct),
                     ("solve(model, 'highs')  [Pyomo interface]", t_pyomo)]:
        print(f"  {label:42s} {t * 1e3:9.1f} ms  {t / t_raw:5.2f}x   (+{(t - t_raw) * 1e3:.1f} ms)")
    per_raw, per_ours = t_re_raw / n_re, t_re_ours / n_re
    print("  warm re-solve after a cost change (x and duals read back), per solve:")
    print(f"  {'  highspy changeColCost + run':42s} {per_raw * 1e3:9.2f} ms   1.00x")
    print(f"  {'  IncrementalModel set_costs + solve':42s} {per_ours * 1e3:9.2f} ms  {per_ours / per_raw:5.2f}x"
          f"   (+{(per_ours - per_raw) * 1e3:.2f} ms per solve)")


def cg_loop(n: int, n0: int, rounds: int, per_round: int, repeat: int, with_pyomo: bool) -> None:
    import highspy

    from interpretopt.solvers import make_incremental, solve

    pos, neg, columns = make_master(n, n0 + rounds * per_round, seed=2)
    n_pos = len(pos)
    blocks = [columns(n0)] + [columns(per_round) for _ in range(rounds)]

    def raw(strategy=None):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        if strategy is not None:
            h.setOptionValue("simplex_strategy", strategy)
        h.addRows(n_pos, np.ones(n_pos), np.full(n_pos, np.inf), 0, np.zeros(n_pos, dtype=np.int32),
                  np.zeros(0, dtype=np.int32), np.zeros(0))
        eye = sp.identity(n_pos, format="csc")
        h.addCols(n_pos, np.full(n_pos, 1.0 / n), np.zeros(n_pos), np.full(n_pos, np.inf), eye.nnz,
                  eye.indptr[:-1].astype(np.int32), eye.indices.astype(np.int32), eye.data)
        obj = None
        for A, cw in blocks:
            k = A.shape[1]
            h.addCols(k, cw, np.zeros(k), np.full(k, np.inf), A.nnz, A.indptr[:-1].astype(np.int32),
                      A.indices.astype(np.int32), A.data)
            h.run()
            sol = h.getSolution()
            _duals = np.asarray(sol.row_dual)
            obj = h.getInfo().objective_function_value
        return obj

    def ours(kind):
        def run():
            m = make_incremental(kind)
            m.add_rows(np.ones(n_pos), np.full(n_pos, np.inf))
            m.add_columns(np.full(n_pos, 1.0 / n), 0.0, np.inf, A=sp.identity(n_pos, format="csc"))
            r = None
            for A, cw in blocks:
                m.add_columns(cw, 0.0, np.inf, A=A)
                r = m.solve()
                assert r.duals is not None
            return r.objective
        return run

    def pyomo_rebuild():
        r = None
        for t in range(len(blocks)):
            A = sp.hstack([b[0] for b in blocks[: t + 1]], format="csc")
            cw = np.concatenate([b[1] for b in blocks[: t + 1]])
            model = pyomo_master(n_pos, n, A, cw)
            r = solve(model, "highs", duals=True)
        return r.objective

    n_solves = len(blocks)
    print(f"\nColumn-generation loop: {n_pos} rows, {n0} columns then {rounds} rounds of +{per_round} "
          f"({n_solves} solves), wall time, best of {repeat}:")
    t_raw, obj_raw = timed(raw, repeat)
    print(f"  {'highspy addCols + warm start (defaults)':42s} {t_raw:8.3f} s   1.00x")
    t_primal, _ = timed(lambda: raw(4), repeat)
    print(f"  {'highspy addCols + warm start, primal simplex':42s} {t_primal:8.3f} s  {t_primal / t_raw:5.2f}x")
    rows = [("IncrementalModel('highs')", ours("highs")), ("IncrementalModel('ortools_glop')", ours("ortools_glop"))]
    if with_pyomo:
        rows.append(("Pyomo rebuild + solve(model, 'highs')", pyomo_rebuild))
    for label, fn in rows:
        t, obj = timed(fn, repeat if "Pyomo" not in label else 1, warmup="Pyomo" not in label)
        ok = abs(obj - obj_raw) <= 1e-6 * max(1.0, abs(obj_raw))
        print(f"  {label:42s} {t:8.3f} s  {t / t_raw:5.2f}x   objective {'matches' if ok else f'DIFFERS {obj} vs {obj_raw}'}")


def matrix_form_speed(n_rows: int) -> None:
    from interpretopt.solvers import to_matrix_form

    pos, neg, columns = make_master(max(3 * n_rows, 10), 50, seed=3)
    pos = pos[:n_rows]
    A, cw = columns(50)
    A = A[: len(pos)]
    t0 = time.perf_counter()
    model = pyomo_master(len(pos), 2 * n_rows, sp.csc_array(A), cw)
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    mf = to_matrix_form(model)
    t_mf = time.perf_counter() - t0
    print(f"\nto_matrix_form: {mf.n_rows} rows x {mf.n_cols} cols, {mf.A.nnz} nonzeros: {t_mf:.2f} s "
          f"(building the Pyomo model took {t_build:.2f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=5000, help="samples of the CG master (positives are the rows)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--per-round", type=int, default=20)
    ap.add_argument("--initial", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--matrix-rows", type=int, default=50000, help="rows for the to_matrix_form timing (0 = skip)")
    ap.add_argument("--no-pyomo-loop", action="store_true", help="skip the (slow) Pyomo rebuild loop")
    args = ap.parse_args()

    overhead(200, 100, max(args.repeat, 5))
    overhead(args.n, 350, args.repeat)
    cg_loop(args.n, args.initial, args.rounds, args.per_round, args.repeat, not args.no_pyomo_loop)
    if args.matrix_rows:
        matrix_form_speed(args.matrix_rows)


if __name__ == "__main__":
    main()
