"""Agreement of a global translation with its target model (MTRE-PAN paper, Section 4).

Almerri et al., "Global translation of classification models":

* **model parity** (eq. 8): ``(TP + TN) / (TP + TN + FP + FN) * 100``, the percentage of
  validation samples on which the interpretable model and the target agree.
* **certain model parity** (eq. 9): ``(TP + TN) / (TP + TN + FP + FN + uncertain) * 100``;
  a sample in an uncertain leaf counts as a miss whatever the leaf's label.
* **boundary model parity**: certain model parity restricted to the validation samples
  within ``margin`` of the target's decision boundary.
* **leaf count**.

Which samples are "within the margin" (:func:`boundary_mask`):

``"logit"``
    ``|z(x)| <= margin`` where ``z`` is the input of the target's output unit (its
    ``decision_function``: the pre-sigmoid output of a network). This is the paper's
    Table 1 wording ("based on the input of the last layer"), used for networks.
``"probability"``
    ``|P(y = 1 | x) - 0.5| <= margin`` for models without layers (any ``predict_proba``).
    (The authors' release filters the network's sigmoid output this way.)
``"score"``
    ``|s(x)| <= margin`` for targets with an explicit signed distance ``boundary_score``
    (the circle: ``radius - ||x||``).
``"auto"`` (default)
    ``"score"`` when the target has ``boundary_score``; ``"logit"`` for a network (a
    model with ``last_hidden`` or a scikit-learn ``MLPClassifier`` inside) that has a
    ``decision_function``; else ``"probability"`` when it has ``predict_proba``; else
    ``"logit"`` on ``decision_function``.

All parities are percentages; an empty sample set gives ``nan``.

What the authors' release computed as "boundary model parity" (:func:`release_boundary_mask`)
is a different set, and it is the one behind the paper's printed boundary numbers. Its
network oracle keeps a point when ``0.5 - margin > p > margin + 0.5`` (``Ann_Oracle.cpp``,
``MarginFilter``), which C++ reads as ``((0.5 - margin) > p) > (margin + 0.5)``: the
comparison's 0 or 1 against 0.55, true exactly when ``p < 0.5 - margin``, i.e. the points
the network calls negative with some confidence. Its circle oracle keeps the points inside
the circle (``Circle_Oracle.cpp``). :func:`parity_report` reports it beside the paper's
definition, clearly labelled, when asked (``release_boundary=True``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from interpretopt.exceptions import InputError

__all__ = ["model_parity", "certain_model_parity", "boundary_mask", "boundary_kind", "boundary_model_parity",
           "release_boundary_mask", "parity_report"]


def _arrays(pred: Any, target: Any) -> tuple[np.ndarray, np.ndarray]:
    pred = np.asarray(pred).ravel()
    target = np.asarray(target).ravel()
    if pred.shape != target.shape:
        raise InputError(f"predictions ({pred.shape[0]}) and target labels ({target.shape[0]}) differ in length")
    return pred, target


def model_parity(pred: Any, target: Any) -> float:
    """Eq. 8: percentage of samples where the translation's label equals the target's."""
    pred, target = _arrays(pred, target)
    if pred.size == 0:
        return float("nan")
    return float(np.mean(pred == target) * 100.0)


def certain_model_parity(pred: Any, uncertain: Any, target: Any) -> float:
    """Eq. 9: like model parity, with every sample in an uncertain leaf counted as a miss."""
    pred, target = _arrays(pred, target)
    unc = np.asarray(uncertain, dtype=bool).ravel()
    if unc.shape != pred.shape:
        raise InputError(f"uncertain mask has {unc.shape[0]} entries, predictions {pred.shape[0]}")
    if pred.size == 0:
        return float("nan")
    return float(np.mean((pred == target) & ~unc) * 100.0)


def _is_network(model: Any) -> bool:
    if hasattr(model, "last_hidden"):
        return True
    try:
        from sklearn.neural_network import MLPClassifier
    except Exception:  # pragma: no cover
        return False
    inner = [model] + [getattr(model, a, None) for a in ("mlp_", "estimator_", "_final_estimator")]
    return any(isinstance(m, MLPClassifier) for m in inner if m is not None)


def boundary_kind(model: Any, kind: str = "auto") -> str:
    """The boundary definition used for ``model`` (see the module docstring)."""
    if kind not in ("auto", "logit", "probability", "score"):
        raise InputError(f"boundary kind must be 'auto', 'logit', 'probability' or 'score', got {kind!r}")
    if kind != "auto":
        return kind
    if hasattr(model, "boundary_score"):
        return "score"
    if _is_network(model) and hasattr(model, "decision_function"):
        return "logit"
    if hasattr(model, "predict_proba"):
        return "probability"
    if hasattr(model, "decision_function"):
        return "logit"
    raise InputError(f"cannot locate the decision boundary of {type(model).__name__}: it has no boundary_score, "
                     "decision_function or predict_proba")


def boundary_mask(model: Any, X: Any, margin: float = 0.05, kind: str = "auto") -> np.ndarray:
    """Boolean (n,): samples within ``margin`` of the target's decision boundary."""
    if not (np.isfinite(margin) and margin > 0):
        raise InputError(f"margin must be a positive number, got {margin!r}")
    k = boundary_kind(model, kind)
    if k == "score":
        s = np.asarray(model.boundary_score(X), dtype=float).ravel()
        return np.abs(s) <= margin
    if k == "logit":
        z = np.asarray(model.decision_function(X), dtype=float)
        if z.ndim == 2:
            if z.shape[1] != 1:
                raise InputError(f"the target is not binary: decision_function has {z.shape[1]} columns")
            z = z[:, 0]
        return np.abs(z) <= margin
    P = np.asarray(model.predict_proba(X), dtype=float)
    if P.ndim != 2 or P.shape[1] != 2:
        raise InputError(f"the target is not binary: predict_proba has shape {P.shape}")
    return np.abs(P[:, 1] - 0.5) <= margin


def release_boundary_mask(model: Any, X: Any, margin: float = 0.05) -> np.ndarray:
    """Boolean (n,): the points the authors' release used for its "boundary model parity".

    For a target with ``boundary_score`` (the circle): the points with score >= 0 (inside the
    circle; release ``Circle_Oracle::MarginFilter``). Otherwise: the points with
    ``P(y = 1 | x) < 0.5 - margin`` (release ``Ann_Oracle::MarginFilter``, whose chained
    comparison ``0.5 - margin > p > margin + 0.5`` reduces to this). Not the paper's
    definition (:func:`boundary_mask`); reported beside it so that the paper's printed
    numbers can be read for what they are.
    """
    if not (np.isfinite(margin) and margin > 0):
        raise InputError(f"margin must be a positive number, got {margin!r}")
    if hasattr(model, "boundary_score"):
        return np.asarray(model.boundary_score(X), dtype=float).ravel() >= 0
    if not hasattr(model, "predict_proba"):
        raise InputError(f"the release's boundary set needs predict_proba or boundary_score; "
                         f"{type(model).__name__} has neither")
    P = np.asarray(model.predict_proba(X), dtype=float)
    if P.ndim != 2 or P.shape[1] != 2:
        raise InputError(f"the target is not binary: predict_proba has shape {P.shape}")
    return P[:, 1] < 0.5 - margin


def boundary_model_parity(pred: Any, uncertain: Any, target: Any, near_boundary: Any) -> float:
    """Certain model parity over the samples flagged ``near_boundary``."""
    pred, target = _arrays(pred, target)
    near = np.asarray(near_boundary, dtype=bool).ravel()
    unc = np.asarray(uncertain, dtype=bool).ravel()
    if near.shape != pred.shape:
        raise InputError(f"boundary mask has {near.shape[0]} entries, predictions {pred.shape[0]}")
    return certain_model_parity(pred[near], unc[near], target[near])


def parity_report(translator: Any, model: Any, X: Any, *, depth: int | None = None, margin: float = 0.05,
                  boundary: str = "auto", target: Any = None, release_boundary: bool = False) -> dict:
    """The four metrics of one translation at one depth on validation rows ``X``.

    Parameters
    ----------
    translator : fitted MTREPANClassifier or TREPANClassifier
        Anything with ``predict(X, depth=)``, ``predict_uncertain(X, depth=)`` and
        ``leaf_count(depth=)``.
    model : the target (black box)
    X : array-like (n, d)
    depth : int or None
        Evaluate the tree truncated at this depth (root = 1); ``None``: the full tree.
    margin : float, default 0.05
    boundary : str, default "auto"
        See :func:`boundary_mask`.
    target : array-like, optional
        The target's labels of ``X`` (computed with ``model.predict`` when absent). For a
        target that is a plain function (no ``boundary_score``, ``decision_function`` or
        ``predict_proba``) boundary model parity is ``nan`` and ``boundary_kind`` is ``"none"``.
    release_boundary : bool, default False
        Also report ``boundary_model_parity_release`` and ``n_boundary_release``: certain
        model parity on :func:`release_boundary_mask` (what the authors' release printed).

    Returns
    -------
    dict
        ``model_parity``, ``certain_model_parity``, ``boundary_model_parity``,
        ``leaf_count``, ``n_validation``, ``n_boundary``, ``uncertain_fraction``,
        ``boundary_kind`` (and the two ``_release`` entries when asked).
    """
    X = np.asarray(X, dtype=float)
    if target is not None:
        tgt = np.asarray(target).ravel()
    elif hasattr(model, "predict"):
        tgt = np.asarray(model.predict(X)).ravel()
    else:
        raise InputError(f"give the target's labels (target=) for a model without predict(): {type(model).__name__}")
    pred = np.asarray(translator.predict(X, depth=depth)).ravel()
    unc = np.asarray(translator.predict_uncertain(X, depth=depth), dtype=bool)
    if boundary == "auto" and not any(hasattr(model, a) for a in ("boundary_score", "decision_function",
                                                                   "predict_proba")):
        kind, near = "none", None  # a plain function: no way to measure the distance to its boundary
    else:
        kind, near = boundary_kind(model, boundary), boundary_mask(model, X, margin, boundary)
    out = {
        "model_parity": model_parity(pred, tgt),
        "certain_model_parity": certain_model_parity(pred, unc, tgt),
        "boundary_model_parity": float("nan") if near is None else boundary_model_parity(pred, unc, tgt, near),
        "leaf_count": int(translator.leaf_count(depth=depth)),
        "n_validation": int(X.shape[0]),
        "n_boundary": 0 if near is None else int(near.sum()),
        "uncertain_fraction": float(unc.mean()) if unc.size else float("nan"),
        "boundary_kind": kind,
    }
    if release_boundary:
        rel = release_boundary_mask(model, X, margin)
        out["boundary_model_parity_release"] = boundary_model_parity(pred, unc, tgt, rel)
        out["n_boundary_release"] = int(rel.sum())
    return out
