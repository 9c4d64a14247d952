"""Experiment task ``imd``: interpretable model differencing (Haldar et al., UAI 2023).

``run(ctx)`` has two modes, chosen by ``params["experiment"]``:

``"diff"`` (default), Sections 5.1-5.3 and Appendices F.1, F.2, F.7
    The run's two black boxes (``ctx.models``, e.g. chosen by ``pairs.select:
    max_min_accuracy_gap``) are trained on the 70/30 split used for pair selection (key
    ``pair_selection``, repetition 0). The unlabelled data is split 70/30 per repetition
    (key ``diff``); the diff model ``variant`` is fitted on the 70% part, labelled by the
    two models, and scored on the 30% part. Parameters: ``variant`` (``imd``,
    ``separate``, ``direct_dt``, ``direct_gb``, ``brcg_diff``), ``max_depth`` (6),
    ``refine`` (0; IMD only), ``alpha`` (IMD: ``None`` = eq. 6, a number = eq. 5),
    ``criterion`` (``entropy``), ``brcg`` (dict of BRCG parameters).
    Returns ``diffs, precision, recall, f1, n_rules, n_predicates`` (and, for the surrogate
    methods, ``fidelity1, fidelity2, n_or_nodes, n_shared, height``), ``fit_seconds``.

``"perturbation"``, Appendix F.8
    A model of class ``perturb_model`` (``LR``, ``DT2``, ``RF1``, ``GB``) is trained on the
    true labels (the original model); a random rule ``r`` of two conditions (one per
    repetition) flips the training labels it covers with probability ``flip_prob``; the
    same model class is trained again (the revised model). The diff model ``variant``
    (``imd`` or ``separate``) compares the two; the diff rule most similar to ``r``
    (semantic and statistical similarity of "What changed?") counts as a recovery when its
    similarity is at least ``threshold`` (0.3). Binary tasks only.

Features are ``ctx.X`` (``Dataset.numeric()``): categorical columns enter as integer codes
for the black boxes and the diff models alike, where the paper one-hot encodes them; the
configs drop duplicate rows as the paper does (``drop_duplicates: true``).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

__all__ = ["run", "make_variant"]

VARIANTS = ("imd", "separate", "direct_dt", "direct_gb", "brcg_diff")
MAX_ARTIFACT_RULES = 300  # larger rule sets (separate surrogates at depth 10) are not written out


def make_variant(variant: str, params: dict, seed: int):
    """The diff model of one run."""
    from interpretopt.methods.imd import BRCGDiff, DirectDT, DirectGB, IMDExplainer, SeparateSurrogates

    max_depth = int(params.get("max_depth", 6))
    criterion = params.get("criterion", "entropy")
    if variant == "imd":
        alpha = params.get("alpha")
        return IMDExplainer(max_depth=max_depth, criterion=criterion,
                            divergence="simplified" if alpha is None else "general",
                            alpha=None if alpha is None else float(alpha), refine=int(params.get("refine", 0)))
    if variant == "separate":
        return SeparateSurrogates(max_depth=max_depth, criterion=criterion)
    if variant == "direct_dt":
        return DirectDT(max_depth=max_depth, random_state=seed % (2**31))
    if variant == "direct_gb":
        return DirectGB(max_depth=max_depth, random_state=seed % (2**31))
    if variant == "brcg_diff":
        brcg = dict(params.get("brcg") or {})
        brcg.setdefault("random_state", seed % (2**31))
        return BRCGDiff(brcg_params=brcg, grounded=bool(params.get("grounded", True)))
    raise ValueError(f"unknown IMD variant {variant!r}; valid: {', '.join(VARIANTS)}")


def _black_boxes(ctx):
    if len(ctx.models) != 2:
        raise ValueError(f"the imd task needs a model pair (config 'pairs'), got models {list(ctx.models)}")
    train, _ = ctx.split(test_size=0.3, key="pair_selection", rep=0)
    return ctx.black_box(ctx.models[0], train), ctx.black_box(ctx.models[1], train)


def run(ctx) -> dict:
    mode = ctx.params.get("experiment", "diff")
    if mode == "diff":
        return _run_diff(ctx)
    if mode == "perturbation":
        return _run_perturbation(ctx)
    raise ValueError(f"params.experiment must be 'diff' or 'perturbation', got {mode!r}")


def _fit_and_score(est, X_tr, y1_tr, y2_tr, X_te, y1_te, y2_te) -> dict:
    t0 = time.perf_counter()
    est.fit(X_tr, y1_tr, y2_tr)
    fit_seconds = time.perf_counter() - t0
    out: dict[str, Any] = dict(est.metrics(X_te, y1_te, y2_te))
    out["fit_seconds"] = fit_seconds
    out["train_diffs"] = float(np.mean(np.asarray(y1_tr) != np.asarray(y2_tr)))
    return out


def _run_diff(ctx) -> dict:
    variant = ctx.params.get("variant", "imd")
    m1, m2 = _black_boxes(ctx)
    X = ctx.X
    y1, y2 = np.asarray(m1.predict(X)), np.asarray(m2.predict(X))
    train, test = ctx.split(test_size=0.3, key="diff")
    if variant == "brcg_diff" and np.unique(np.concatenate([y1, y2, np.asarray(ctx.y)])).size > 2:
        return {"skipped": "BRCG Diff applies to binary tasks only"}
    est = make_variant(variant, ctx.params, ctx.seed)
    out = _fit_and_score(est, X[train], y1[train], y2[train], X[test], y1[test], y2[test])
    out["n_train"], out["n_test"] = int(train.size), int(test.size)
    names = [str(c) for c in ctx.dataset.X.columns]
    if hasattr(est, "render_rules"):
        if est.n_rules_ <= MAX_ARTIFACT_RULES:
            out["artifacts"] = {"diff_rules.txt": est.render_rules(names), "jst.dot": est.to_dot(names)}
    elif getattr(est, "diff_rules_", None) is not None and len(est.diff_rules_) <= MAX_ARTIFACT_RULES:
        out["artifacts"] = {"diff_rules.txt": est.diff_rules_.render(names)}
    return out


def random_rule(X: np.ndarray, rng: np.random.Generator, *, n_conditions: int = 2, min_support: float = 0.05,
                max_support: float = 0.3, tries: int = 200):
    """A random conjunction of ``n_conditions`` thresholds at quantiles, covering between
    ``min_support`` and ``max_support`` of the rows (the last try is kept otherwise)."""
    from interpretopt.rules import Condition, Conjunction

    d = X.shape[1]
    rule = Conjunction(())
    for _ in range(tries):
        feats = rng.choice(d, size=min(n_conditions, d), replace=False)
        conds = []
        for f in feats:
            col = X[:, f]
            if np.unique(col).size < 2:
                break
            q = float(np.quantile(col, rng.uniform(0.2, 0.8)))
            op = "<=" if rng.random() < 0.5 else ">"
            conds.append(Condition(int(f), op, q))
        else:
            rule = Conjunction(tuple(conds))
            support = float(rule.evaluate(X).mean())
            if min_support <= support <= max_support:
                return rule
    return rule


def _run_perturbation(ctx) -> dict:
    from interpretopt.evaluation.similarity import rule_similarity_matrix, statistical_similarity_matrix
    from interpretopt.rules import RuleSet

    X, y = ctx.X, np.asarray(ctx.y)
    classes = np.unique(y)
    if classes.size != 2:
        return {"skipped": "the perturbation experiment uses binary tasks only"}
    variant = ctx.params.get("variant", "imd")
    if variant not in ("imd", "separate"):
        raise ValueError(f"the perturbation experiment compares 'imd' and 'separate', got {variant!r}")
    name = ctx.params.get("perturb_model", "RF1")
    p = float(ctx.params.get("flip_prob", 1.0))
    threshold = float(ctx.params.get("threshold", 0.3))
    train, test = ctx.split(test_size=0.3, key="models", rep=0)
    # one rule per repetition, the same for every model class, probability and variant
    from interpretopt.experiments.runner import hash_seed

    rule_rng = np.random.default_rng(hash_seed("imd-perturbation-rule", ctx.dataset_label, ctx.rep))
    rule = random_rule(X[train], rule_rng)
    flip_rng = np.random.default_rng(hash_seed("imd-perturbation-flip", ctx.dataset_label, ctx.rep, p))
    covered = rule.evaluate(X[train])
    flip = covered & (flip_rng.random(train.size) < p)
    y_rev = y[train].copy()
    y_rev[flip] = np.where(y_rev[flip] == classes[0], classes[1], classes[0])
    original = ctx.black_box(name, train)
    revised = ctx.black_box(name, train, y=y_rev)
    y1, y2 = np.asarray(original.predict(X)), np.asarray(revised.predict(X))
    d_train, d_test = ctx.split(test_size=0.3, key="diff")
    est = make_variant(variant, ctx.params, ctx.seed)
    out = _fit_and_score(est, X[d_train], y1[d_train], y2[d_train], X[d_test], y1[d_test], y2[d_test])
    rules = list(est.diff_rules_)
    if rules:
        sem = float(rule_similarity_matrix(RuleSet((rule,)), RuleSet(tuple(rules))).max())
        stat = float(statistical_similarity_matrix(RuleSet((rule,)), RuleSet(tuple(rules)), X[d_train]).max())
    else:
        sem = stat = 0.0
    out.update(
        rule_support=float(covered.mean()), n_flipped=int(flip.sum()),
        max_semantic=sem, max_statistical=stat,
        recovered_semantic=float(sem >= threshold), recovered_statistical=float(stat >= threshold),
    )
    names = [str(c) for c in ctx.dataset.X.columns]
    out["artifacts"] = {"perturbation.txt": f"rule: {rule.render(names)}\n\n" + est.render_rules(names)}
    return out
