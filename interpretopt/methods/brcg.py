"""BRCG rule sets by column generation, and the grounded variant BRCG+.

Column generation (Dash, Günlük and Wei 2018; "What changed?", Section 3.1) runs in
:mod:`interpretopt.methods._colgen`: the restricted master LP on an incremental backend,
pricing by a vectorized beam search (the fast default, a heuristic) and/or the exact
pricing MILP, then the integer master over the generated clauses and, when the exact phase
completed, a bound step (branch and bound over the clauses that reduced-cost fixing leaves,
:mod:`interpretopt.methods._pool_bound`). Every fit reports what it found (``restricted_lp_``,
``objective_``) apart from what it proved (``lower_bound_``, ``gap_``, ``proven_``, ``status_``);
see :func:`column_generation` and the derivation of the bounds in
:mod:`interpretopt.formulations.brcg`.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from interpretopt._validation import (
    RANDOM_STATE,
    ContractMixin,
    HasMethods,
    Interval,
    Options,
    StrOptions,
    check_fitted,
    check_solver_available,
    encode_binary_target,
    render_names,
    validate_data,
    warn_single_class,
)
from interpretopt.exceptions import InputError, ParameterError
from interpretopt.formulations import brcg as F
from interpretopt.methods._colgen import (
    DUAL_POLICIES,
    PRICING_STRATEGIES,
    STOP_REASONS,
    CGResult,
    clause_cover,
    column_generation,
)
from interpretopt.rules import RuleSet
from interpretopt.solvers._roles import SolverRole, assign_solvers

#: default work budget of the exact phase (``exact_phase_work``): see :class:`BRCGClassifier`
EXACT_PHASE_WORK = 5e11
#: default work limit of the integer master (``mip_work_limit``): see :class:`BRCGClassifier`
MIP_WORK_LIMIT = 2e8
#: default node limit of the bound step (``bound_nodes``): see :class:`BRCGClassifier`
BOUND_NODES = 1_000
#: default work limit of the bound step (``bound_work``): see :class:`BRCGClassifier`
BOUND_WORK = 2e8

__all__ = ["BRCGClassifier", "GroundedBRCGClassifier", "CGResult", "column_generation", "PRICING_STRATEGIES",
           "STOP_REASONS", "SOLVER_ROLES", "active_solver_roles", "solver_roles"]


#: BRCG's optimization problems and what each needs of its solver (a config's or an estimator's
#: ``solver`` names one solver for all the roles it fits, or one per role)
SOLVER_ROLES = {
    "master": SolverRole("master", ("lp", "duals", "incremental"),
                         "the restricted master LP, held by the solver and re-solved warm as columns are added; its "
                         "duals price new clauses"),
    "pricing": SolverRole("pricing", ("milp", "mixed_integer"),
                          "the exact pricing MILP (pricing 'milp' or 'beam+milp'; delta of the negative samples is "
                          "continuous)"),
    "integer": SolverRole("integer", ("milp", "mixed_integer"),
                          "the integer master over the generated clauses (xi is continuous)"),
}
#: pricing strategies that solve the pricing MILP (the others price by beam search / branch and bound)
MILP_PRICING = ("milp", "beam+milp")


def active_solver_roles(pricing: str = "beam") -> dict:
    """The roles of a fit with pricing strategy ``pricing``: the pricing role only when it solves the MILP."""
    return {k: r for k, r in SOLVER_ROLES.items() if k != "pricing" or pricing in MILP_PRICING}


def solver_roles(name: str, **capabilities) -> str:
    """The roles of :data:`SOLVER_ROLES` the solver ``name`` can fill, as ``interpretopt list solvers`` prints
    them (``"master,pricing,integer"``, ``"-"`` for none).

    The capabilities are read from the registry; keyword arguments (``lp=True, ...``) given
    override them (a solver described by its capabilities alone).
    """
    from interpretopt._validation import solver_capabilities

    caps = dict(solver_capabilities(name) or {})
    if not caps:  # a name the registry does not know: its MILPs take continuous variables unless said otherwise
        capabilities.setdefault("mixed_integer", bool(capabilities.get("milp", False)))
    caps.update(capabilities)
    roles = [k for k, r in SOLVER_ROLES.items() if all(caps.get(n, False) for n in r.needs)]
    return ",".join(roles) if roles else "-"


# ----------------------------------------------------------------------------- estimators
def _passthrough_conditions(d: int):
    from interpretopt.rules import Condition

    return [Condition(j, ">", 0.5) for j in range(d)]


class BRCGClassifier(ContractMixin, ClassifierMixin, BaseEstimator):
    """Boolean rule set (DNF) classifier learned by column generation (BRCG).

    Predicts 1 when any rule of ``rules_`` holds. With ``target_class=0`` the rules describe
    class 0 instead (a DNF for the negatives, i.e. a CNF for the positive class) and the
    prediction is 1 when no rule holds.

    Parameters
    ----------
    form : {"light", "constraint"}, default "light"
        Objective with per-clause/per-literal weights ``lambda0``/``lambda1`` (loss divided
        by n), or the Hamming loss with complexity bound ``C`` (eqs. (1)-(4)).
    C : float or None
        Complexity bound (constraint form).
    lambda0, lambda1 : float, default 0.001
        Light-form weights (AIX360's defaults).
    complexity : {"literals+1", "literals"}, default "literals+1"
        Clause complexity ``c_k`` in the bound ``C``.
    max_literals : int, default 10
        Largest clause (beam depth / ``D`` of the pricing MILP).
    pricing : {"beam", "milp", "beam+milp", "bnb", "beam+bnb"}, default "beam"
        Beam search every iteration (fast, a heuristic: nothing is proven, as AIX360); the
        exact MILP every iteration; or the beam every iteration and the exact MILP (behind
        ``milp_time_limit``) when the beam finds nothing, which can prove the LP solved.
        ``"bnb"`` / ``"beam+bnb"`` use an exact branch and bound over literals instead of
        the MILP (several columns per call, a valid bound even when its limit stops it).
    beam_width : int, default 5
    columns_per_iter : int, default 10
        Most columns a beam round adds; the exact branch and bound adds up to three times as
        many per call.
    max_iter : int, default 100
    time_limit : float or None
        Wall-clock safety net (seconds, > 0) of the column-generation loop; ``max_iter`` is
        its work limit. At the limit the integer master still runs over the clauses the last
        LP saw; ``stop_reason_`` says ``"time_limit"`` and ``limited_by_time_`` is True.
    milp_time_limit : float or None, default 300
        Wall-clock safety net of one exact pricing call (MILP or branch and bound);
        ``pricing_node_limit`` is its work limit.
    mip_time_limit : float or None, default 300
        Wall-clock safety net of the final integer master; ``mip_node_limit`` and
        ``mip_work_limit`` are its work limits. Whichever limit stops it, the rule set is never
        worse than the empty set, the rounded LP solution, or the local search (add, remove and
        swap moves, :mod:`~interpretopt.heuristics.selection_search`) from either, which is
        also the solver's start.
    pricing_node_limit : int or None, default 200000
        Work limit of one exact pricing call: branch-and-bound nodes (``"bnb"``, ``"beam+bnb"``)
        or HiGHS' ``mip_max_nodes`` of the pricing MILP. A call stopped by it keeps a valid
        bound; when the round finds no column the fit stops as ``"pricing_work_limit"``.
    mip_node_limit : int or None, default 5000
        Work limit of the integer master: HiGHS' ``mip_max_nodes`` (other MILP solvers have
        the time limit only).
    mip_work_limit : float or None, default 2e8
        Work limit of the integer master in LP entries: at most ``mip_work_limit / (rows x
        columns)`` nodes of its integer program (rows merged by coverage, columns left after
        dominance and reduced-cost fixing), so that large masters stop at a work limit, the
        same on any machine, and not at ``mip_time_limit``. Measured on the integer masters of
        the leaderboard's default fits (``benchmarks/bench_rule_learners.py``, seed 0 unless
        named), each started from the local search: banknote, compas, magic and eye_movements
        prove their optimum within it (magic at the root, 5 CPU s). wine_white's masters (about
        2,930 rows x 700 columns, none of the LP's values at 0.5 or above) get about 100
        nodes: seed 0 ends at the local search's 0.2601 after 100 nodes (about 50 CPU s) and
        after 500 (88 CPU s). Seed 1's fit fixes 4 columns by reduced cost and ends at 0.2599
        (the master dumped from it and solved without that fixing: 0.2596 after 100 nodes, 49
        CPU s; 0.2581 after 1,000, 134 CPU s). Before this limit their 5,000 nodes met the 300
        s safety net first (seed 0 at 0.2715). The README's leaderboard gives the whole fits.
    exact_phase_literals : int or None, default 3
        With ``pricing="beam"``: before the beam, exact pricing (``"beam+bnb"``) over clauses of
        up to this many literals, under the work budget ``exact_phase_work``; the beam then
        continues over clauses of up to ``max_literals`` from its columns. The integer master
        chooses among both, so where the phase completes the rule set is at least as good as
        what exact pricing at this depth finds (``None``: the beam alone).
    exact_phase_work : float or None, default 5e11
        Work budget of the whole exact phase: row-literal pairs its exact pricer scores (a
        work limit, the same on any machine; up to three literals the pricer is the blocked
        enumeration of :mod:`~interpretopt.heuristics.clause_enum`, about 2.5e9 pairs per CPU
        second, beyond it the branch and bound, about 7e7). Measured with
        ``benchmarks/bench_rule_learners.py --learners brcg_l0.001 brcg_exact3 --per-fit`` (its
        five datasets, stratified 70/30 splits, seeds 0 and 1): the phase
        completes on banknote (4e7), compas (1e9), magic (4.5e10), wine_white (4.6e10) and
        eye_movements (2.1e11 and 3.0e11); the default fit's objective beside exact pricing's
        at 3 literals is in the README's leaderboard. On larger problems the phase stops at
        the budget with the columns and the bound found so far.
    bound_nodes : int or None, default 1000
        Node limit of the bound step, which runs after the integer master when the exact phase
        completed (light form, no grounding, whole sample weights) and ``rules_`` is not proven
        optimal over its clause space: a branch and bound over the clauses that reduced-cost
        fixing at the exact phase's multipliers leaves (the pool: the 20,000 clauses of least
        reduced cost, fewer on many rows), each node's LP solved by column generation over the
        pool, nodes split on the number of clauses, of literals and of errors and then on a
        clause, bounds raised to the objectives a rule set can take. It raises ``lower_bound_``
        over ``bound_space_`` and replaces ``rules_`` when it finds a better rule set. The
        derivation is in :mod:`interpretopt.methods._pool_bound`; ``None``: no bound step (the
        fit before it). Measured with ``benchmarks/bench_brcg.py --defaults breast_cancer,banknote,
        compas,magic,wine_white,eye_movements --seeds 0,1 --configs "default,no bound"``
        (stratified 70/30 splits, seeds 0 / 1; CPU of the whole fit without -> with the step):
        breast cancer (n = 398) gap 0.176 -> 0.087 and 0.190 -> 0.082 (bounds 0.0140 -> 0.01551
        and 0.0150 -> 0.0170, the searches complete after 298 and 158 nodes; 4.5 -> 10.4 and 4.4
        -> 8.1 s); banknote seed 1: the search finds a rule set of 0.02517 (the integer master's
        0.02525, test accuracy 0.990 -> 0.995) and proves it optimal over clauses of up to 3
        literals in 95 nodes (0.1 -> 0.3 s); magic gap 0.009 -> 0.007 and 0.015 -> 0.013 (9.3 ->
        15.1 and 11.8 -> 17.7 s) and wine_white 0.056 -> 0.055 and 0.094 -> 0.093 (58 -> 74 and
        45 -> 61 s) stop at ``bound_work`` after 15-29 nodes; banknote seed 0, compas and
        eye_movements are within ``tol`` before it, so the step does not run.
    bound_work : float or None, default 2e8
        Work limit of the bound step: the simplex iterations of its node LPs, each counted as the
        LP's rows + columns (HiGHS's iteration count; a backend that reports none has the node
        limit only). The whole search ran at 1.3e7 (wine_white), 1.7e7 (breast cancer) and 4.7e7
        (magic) a CPU second; breast cancer's complete searches take 6.1e7 and 2.9e7, magic and
        wine_white stop at the limit after 4 and 16 CPU s. ``None``: no bound step.
    dual_policy : {"none", "wentges", "neame"} or object, default "none"
        Dual stabilisation of pricing (:data:`~interpretopt.methods._colgen.DUAL_POLICIES`);
        smoothing did not pay off in the measurements given there, so none by default.
    solver : str or dict, default "highs"
        One solver for every role (:data:`SOLVER_ROLES`) it fits: ``master`` (the master LP:
        LP duals on an incremental model), ``pricing`` (the pricing MILP, when ``pricing``
        solves it) and ``integer`` (the integer master), the others keeping ``"highs"``; or a
        mapping role -> solver (``{"master": "ortools_glop", "integer": "scipy"}``). Checked
        against each role's capabilities in ``fit``; never replaced by another solver.
    pricing_solver, mip_solver : str or None
        The solver of the ``pricing`` / ``integer`` role (winning over ``solver``).
    binarizer : {"quantile", "tree", "passthrough"} or transformer, default "quantile"
        How raw features become literals: the data layer's ``QuantileBinarizer``
        (``n_thresholds``, ``negations``), its ``TreeBinarizer``, a transformer with
        ``conditions_`` after ``fit``, or ``"passthrough"`` for input that is already
        binary (literal ``j`` = ``conditions[j]`` or ``x_j > 0.5``).
    n_thresholds : int, default 9
    negations : bool, default True
    conditions : list of Condition or None
        Meaning of the columns of binary input (``binarizer="passthrough"``).
    target_class : {1, 0}, default 1
    init : {"none", "singletons"}, default "none"
    tol : float in (0, 1), default 1e-4
        Relative tolerance of the proofs: column generation is ``proven_`` when the
        Lagrangian lower bound is within ``tol`` of the restricted LP, and the rule set is
        ``optimal`` when its objective is within ``tol`` of the lower bound.
    settings : SolveSettings or None
    random_state : None, int or Generator
        Seeds the trees of ``binarizer="tree"`` (ties between equal splits); column generation
        itself is deterministic.

    Attributes
    ----------
    rules_ : RuleSet
        The learned rules over the original features (for ``target_class``).
    restricted_lp_ : float or None
        Value of the restricted master LP (over the generated clauses) at its last solve:
        what column generation *found*; not a bound until it is ``proven_``.
    lower_bound_ : float
        The best valid lower bound the fit obtained, on the objective of every rule set whose
        clauses lie in ``bound_space_``: ``lp_lower_bound_``, raised to the least objective a
        rule set can take at or above it when the objective counts whole samples: in the
        constraint form (whole sample weights, whole grounding penalty) the next whole number;
        in the light form (whole sample weights, no grounding) the least ``e / n + lambda0 q +
        lambda1 L`` over whole errors ``e``, clauses ``q`` and literals ``q <= L <= D q``
        (:func:`~interpretopt.formulations.brcg.light_objective_floor`). It can therefore exceed
        ``restricted_lp_``: a rule set's objective lies on that lattice, an LP value need not.
        When the bound step ran (``bound_nodes``), the higher of that and its bound over the
        exact phase's space (``bound_search_.bound``).
    bound_space_ : str
        The clause space ``lower_bound_`` and ``gap_`` hold over: ``"clauses of up to
        max_literals literals"``, or ``"clauses of up to exact_phase_literals literals"`` when the
        exact phase's bound over that smaller space is the higher one. Derivation: for any
        duals ``(mu, lam)`` feasible for the master's dual, the Lagrangian bound (B1)
        ``D0 + sum_k min(0, rc_k) + min(0, R)`` over the master's columns ``k`` and a lower
        bound ``R`` on the reduced cost of every other clause of the space bounds the LP over
        that space from below (weak duality, :mod:`interpretopt.formulations.brcg`), hence every
        rule set of it. The depth-1 bound gives ``R`` for every clause; the exact phase's
        branch and bound (complete, or its queue's least bound when its budget stops it) gives
        ``R`` for clauses of up to ``exact_phase_literals`` literals only, so that bound is
        reported with its space and never as a bound on longer clauses. A rule set that uses
        longer clauses can beat every rule set of the smaller space; ``gap_`` is then 0.
    full_lower_bound_ : float
        The bound over clauses of up to ``max_literals`` literals (the whole space searched).
    lp_lower_bound_ : float
        ``lower_bound_`` before rounding: a valid lower bound on the LP over ``bound_space_``
        (the Lagrangian bound of :mod:`interpretopt.formulations.brcg`, best over the
        iterations; 0, the objective's own floor, before any LP is solved).
    objective_ : float
        Objective of ``rules_`` (recomputed from the selection).
    gap_ : float
        ``(objective_ - lower_bound_) / objective_``, against that valid bound only, over
        ``bound_space_`` (0 when ``objective_`` is at or below it). What is left after column
        generation is the LP's integrality gap, not pricing's: on breast cancer (stratified
        70/30, seed 0) the fit ends at 0.0170 against the LP over clauses of up to 3 literals,
        0.0137, where the LP covers all 250 positive rows with 44 fractional clauses and no
        error; the lattice lifts it to 0.0140 (4 clauses of 10 literals and no error), gap
        0.176 (seed 1: 0.190). Solving the LP once for each number of clauses q and of literals
        L, with each part's errors rounded up, gives no more (q = 4, L = 10 at 0.0140 again).
        The bound step's branching closes it: every rule set of that space costs at least
        0.01551 (seed 1: 0.0170), gap 0.087 (0.082); see ``bound_nodes``. The integer master
        over the 20,000 clauses of least reduced cost finds 0.01651 after 1,000 nodes (281 CPU
        s), so the default's rule set is not the space's optimum either.
    proven_ : bool
        ``lp_lower_bound_`` is within ``tol`` of ``restricted_lp_``: the LP over all clauses
        is solved. Only a bound from exact pricing (or, rarely, the always-valid depth-1
        bound) can prove it, so beam pricing almost always gives ``False``. ``status_`` can
        be ``"optimal"`` without it when the integer objective meets ``lower_bound_``.
    status_ : str
        Of ``rules_`` for the whole space of ``max_literals``: ``"optimal"`` when the gap to
        ``full_lower_bound_`` is within ``tol``; otherwise
        ``"heuristic"`` (beam pricing) or ``"feasible"`` (an incumbent with a bound and a gap).
    stop_reason_ : str
        ``"proven_optimal"``, ``"heuristic_pricing_exhausted"``, ``"pricing_time_limit"``,
        ``"pricing_work_limit"``, ``"pricing_no_progress"``, ``"time_limit"``,
        ``"iteration_limit"`` (or ``"single_class"`` when the labels have one class).
    limited_by_time_ : bool
        A wall-clock safety net (``time_limit``, ``milp_time_limit``, ``mip_time_limit``)
        stopped a stage: the result may depend on the machine's speed and load. With the work
        limits binding first (the defaults) it is False and the fit is the same on any machine.
    work_ : dict
        Work done: LP solves (``iterations``), ``pricing_calls``, ``bnb_nodes``, ``columns``, and the
        bound step's ``bound_nodes`` and ``bound_pool`` (0 when it did not run).
    bound_search_ : PoolBound or None
        What the bound step proved and found (:class:`~interpretopt.methods._pool_bound.PoolBound`:
        its bound, target, whether it completed or which limit stopped it, the pool's size, the
        bound after 1, 10, 100, ... nodes), or ``None`` when it did not run.
    solve_results_ : dict
        SolveResults of the last master LP, the last pricing MILP and the integer master.
    history_ : list of dict
        Per-iteration LP value, lower bound, pricing used, columns added and times.
    timings_ : dict
        Seconds building, in LP solves, pricing, bounds, the integer master and the bound step
        (``bound_search``).
    rule_precision_ : ndarray (n_rules,)
        Training precision of each rule: the (weighted) share of the training samples it
        covers that belong to the class the rules describe (``classes_[target_class]``).
    default_precision_ : float
        The same share among the training samples no rule covers (0.5 when there is none).

    solvers_ : dict
        Per role of the fit: ``{"requested": the string given ("" for the default), "solver":
        the backend that ran ("" when the role solved nothing)}``.

    Notes
    -----
    Solver roles (:data:`SOLVER_ROLES`; column ``brcg`` of ``interpretopt list solvers``):
    the master LP needs LP duals on an incremental model (``highs``, ``highs_direct``,
    ``ortools_glop``); the pricing MILP and the integer master take any solver of MILPs with
    continuous variables (``highs``, ``scipy``, ``ortools_scip``, ``cbc``, ...), which CP-SAT
    is not.
    """

    _parameter_constraints: dict = {
        "form": [StrOptions({"light", "constraint"})],
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "lambda0": [Interval(Real, 0, None, closed="left")],
        "lambda1": [Interval(Real, 0, None, closed="left")],
        "complexity": [StrOptions({"literals+1", "literals"})],
        "max_literals": [Interval(Integral, 1, None, closed="left")],
        "pricing": [StrOptions(set(PRICING_STRATEGIES))],
        "beam_width": [Interval(Integral, 1, None, closed="left")],
        "columns_per_iter": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "milp_time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "mip_time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "solver": [str, dict],
        "pricing_node_limit": [Interval(Integral, 1, None, closed="left"), None],
        "mip_node_limit": [Interval(Integral, 1, None, closed="left"), None],
        "mip_work_limit": [Interval(Real, 0, None, closed="neither"), None],
        "dual_policy": [StrOptions(set(DUAL_POLICIES)), HasMethods(["reset", "points", "evaluated"])],
        "exact_phase_literals": [Interval(Integral, 1, None, closed="left"), None],
        "exact_phase_work": [Interval(Real, 0, None, closed="neither"), None],
        "bound_nodes": [Interval(Integral, 1, None, closed="left"), None],
        "bound_work": [Interval(Real, 0, None, closed="neither"), None],
        "pricing_solver": [str, None],
        "mip_solver": [str, None],
        "binarizer": [StrOptions({"quantile", "tree", "passthrough"}), HasMethods(["fit", "transform"])],
        "n_thresholds": [Interval(Integral, 1, None, closed="left")],
        "negations": ["boolean"],
        "conditions": [list, tuple, None],
        "target_class": [Options(Integral, {0, 1})],
        "init": [StrOptions({"none", "singletons"})],
        "tol": [Interval(Real, 0, 1, closed="neither")],
        "settings": [HasMethods(["replace"]), None],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, form: str = "light", C: float | None = None, lambda0: float = 0.001,
                 lambda1: float = 0.001, complexity: str = "literals+1", max_literals: int = 10,
                 pricing: str = "beam", beam_width: int = 5, columns_per_iter: int = 10, max_iter: int = 100,
                 time_limit: float | None = None, milp_time_limit: float | None = 300.0,
                 mip_time_limit: float | None = 300.0,
                 solver: Any = "highs", pricing_solver: str | None = None, mip_solver: str | None = None,
                 binarizer: Any = "quantile", n_thresholds: int = 9, negations: bool = True,
                 conditions: Any = None, target_class: int = 1, init: str = "none", tol: float = 1e-4,
                 settings: Any = None, random_state: Any = None, pricing_node_limit: int | None = 200_000,
                 mip_node_limit: int | None = 5_000, mip_work_limit: float | None = MIP_WORK_LIMIT,
                 dual_policy: Any = "none", exact_phase_literals: int | None = 3,
                 exact_phase_work: float | None = EXACT_PHASE_WORK, bound_nodes: int | None = BOUND_NODES,
                 bound_work: float | None = BOUND_WORK) -> None:
        self.bound_nodes = bound_nodes
        self.bound_work = bound_work
        self.exact_phase_literals = exact_phase_literals
        self.exact_phase_work = exact_phase_work
        self.pricing_node_limit = pricing_node_limit
        self.mip_node_limit = mip_node_limit
        self.mip_work_limit = mip_work_limit
        self.dual_policy = dual_policy
        self.form = form
        self.C = C
        self.lambda0 = lambda0
        self.lambda1 = lambda1
        self.complexity = complexity
        self.max_literals = max_literals
        self.pricing = pricing
        self.beam_width = beam_width
        self.columns_per_iter = columns_per_iter
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.milp_time_limit = milp_time_limit
        self.mip_time_limit = mip_time_limit
        self.solver = solver
        self.pricing_solver = pricing_solver
        self.mip_solver = mip_solver
        self.binarizer = binarizer
        self.n_thresholds = n_thresholds
        self.negations = negations
        self.conditions = conditions
        self.target_class = target_class
        self.init = init
        self.tol = tol
        self.settings = settings
        self.random_state = random_state

    # -- binarization
    def _make_binarizer(self):
        b = self.binarizer
        if isinstance(b, str):
            if b == "passthrough":
                return None
            from interpretopt import data as D

            if b == "quantile":
                return D.QuantileBinarizer(n_thresholds=self.n_thresholds, negations=self.negations)
            if b == "tree":  # its trees are seeded by random_state (ties between equal splits)
                rs = self.random_state
                if isinstance(rs, (np.random.Generator, np.random.RandomState, np.random.SeedSequence)):
                    from interpretopt._validation import as_generator

                    rs = int(as_generator(rs).integers(2**31 - 1))
                return D.TreeBinarizer(negations=self.negations, random_state=rs)
            raise InputError(f"binarizer must be 'quantile', 'tree', 'passthrough' or a transformer, got {b!r}")
        if not hasattr(b, "fit") or not hasattr(b, "transform"):
            raise InputError(f"binarizer must be a transformer with fit/transform and conditions_, got {type(b).__name__}")
        return clone(b)

    def _fit_binarize(self, X, y):
        self.binarizer_ = self._make_binarizer()
        if self.binarizer_ is None:
            Xb = self._check_binary(X)
            conds = self.conditions if self.conditions is not None else _passthrough_conditions(Xb.shape[1])
            if len(conds) != Xb.shape[1]:
                raise InputError(f"conditions has {len(conds)} entries but X has {Xb.shape[1]} binary columns")
            self.literals_ = list(conds)
        else:
            try:
                self.binarizer_.fit(X, y)
            except TypeError:
                self.binarizer_.fit(X)
            Xb = np.asarray(self.binarizer_.transform(X))
            self.literals_ = list(self.binarizer_.conditions_)
        return Xb.astype(bool)

    @staticmethod
    def _check_binary(X) -> np.ndarray:
        arr = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X)
        if arr.ndim != 2:
            raise InputError(f"X must be 2-D (n_samples, n_features), got shape {arr.shape}")
        if arr.dtype == bool:
            return arr
        try:
            num = arr if arr.dtype.kind in "iuf" else arr.astype(float)
        except (TypeError, ValueError):
            raise InputError("binarizer='passthrough' needs a numeric 0/1 matrix") from None
        # one pass over the matrix; the distinct values are listed only for the error message
        if not ((num == 0) | (num == 1)).all():
            vals = np.unique(num.astype(float))
            raise InputError(f"binarizer='passthrough' needs a 0/1 matrix, found values {vals[:6].tolist()}; "
                             "use binarizer='quantile' for raw features")
        return arr.astype(bool)

    def _binarize(self, X) -> np.ndarray:
        if self.binarizer_ is None:
            Xb = self._check_binary(X)
        else:
            Xb = np.asarray(self.binarizer_.transform(X))
        if Xb.shape[1] != len(self.literals_):
            raise InputError(f"X gives {Xb.shape[1]} literal columns, the model was fitted with {len(self.literals_)}")
        return Xb.astype(bool)

    def _spec(self, n: int, c_u: float = 0.0) -> F.MasterSpec:
        if self.form == "constraint" and self.C is None:
            raise InputError("form='constraint' needs a complexity bound C > 0")
        return F.MasterSpec(form=self.form, C=self.C, lambda0=self.lambda0, lambda1=self.lambda1,
                            complexity=self.complexity, c_u=c_u, n_samples=n)

    def _validate_params(self) -> None:
        super()._validate_params()
        owner = type(self).__name__
        if self.conditions is not None and not (isinstance(self.binarizer, str) and self.binarizer == "passthrough"):
            raise ParameterError(f"{owner}: conditions name the columns of binary input and are read only with "
                                 f"binarizer='passthrough', got binarizer={self.binarizer!r}; drop conditions, or "
                                 "pass a 0/1 matrix with binarizer='passthrough'")
        self._solver_assignment = assign_solvers(
            self.solver, active_solver_roles(self.pricing), owner=owner, all_roles=SOLVER_ROLES,
            overrides={"pricing": self.pricing_solver, "integer": self.mip_solver})
        set_by = {"pricing": "pricing_solver", "integer": "mip_solver"}
        for role, a in self._solver_assignment.items():
            named = set_by.get(role) if getattr(self, set_by.get(role, "solver")) is not None else None
            check_solver_available(a.solver, owner=owner, what=named or f"solver (role {role})")

    def _role_solvers(self) -> dict:
        """The keyword arguments of :func:`column_generation` naming each role's backend."""
        a = self._solver_assignment
        return {"solver": a["master"].solver, "pricing_solver": a["pricing"].solver if "pricing" in a else None,
                "mip_solver": a["integer"].solver}

    def _record_solvers(self, solve_results: dict) -> None:
        """``solvers_``: per role, the string asked for and the backend that ran (``solve_results`` keys)."""
        ran = {"master": solve_results.get("lp"), "pricing": solve_results.get("pricing"),
               "integer": solve_results.get("integer")}
        self.solvers_ = {r: {"requested": a.requested, "solver": getattr(ran.get(r), "solver", "") or ""}
                         for r, a in self._solver_assignment.items()}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False  # one rule set describes one class (OneVsRestClassifier for more)
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _grounding_clauses(self, X) -> tuple[list, list]:
        return [], []

    def fit(self, X, y, sample_weight=None):
        """Binarize ``X``, run column generation on the labels ``y`` and store the rule set.

        Parameters
        ----------
        X : array-like or DataFrame (n_samples, n_features)
            Numeric columns, and categorical ones (dtype ``category`` or all strings).
            NaN and inf are rejected.
        y : array-like (n_samples,)
            Any two labels; ``classes_ = numpy.unique(y)`` and the rules describe
            ``classes_[target_class]``. A single class gives the constant model, with a
            :class:`~interpretopt._validation.SingleClassWarning`. At least two rows.
        sample_weight : array-like (n_samples,) or None
            Nonnegative weight of each sample's Hamming loss (default 1 each): an integer
            weight ``k`` is the same as ``k`` copies of the sample. The weights are rescaled
            to mean 1 (their sum becomes ``n_samples``), which keeps the light form's
            ``1/n`` and the grounding penalty ``c_u * n`` in proportion to the loss, so the
            rule set is that of the data with the samples repeated.
        """
        self._validate_params()
        self._record_solvers({})
        X = validate_data(self, X, reset=True, categorical=True, min_samples=2)
        n = X.shape[0]
        sw = _check_sample_weight(sample_weight, n)
        self.classes_, yv = encode_binary_target(self, y, n_samples=n, allow_single_class=True)
        c_u = getattr(self, "c_u", 0.0)
        spec = self._spec(n, c_u)
        Xb = self._fit_binarize(X, yv)
        target = yv if self.target_class == 1 else (1 - yv).astype(np.int8)
        init_clauses, grounding = self._grounding_clauses(X)
        if init_clauses:
            Xb = self._literal_matrix(X, Xb)
        from interpretopt.solvers import SolveSettings

        if len(self.classes_) == 1:  # one class: the constant model, no rule (both target classes)
            warn_single_class(self, self.classes_)
            self._fit_constant(0, spec)
            self._set_precision(Xb, target, sw)
            return self
        settings = self.settings if self.settings is not None else SolveSettings()
        res = column_generation(
            Xb, target, spec, max_literals=self.max_literals, pricing=self.pricing, beam_width=self.beam_width,
            columns_per_iter=self.columns_per_iter, max_iter=self.max_iter, time_limit=self.time_limit,
            milp_time_limit=self.milp_time_limit, mip_time_limit=self.mip_time_limit, **self._role_solvers(),
            initial_clauses=init_clauses,
            grounding=grounding, init=self.init, tol=self.tol, settings=settings, sample_weight=sw,
            pricing_node_limit=self.pricing_node_limit, mip_node_limit=self.mip_node_limit,
            mip_work_limit=self.mip_work_limit,
            dual_policy=self.dual_policy, exact_phase_literals=self.exact_phase_literals,
            exact_phase_work=self.exact_phase_work, bound_nodes=self.bound_nodes, bound_work=self.bound_work)
        self.cg_ = res
        self._record_solvers(res.solve_results)
        self.clauses_ = [res.clauses[k] for k in res.selected]
        self.rules_ = self._to_ruleset(self.clauses_)
        self.rules_class_ = int(self.target_class)
        self._set_certificate(res)
        self._set_precision(Xb, target, sw)
        int_res = res.solve_results.get("integer")
        if int_res is not None and str(int_res.status) != "optimal":
            warnings.warn(f"the integer master over the generated clauses ended with status {int_res.status}; "
                          f"the rule set is the best incumbent ({res.integer_source})", RuntimeWarning, stacklevel=2)
        if not self.clauses_ and res.stop_reason == "time_limit":
            warnings.warn(f"time_limit={self.time_limit} s ran out after {len(res.history)} LP solve(s) and "
                          f"{len(res.clauses)} clause(s): the rule set is empty for lack of time; raise time_limit",
                          RuntimeWarning, stacklevel=2)
        return self

    def _set_certificate(self, res: CGResult) -> None:
        """Found (``restricted_lp_``, ``objective_``) and proven (``lower_bound_``, ``lp_lower_bound_``, ``gap_``,
        ``proven_``, ``status_``)."""
        self.solve_results_ = res.solve_results
        self.restricted_lp_ = res.restricted_lp
        self.full_lower_bound_ = res.integer_bound
        self.lower_bound_ = res.integer_bound
        self.lp_lower_bound_ = res.lower_bound
        self.bound_space_ = f"clauses of up to {self.max_literals} literals"
        self.objective_ = res.objective
        self.gap_ = res.gap
        if res.space_integer_bound is not None and res.space_literals < self.max_literals \
                and res.space_integer_bound > res.integer_bound:
            # the exact phase's bound holds over the smaller clause space only: say which
            from interpretopt.methods._colgen import relative_gap

            self.lower_bound_, self.lp_lower_bound_ = res.space_integer_bound, res.space_bound
            self.bound_space_ = f"clauses of up to {res.space_literals} literals"
            self.gap_ = relative_gap(res.objective, res.space_integer_bound)
        self.proven_ = bool(res.proven)
        self.status_ = res.status
        self.stop_reason_ = res.stop_reason
        self.history_ = res.history
        self.timings_ = res.timings
        self.n_iter_ = len(res.history)
        self.n_columns_ = len(res.clauses)
        self.limited_by_time_ = bool(res.limited_by_time)
        self.work_ = dict(res.work)
        self.bound_search_ = res.bound_search

    def _literal_matrix(self, X, Xb):
        return Xb

    def _set_precision(self, Xb, target, sw) -> None:
        """``rule_precision_`` and ``default_precision_`` on the training samples (see :meth:`predict_proba`)."""
        w = np.ones(Xb.shape[0]) if sw is None else sw
        t = np.asarray(target, dtype=float)
        cov = (np.stack([clause_cover(Xb, c) for c in self.clauses_], axis=1) if self.clauses_
               else np.zeros((Xb.shape[0], 0), dtype=bool))

        def share(mask) -> float:
            tot = float(w[mask].sum())
            return float((w[mask] * t[mask]).sum() / tot) if tot > 0 else 0.5

        self.rule_precision_ = np.array([share(cov[:, k]) for k in range(cov.shape[1])], dtype=float)
        self.default_precision_ = share(~cov.any(axis=1))

    def _fit_constant(self, label: int, spec: F.MasterSpec):
        """Labels of one class: no rule (all 0) or the always-true rule (all 1); no optimization is run.

        Proven by argument: with labels all 0 the empty rule set has objective 0 and every
        objective is >= 0. With labels all 1 the always-true rule costs its penalty ``p``
        (``lambda0`` in the light form, 0 in the constraint form); any other selection either
        covers every sample with at least one clause (cost >= ``p``) or leaves one uncovered
        (cost >= one sample's loss, ``1/n`` in the light form), so the bound is
        ``min(p, 1/n)``.
        """
        self.cg_ = None
        self.clauses_ = [] if label == 0 else [()]
        self.rules_ = self._to_ruleset(self.clauses_)
        self.rules_class_ = int(self.target_class)
        cost = 0.0 if label == 0 else float(spec.clause_penalty(np.zeros(1))[0])
        bound = 0.0 if label == 0 else min(cost, spec.loss_scale)
        gap = 0.0 if cost - bound <= 1e-12 else (cost - bound) / cost
        self.solve_results_ = {"lp": None, "pricing": None, "integer": None}
        self.restricted_lp_ = None
        self.lower_bound_ = self.lp_lower_bound_ = self.full_lower_bound_ = bound
        self.bound_space_ = "all rule sets"
        self.objective_ = cost
        self.gap_ = gap
        self.proven_ = True
        self.status_ = "optimal" if gap <= self.tol else "feasible"
        self.history_ = []
        self.stop_reason_ = "single_class"
        self.timings_ = {"build": 0.0, "lp": 0.0, "pricing": 0.0, "bound": 0.0, "integer": 0.0, "bound_search": 0.0,
                         "total": 0.0}
        self.n_iter_ = 0
        self.n_columns_ = 0
        self.limited_by_time_ = False
        self.work_ = {"iterations": 0, "pricing_calls": 0, "bnb_nodes": 0, "columns": 0, "columns_fixed": 0,
                      "bound_nodes": 0, "bound_pool": 0}
        self.bound_search_ = None
        return self

    def _to_ruleset(self, clauses):
        from interpretopt.rules import Conjunction, RuleSet

        names = getattr(self, "feature_names_in_", None)  # rules learned on named columns carry the names
        return RuleSet(tuple(Conjunction(tuple(self.literals_[j] for j in c)) for c in clauses),
                       None if names is None else tuple(str(n) for n in names))

    def _clause_coverage(self, X) -> np.ndarray:
        Xb = self._literal_matrix(X, self._binarize(X))
        if not self.clauses_:
            return np.zeros((Xb.shape[0], 0), dtype=bool)
        return np.stack([clause_cover(Xb, c) for c in self.clauses_], axis=1)

    def _checked(self, X):
        check_fitted(self, "rules_")
        return validate_data(self, X, reset=False, categorical=True)

    def decision_function(self, X) -> np.ndarray:
        """Number of rules that hold on each sample minus 1/2, positive for ``classes_[1]``.

        With ``target_class=1`` the value is ``k - 0.5`` (k rules hold), with ``target_class=0``
        it is ``0.5 - k``; its sign gives :meth:`predict`.
        """
        k = self._clause_coverage(self._checked(X)).sum(axis=1).astype(float)
        return k - 0.5 if self.rules_class_ == 1 else 0.5 - k

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` when any rule holds (``target_class=1``), or when none holds (``target_class=0``)."""
        hit = self._clause_coverage(self._checked(X)).any(axis=1)
        codes = (hit if self.rules_class_ == 1 else ~hit).astype(np.int64)
        return self.classes_[np.minimum(codes, len(self.classes_) - 1)]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities from the training precision of the rules that hold.

        Definition: for a sample covered by one or more rules, the probability of the class
        the rules describe (``classes_[target_class]``) is the largest training precision
        among those rules (``rule_precision_``: the weighted share of that class among the
        training samples the rule covers); for a sample no rule covers it is
        ``default_precision_``, the share of that class among the uncovered training samples.
        The other class gets the complement. :meth:`predict` is the rule set's own decision
        and can disagree with ``argmax`` of these probabilities where a rule's training
        precision is below 1/2.

        Returns
        -------
        ndarray (n_samples, n_classes)
            Columns in the order of ``classes_`` (one column for a single-class fit).
        """
        cov = self._clause_coverage(self._checked(X))
        if cov.shape[1]:
            prec = np.where(cov, self.rule_precision_[None, :], -np.inf).max(axis=1)
            p_rule = np.where(cov.any(axis=1), prec, self.default_precision_)
        else:
            p_rule = np.full(cov.shape[0], self.default_precision_)
        if len(self.classes_) == 1:
            return np.ones((cov.shape[0], 1))
        p1 = p_rule if self.rules_class_ == 1 else 1.0 - p_rule
        return np.column_stack([1.0 - p1, p1])

    def explain(self, X):
        """Which rules hold on each row of ``X``.

        Returns
        -------
        pandas.DataFrame (n_samples, n_rules) of bool
            Column ``k`` is rule ``k`` of ``rules_``, labelled with its text (feature names
            when the model was fitted on a DataFrame); the index is ``X``'s when ``X`` is a
            DataFrame. A row with no ``True`` is predicted by the default (else) branch.
        """
        import pandas as pd

        index = X.index if hasattr(X, "index") and hasattr(X, "columns") else None
        cov = self._clause_coverage(self._checked(X))
        names = render_names(self)
        labels = [f"rule {k + 1}: {r.render(names)}" for k, r in enumerate(self.rules_.rules)]
        return pd.DataFrame(cov, columns=labels, index=index)

    def render(self) -> str:
        """The rule set as text, with feature names when the input was a DataFrame."""
        check_fitted(self, "rules_")
        labels = [v.item() if hasattr(v, "item") else v for v in self.classes_]
        pos = labels[min(self.rules_class_, len(labels) - 1)]
        neg = labels[min(1 - self.rules_class_, len(labels) - 1)]
        return self.rules_.render(render_names(self), positive=pos, negative=neg)

    def fidelity(self, X, y_model) -> float:
        """Agreement of the rule set with a black box's labels ``y_model`` on ``X``."""
        pred = self.predict(X)
        y_model = np.asarray(y_model)
        if y_model.shape != pred.shape:
            raise InputError(f"y_model has shape {y_model.shape} but X has {pred.shape[0]} rows")
        return float(np.mean(pred == y_model))


class GroundedBRCGClassifier(BRCGClassifier):
    """BRCG+: BRCG grounded in a given rule set ``U`` (eq. (5) of "What changed?").

    Each grounding rule is always a column of the master and costs ``c_u * n`` in Hamming
    loss when it is not selected. The grounding rules are given over the original features
    (e.g. ``rules_`` of an earlier fit; rules learned on a DataFrame carry its column names
    and are matched to ``X``'s columns by name, a missing name being an error, while rules
    without names refer to column positions); each of their conditions must be a literal the
    binarizer produces, else an error names it (``extend_literals=True`` adds such
    conditions as extra literal columns instead).

    Parameters
    ----------
    grounding : RuleSet
    c_u : float, default 0.01
        Penalty per dropped grounding rule as a fraction of ``n``.
    extend_literals : bool, default False
    **kwargs
        Every parameter of :class:`BRCGClassifier`.

    Attributes
    ----------
    grounding_kept_ : ndarray of bool
        Which grounding rules are in ``rules_``.
    """

    def __init__(self, *, grounding: Any = None, c_u: float = 0.01, extend_literals: bool = False,
                 form: str = "light", C: float | None = None, lambda0: float = 0.001, lambda1: float = 0.001,
                 complexity: str = "literals+1", max_literals: int = 10, pricing: str = "beam",
                 beam_width: int = 5, columns_per_iter: int = 10, max_iter: int = 100,
                 time_limit: float | None = None, milp_time_limit: float | None = 300.0,
                 mip_time_limit: float | None = 300.0,
                 solver: Any = "highs", pricing_solver: str | None = None, mip_solver: str | None = None,
                 binarizer: Any = "quantile", n_thresholds: int = 9, negations: bool = True,
                 conditions: Any = None, target_class: int = 1, init: str = "none", tol: float = 1e-4,
                 settings: Any = None, random_state: Any = None, pricing_node_limit: int | None = 200_000,
                 mip_node_limit: int | None = 5_000, mip_work_limit: float | None = MIP_WORK_LIMIT,
                 dual_policy: Any = "none", exact_phase_literals: int | None = 3,
                 exact_phase_work: float | None = EXACT_PHASE_WORK, bound_nodes: int | None = BOUND_NODES,
                 bound_work: float | None = BOUND_WORK) -> None:
        super().__init__(form=form, C=C, lambda0=lambda0, lambda1=lambda1, complexity=complexity,
                         max_literals=max_literals, pricing=pricing, beam_width=beam_width,
                         columns_per_iter=columns_per_iter, max_iter=max_iter, time_limit=time_limit,
                         milp_time_limit=milp_time_limit, mip_time_limit=mip_time_limit, solver=solver,
                         pricing_solver=pricing_solver, mip_solver=mip_solver, binarizer=binarizer,
                         n_thresholds=n_thresholds, negations=negations, conditions=conditions,
                         target_class=target_class, init=init, tol=tol, settings=settings, random_state=random_state,
                         pricing_node_limit=pricing_node_limit, mip_node_limit=mip_node_limit,
                         mip_work_limit=mip_work_limit,
                         dual_policy=dual_policy, exact_phase_literals=exact_phase_literals,
                         exact_phase_work=exact_phase_work, bound_nodes=bound_nodes, bound_work=bound_work)
        self.grounding = grounding
        self.c_u = c_u
        self.extend_literals = extend_literals

    _parameter_constraints: dict = {
        **BRCGClassifier._parameter_constraints,
        "grounding": [RuleSet],
        "c_u": [Interval(Real, 0, None, closed="left")],
        "extend_literals": ["boolean"],
    }

    def _grounding_clauses(self, X):
        index = {c: j for j, c in enumerate(self.literals_)}
        d = self.n_features_in_
        names = render_names(self)
        extra: list = []
        clauses: list[tuple] = []
        for k, rule in enumerate(_grounding_by_name(self.grounding, getattr(self, "feature_names_in_", None))):
            cols = []
            if len(rule) == 0:
                raise InputError(f"grounding rule {k} is empty (always true); give rules with at least one condition")
            for cond in rule.conditions:
                j = index.get(cond)
                if j is None:
                    j = _close_match(cond, self.literals_)
                if j is None:
                    if cond.feature >= d:
                        raise InputError(f"grounding rule {k} ({rule.render()}) refers to feature {cond.feature}, "
                                         f"but X has {d} features")
                    if not self.extend_literals:
                        raise InputError(
                            f"grounding rule {k} uses condition {cond.render(names)!r} that the binarizer did not produce; "
                            "fit with the same binarizer settings as the grounding rules, or pass extend_literals=True")
                    j = len(self.literals_) + len(extra)
                    extra.append(cond)
                    index[cond] = j
                cols.append(j)
            clauses.append(tuple(sorted(set(cols))))
        self.extra_literals_ = extra
        self.n_binarized_ = len(self.literals_)
        self.literals_ = list(self.literals_) + extra
        self.grounding_clauses_ = clauses
        return clauses, list(range(len(clauses)))

    def _literal_matrix(self, X, Xb):
        extra = getattr(self, "extra_literals_", [])
        if Xb.shape[1] == getattr(self, "n_binarized_", Xb.shape[1]) and extra:
            cols = [np.asarray(c.evaluate(X), dtype=bool) for c in extra]
            Xb = np.hstack([Xb, np.stack(cols, axis=1)])
        return Xb

    def _binarize(self, X) -> np.ndarray:
        if self.binarizer_ is None:
            Xb = self._check_binary(X)
        else:
            Xb = np.asarray(self.binarizer_.transform(X))
        return Xb.astype(bool)

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight=sample_weight)
        sel = set(self.clauses_)
        self.grounding_kept_ = np.array([c in sel for c in self.grounding_clauses_], dtype=bool)
        return self


def _grounding_by_name(grounding, names) -> tuple:
    """The grounding rules with their feature indices read by name in the columns of this fit.

    Rules that carry ``feature_names`` (learned on a DataFrame) refer to columns by name: a
    rule over ``age`` is carried to wherever ``age`` is now, and a name missing from ``X`` is
    an error. Rules without names refer to positions, as given.
    """
    from dataclasses import replace

    used = grounding.features
    if grounding.feature_names is None or not used:
        return grounding.rules
    wanted = {f: grounding.feature_names[f] for f in used}
    if names is None:
        raise InputError(f"the grounding rules were learned on named columns ({', '.join(sorted(wanted.values()))}) "
                         "but X has no column names; fit on a DataFrame with those columns, so that each rule is "
                         "applied to the column it names")
    where = {str(c): j for j, c in enumerate(names)}
    missing = [n for n in wanted.values() if n not in where]
    if missing:
        raise InputError(f"the grounding rules use column(s) {missing} that X does not have (X's columns: "
                         f"{', '.join(map(str, names[:10]))}{', ...' if len(names) > 10 else ''}); fit on data with "
                         "the columns the rules were learned on")
    return tuple(type(r)(tuple(replace(c, feature=where[wanted[c.feature]]) for c in r.conditions))
                 for r in grounding.rules)


def _check_sample_weight(sample_weight, n: int):
    """None, or ``n`` finite nonnegative floats that are not all 0 (else an error naming what is wrong)."""
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"sample_weight must be {n} nonnegative numbers, got {type(sample_weight).__name__}") from None
    if w.ndim == 0:
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise InputError(f"sample_weight must have one entry per sample: shape ({n},) expected, got {w.shape}")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"sample_weight must be finite and >= 0; entry {i} is {float(w[i])!r} "
                         f"({int(bad.sum())} such entries)")
    if not w.sum() > 0:
        raise InputError("sample_weight: every weight is zero; give at least one sample a positive weight")
    return w * (n / w.sum())


def _close_match(cond, literals) -> int | None:
    for j, c in enumerate(literals):
        if c.feature == cond.feature and c.op == cond.op:
            a, b = c.value, cond.value
            if isinstance(a, (int, float, np.number)) and isinstance(b, (int, float, np.number)) \
                    and not isinstance(a, bool) and not isinstance(b, bool):
                if np.isclose(float(a), float(b), rtol=1e-9, atol=1e-12):
                    return j
            elif a == b:
                return j
    return None
