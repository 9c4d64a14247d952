"""Is CRL's search beaten in-sample by the baselines it is compared with? (not a speed benchmark)

Table 2 of the CRL paper (configs/crl/table2.yaml) pairs CORELS and SBRL lists, learnt without
the black box, with it and compares test AUTAC. Where a baseline's list scores better than CRL's
on the test fold, this script asks whether CRL's search could have found a list at least as good
on the rows it searches: the baseline's list is scored on the training fold against the same
out-of-fold black-box answers CRL's objective uses (train AUTAC), beside CRL's own, and CRL is
run again with 4x the annealing steps and with another seed (search budget and restarts).

* baseline train AUTAC > CRL's: CRL's search (or its pool) misses lists that score better on the
  very objective it maximizes;
* baseline train AUTAC <= CRL's while its test AUTAC is higher: the method (its objective,
  alpha's selection or the baselines' tuning on the test fold), not the search.

Each fold follows the crl task's protocol (interpretopt.experiments.tasks.crl): 5 stratified
folds, CRL_RF fitted on the training fold, CRL's objective on out-of-fold answers of
``oof_folds`` black boxes (two: halves of the training fold), baselines mined on the training
fold and tuned on the test fold (``--tuning validation``: on 25% of the training fold). The
settings are read from configs/crl/table2.yaml; folds and seeds are this script's own (the same
protocol, not the record's exact runs).

Usage::

    INTERPRETOPT_DATA=/path/to/datasets python benchmarks/crl_insample.py --datasets german coupon \\
        [--folds 0 1 2 3 4] [--learners sbrl corels] [--tuning test]
"""

from __future__ import annotations

import argparse
import time
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np

#: the config whose protocol this script follows (its CRL, baseline and dataset settings are read from it)
CONFIG = Path(__file__).resolve().parents[1] / "configs" / "crl" / "table2.yaml"


def _one_value(v):
    """A grid of one list-valued setting (``[[a, b]]`` in the YAML) is that list."""
    return v[0] if isinstance(v, list) and len(v) == 1 and isinstance(v[0], list) else v


def _config_settings(path=CONFIG):
    """``(CRL's estimator parameters, its out-of-fold black boxes, {baseline: its task parameters},
    {dataset: loader options})`` of ``path``, as the crl task passes them on."""
    import yaml

    from interpretopt.experiments.tasks import estimator_params
    from interpretopt.experiments.tasks.crl import SET_BY_TASK
    from interpretopt.methods.crl import CompanionRuleList

    raw = yaml.safe_load(Path(path).read_text())
    by_learner = {m["params"]["learner"]: {k: _one_value(v) for k, v in m["params"].items()}
                  for m in raw["methods"] if isinstance(m["params"]["learner"], str)}
    crl = by_learner.pop("crl")
    options = {d["name"]: d.get("options", {}) for d in raw["datasets"] if isinstance(d, dict)}
    return (estimator_params(crl, CompanionRuleList, exclude=SET_BY_TASK), int(crl["oof_folds"]), by_learner,
            options)


CRL_PARAMS, OOF_FOLDS, BASELINE_PARAMS, DATASET_OPTIONS = _config_settings()


@lru_cache(maxsize=None)
def _data(name, data_dir):
    """The dataset and its 0/1 labels, loaded once per process."""
    from interpretopt.data import load_dataset

    ds = load_dataset(name, data_dir=data_dir, **DATASET_OPTIONS.get(name, {}))
    y = np.asarray(ds.y)
    return ds, (y == np.unique(y)[-1]).astype(np.int64)


def _oof(X, y, seed):
    """Out-of-fold CRL_RF answers on ``X``: ``OOF_FOLDS`` black boxes, each fitted on the other stratified folds."""
    from interpretopt.blackbox import make_model
    from interpretopt.data import kfold_indices

    pred = np.empty(len(y), dtype=y.dtype)
    for k, (tr, te) in enumerate(kfold_indices(len(y), OOF_FOLDS, random_state=seed, stratify=y)):
        pred[te] = make_model("CRL_RF", seed + 1 + k).fit(X[tr], y[tr]).predict(X[te])
    return pred


def _crl(Xtr, ytr, bb, bb_train, ftypes, seed, n_iter):
    from interpretopt.methods.crl import CompanionRuleList

    est = CompanionRuleList(**{**CRL_PARAMS, "n_iter": n_iter}, black_box=bb, refit=False, feature_types=ftypes,
                            random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(Xtr, ytr, blackbox_pred=bb_train)
    return est


def _baseline(learner, Xtr, Xte, ytr, yte, X_num, bb, ftypes, seed, tuning):
    """The task's Algorithm 3 / 4 (``_fit_baseline``) on this fold; ``X_num``: the numeric rows, training
    fold first (what the task's context holds as ``ctx.X``)."""
    from types import SimpleNamespace

    from interpretopt.experiments.tasks import crl as T

    p = T.task_params({**BASELINE_PARAMS[learner], "baseline_tuning": tuning}, T.PARAMETERS)
    p["max_conditions"] = CRL_PARAMS["max_conditions"]
    mining = dict(min_support=float(p[f"{learner}_min_support"]), feature_types=ftypes)
    train, test = np.arange(len(ytr)), np.arange(len(ytr), len(ytr) + len(yte))
    return T._fit_baseline(SimpleNamespace(X=X_num), learner, p, bb, train, test, Xtr, Xte, ytr, yte, seed, mining, {})


def fold_rows(name, fold, learners, tuning, data_dir):
    """One fold: CRL (50k steps, 200k steps, another seed) and each baseline, train and test AUTAC."""
    from interpretopt.data import kfold_indices

    ds, y = _data(name, data_dir)
    X = np.asarray(ds.numeric(), dtype=float)
    ftypes = getattr(ds, "feature_types", None)
    train, test = (np.sort(i) for i in kfold_indices(len(y), 5, random_state=0, stratify=y)[fold])
    Xtr, Xte = ds.X.iloc[train].reset_index(drop=True), ds.X.iloc[test].reset_index(drop=True)
    ytr, yte = y[train], y[test]
    from interpretopt.blackbox import make_model

    bb = make_model("CRL_RF", 0).fit(X[train], ytr)
    bb_train, bb_test = _oof(X[train], ytr, 100 * fold), bb.predict(X[test])
    rows = []

    def row(label, est, cpu):
        tr = est.transparency_accuracy_curve(Xtr, ytr, blackbox_pred=bb_train)
        te = est.transparency_accuracy_curve(Xte, yte, blackbox_pred=bb_test)
        rows.append(dict(dataset=name, fold=fold, learner=label, train_autac=float(tr.autac),
                         test_autac=float(te.autac), n_conditions=int(est.n_conditions_), cpu=cpu))

    for label, seed, n_iter in (("crl", 1, 50_000), ("crl_4x_steps", 1, 200_000), ("crl_other_seed", 2, 50_000)):
        t = time.process_time()
        row(label, _crl(Xtr, ytr, bb, bb_train, ftypes, seed, n_iter), time.process_time() - t)
    for learner in learners:
        t = time.process_time()
        row(f"{learner}_{tuning}_tuned", _baseline(learner, Xtr, Xte, ytr, yte, np.vstack([X[train], X[test]]), bb,
                                                   ftypes, 3, tuning),
            time.process_time() - t)
    return rows


def main(argv=None) -> None:
    import os

    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["german", "coupon"])
    ap.add_argument("--folds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--learners", nargs="+", default=["sbrl", "corels"], choices=sorted(BASELINE_PARAMS))
    ap.add_argument("--tuning", default="test", choices=["test", "validation"])
    ap.add_argument("--data-dir", default=os.environ.get("INTERPRETOPT_DATA"))
    ap.add_argument("--out", default=None, help="CSV of the per-fold rows")
    args = ap.parse_args(argv)
    rows = [r for name in args.datasets for f in args.folds
            for r in fold_rows(name, f, args.learners, args.tuning, args.data_dir)]
    df = pd.DataFrame(rows)
    if args.out:
        df.to_csv(args.out, index=False)
    print(df.groupby(["dataset", "learner"], sort=False)[["train_autac", "test_autac", "n_conditions", "cpu"]]
          .mean().round(4).to_string())


if __name__ == "__main__":
    main()
