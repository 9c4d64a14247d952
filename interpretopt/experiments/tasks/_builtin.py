"""Built-in tasks used by tests, benchmarks and ``configs/smoke.yaml``.

* ``noop``: returns ``{"value": 0}``; measures runner overhead.
* ``sleep``: sleeps ``seconds`` (default 0.01).
* ``cpu``: a deterministic busy loop of ``work`` iterations (default 200000); CPU-bound.
* ``fail``: raises ``RuntimeError`` (``message``), or only when ``rep`` is in ``fail_reps``.
* ``worker``: the id of the process that ran it (``pid``) and of the one that computed the value
  its (dataset, models, repetition) shares through ``ctx.memo`` (``memo_pid``), and the joblib
  backend a nested ``Parallel`` call would use (``nested_backend``) and the most threads of any
  native thread pool it sees (``max_threads``); shows where and how the runner's work units ran.
* ``dummy_tree``: a ``DecisionTreeClassifier(max_depth)`` surrogate of the first black box of
  the run (or of the true labels when the run names no model); reports test fidelity,
  accuracy and the number of leaves.
"""

from __future__ import annotations

import os
import time

import numpy as np


def run_noop(ctx) -> dict:
    return {"value": 0}


def run_worker(ctx) -> dict:
    from joblib.parallel import get_active_backend

    from interpretopt._threads import thread_counts

    return {"pid": os.getpid(), "memo_pid": ctx.memo("worker/pid", os.getpid, rep=ctx.rep, models=list(ctx.models)),
            "nested_backend": type(get_active_backend()[0]).__name__,
            "max_threads": max(thread_counts().values(), default=1)}


def run_sleep(ctx) -> dict:
    seconds = float(ctx.params.get("seconds", 0.01))
    time.sleep(seconds)
    return {"slept": seconds}


def run_cpu(ctx) -> dict:
    work = int(ctx.params.get("work", 200_000))
    acc = 0
    for i in range(work):
        acc = (acc * 31 + i) % 1_000_003
    return {"checksum": acc, "work": work}


def run_fail(ctx) -> dict:
    reps = ctx.params.get("fail_reps")
    if reps is None or ctx.rep in (reps if isinstance(reps, (list, tuple)) else (reps,)):
        raise RuntimeError(str(ctx.params.get("message", "task failed on purpose")))
    return {"value": 1}


def run_dummy_tree(ctx) -> dict:
    from sklearn.tree import DecisionTreeClassifier

    max_depth = ctx.params.get("max_depth", 3)
    test_size = float(ctx.params.get("test_size", 0.3))
    train, test = ctx.split(test_size=test_size)
    X, y = ctx.X, ctx.y
    out: dict = {}
    if ctx.models:
        bb = ctx.black_box(ctx.models[0], train)
        target = np.asarray(bb.predict(X))
        out["blackbox_accuracy"] = float(np.mean(target[test] == y[test]))
        if len(ctx.models) > 1:
            bb2 = ctx.black_box(ctx.models[1], train)
            out["pair_agreement"] = float(np.mean(np.asarray(bb2.predict(X))[test] == target[test]))
    else:
        target = y
    tree = DecisionTreeClassifier(max_depth=max_depth, random_state=ctx.seed % (2**32))
    tree.fit(X[train], target[train])
    pred = tree.predict(X[test])
    out.update(
        fidelity=float(np.mean(pred == target[test])),
        accuracy=float(np.mean(pred == y[test])),
        n_leaves=int(tree.get_n_leaves()),
        n_train=int(len(train)),
    )
    out["artifacts"] = {"tree.txt": _tree_text(tree)}
    return out


def _tree_text(tree) -> str:
    from sklearn.tree import export_text

    return export_text(tree)
