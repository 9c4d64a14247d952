"""``interpretopt demo``: one RandomForest on breast cancer, explained by every method.

Trains a RandomForest on scikit-learn's breast-cancer data (70/30 split, seeded), then
learns interpretable objects of it with each method and prints them with their fidelity
on the held-out 30%:

1. BRCG: a DNF rule set surrogate by column generation (LP master, beam pricing, integer master);
2. CRL: a companion rule list, with its transparency-accuracy curve;
3. ABBR: a rule list explaining the forest's most confident positive predictions;
4. IMD: the joint surrogate tree of the forest and a logistic regression, with diff rules;
5. MTRE-PAN: a tree with linear-SVM splits translating a forest on the circle data (2-D, as
   the paper's Figure 3), where its polytope leaves can be read.

Everything runs on bundled data with small settings, in well under a minute.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

__all__ = ["run_demo"]


def _section(title: str, body: Callable[[], None], echo: Callable[[str], None]) -> None:
    echo("")
    echo(f"== {title} " + "=" * max(0, 70 - len(title)))
    t0 = time.perf_counter()
    body()
    echo(f"   ({time.perf_counter() - t0:.1f} s)")


def run_demo(*, random_state: int = 0, solver: str = "highs", echo: Callable[[str], None] = print) -> dict:
    """Run the demo and return the figures it printed (fidelities, sizes) as a dict."""
    from interpretopt.blackbox import make_model
    from interpretopt.data import load_dataset, train_test_indices

    out: dict = {}
    ds = load_dataset("breast_cancer")
    X, y = ds.X, ds.y
    tr, te = train_test_indices(ds.n_samples, test_size=0.3, random_state=random_state, stratify=y)
    Xtr, Xte = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
    forest = make_model("RF1", random_state=random_state).fit(Xtr.to_numpy(), y[tr])
    f_tr, f_te = forest.predict(Xtr.to_numpy()), forest.predict(Xte.to_numpy())
    out["forest_test_accuracy"] = float(np.mean(f_te == y[te]))
    echo(f"breast cancer: {ds.n_samples} samples, {ds.n_features} features "
         f"(1 = {ds.class_names[1] if ds.class_names else 'class 1'}); train {len(tr)}, test {len(te)}")
    echo(f"black box: RandomForest (RF1), test accuracy {out['forest_test_accuracy']:.3f}")

    def brcg() -> None:
        from interpretopt.methods.brcg import BRCGClassifier

        model = BRCGClassifier(solver=solver, random_state=random_state).fit(Xtr, f_tr)
        out["brcg_fidelity"] = float(np.mean(model.predict(Xte) == f_te))
        out["brcg_rules"] = len(model.rules_)
        echo(str(model))  # print(model) shows the rules it learned
        echo(f"test fidelity to the forest {out['brcg_fidelity']:.3f}; {len(model.rules_)} rules; "
             f"objective {model.objective_:.4f}, valid lower bound {model.lower_bound_:.4f} "
             f"(gap {model.gap_:.2%}, status {model.status_}; restricted LP {model.restricted_lp_:.4f}, "
             f"proven {model.proven_})")

    def crl() -> None:
        from interpretopt.methods.crl import CompanionRuleList

        model = CompanionRuleList(black_box=forest, alpha=1e-2, n_iter=5000, refit=False,
                                  random_state=random_state).fit(Xtr, y[tr])
        curve = model.transparency_accuracy_curve(Xte, y[te])
        out["crl_autac"] = float(curve.autac)
        echo(model.render(Xte, y[te]))
        echo(f"test AUTAC {curve.autac:.3f} (black box alone: accuracy {out['forest_test_accuracy']:.3f}); "
             f"full-list transparency {curve.transparency[-1]:.2f}, hybrid accuracy {curve.accuracy[-1]:.3f}")

    def abbr() -> None:
        from interpretopt.methods.abbr import RuleListSearch

        p_tr = forest.predict_proba(Xtr.to_numpy())[:, 1]
        p_te = forest.predict_proba(Xte.to_numpy())[:, 1]
        model = RuleListSearch(s=0.2, L=2, M=3, random_state=random_state).fit(Xtr, p_tr)
        ev = model.evaluate(Xte, p_te)
        out["abbr_test"] = float(ev["abbr_at_s"])
        echo(model.render())
        echo(f"ABBR at support 0.2: train {model.abbr_:.3f}, test {ev['abbr_at_s']:.3f} "
             f"(optimality ratio {ev['optimality_ratio']:.3f}; 1 = the rules pick exactly the forest's "
             "most confident class-1 points)")

    def imd() -> None:
        from interpretopt.methods.imd import IMDExplainer

        lr = make_model("LR", random_state=random_state).fit(Xtr.to_numpy(), y[tr])
        model = IMDExplainer(max_depth=4).fit(Xtr, forest.predict(Xtr.to_numpy()), lr.predict(Xtr.to_numpy()))
        m = model.metrics(Xte, forest.predict(Xte.to_numpy()), lr.predict(Xte.to_numpy()))
        out["imd_f1"] = float(m["f1"])
        echo(model.render_rules())
        echo(f"forest vs logistic regression: disagree on {np.mean(forest.predict(Xte.to_numpy()) != lr.predict(Xte.to_numpy())):.1%} "
             f"of test points; diff rules {model.n_rules_}, test precision {m['precision']:.2f}, "
             f"recall {m['recall']:.2f}, F1 {m['f1']:.2f}")

    def mtrepan() -> None:
        from interpretopt.methods.mtrepan import MTREPANClassifier

        # Trees of hyperplanes are easiest to read in two dimensions: the paper's circle (label 1
        # inside the unit circle), with a RandomForest as the black box to translate.
        circle = load_dataset("circle", n_samples=1000, random_state=random_state)
        ctr, cte = train_test_indices(circle.n_samples, test_size=0.3, random_state=random_state)
        Xc = circle.numeric()
        target = make_model("RF1", random_state=random_state).fit(Xc[ctr], circle.y[ctr])
        model = MTREPANClassifier(max_depth=4, solver=solver, random_state=random_state).fit(Xc[ctr], target)
        par = model.parity(target, Xc[cte])
        out["mtrepan_parity"] = float(par["model_parity"])
        leaves = model.leaves()
        echo(f"circle: RandomForest on {len(ctr)} points; MTRE-PAN depth 4 has {len(leaves)} leaves, e.g.")
        for leaf in leaves[:2]:
            echo(leaf.render(list(circle.feature_names)))
        echo(f"model parity on test {par['model_parity']:.1f}%, certain model parity "
             f"{par['certain_model_parity']:.1f}%")

    import warnings

    from sklearn.exceptions import ConvergenceWarning

    warnings.filterwarnings("ignore", category=ConvergenceWarning)  # the zoo's LR as the IMD paper trained it
    for title, body in [("BRCG: rule set surrogate by column generation", brcg),
                        ("CRL: companion rule list", crl),
                        ("ABBR: rules for the forest's confident predictions", abbr),
                        ("IMD: where the forest and a logistic regression differ", imd),
                        ("MTRE-PAN: tree with linear-SVM splits (circle data)", mtrepan)]:
        _section(title, body, echo)
    return out
