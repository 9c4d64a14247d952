"""Task registry: the method name of a config -> a ``run(ctx: RunContext) -> dict`` callable.

* ``brcg``, ``imd``, ``crl``, ``abbr``, ``mtrepan``: module ``interpretopt.experiments.tasks.<name>``
  defining ``run(ctx)``, imported only when a run needs it.
* built-in tasks for tests and smoke runs: ``noop``, ``sleep`` (``seconds``), ``cpu``
  (``work``: busy loop), ``fail`` (raises), ``dummy_tree`` (decision-tree surrogate of a black
  box, reports fidelity); see :mod:`interpretopt.experiments.tasks._builtin`.
* ``package.module:function`` names any importable callable.

A task returns a flat dict: metric name -> number or string. The keys ``solver``, ``status``,
``objective``, ``bound`` and ``gap`` become their own result columns; ``artifacts`` (dict
name -> text) is written to ``<out>/artifacts/<run key>/<name>``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from interpretopt.exceptions import UnknownNameError

__all__ = ["METHOD_TASKS", "BUILTIN_TASKS", "task_names", "get_task", "is_task_name"]

def _method_keys() -> tuple[str, ...]:
    from interpretopt.methods import METHODS

    return tuple(sorted(m.key for m in METHODS))


#: One task per registered method (``interpretopt.methods.METHODS``), module ``tasks.<key>``.
METHOD_TASKS = _method_keys()
BUILTIN_TASKS = ("cpu", "dummy_tree", "fail", "noop", "sleep")


def task_names() -> list[str]:
    """Every registered task name (method tasks and built-in tasks)."""
    return sorted(METHOD_TASKS + BUILTIN_TASKS)


def is_task_name(name: str) -> bool:
    """True for a registered name or a ``module:function`` reference."""
    return name in METHOD_TASKS or name in BUILTIN_TASKS or (":" in name and not name.startswith(":"))


def get_task(name: str) -> Callable:
    """Return the ``run(ctx)`` callable of a task, importing its module on first use.

    Raises
    ------
    UnknownNameError
        The name is not a task.
    ImportError
        The task's module is missing or does not define ``run``; the message says which.
    """
    if name in BUILTIN_TASKS:
        from interpretopt.experiments.tasks import _builtin

        return getattr(_builtin, f"run_{name}")
    if name in METHOD_TASKS:
        modname = f"interpretopt.experiments.tasks.{name}"
        try:
            mod = importlib.import_module(modname)
        except ModuleNotFoundError as e:
            if e.name == modname:
                raise ImportError(
                    f"task {name!r} needs module {modname} (interpretopt/experiments/tasks/{name}.py), "
                    "which is not installed in this version of interpretopt"
                ) from None
            raise
        run = getattr(mod, "run", None)
        if not callable(run):
            raise ImportError(f"task module {modname} does not define a function run(ctx)")
        return run
    if ":" in name:
        modname, _, attr = name.partition(":")
        mod = importlib.import_module(modname)
        fn = getattr(mod, attr, None)
        if not callable(fn):
            raise ImportError(f"{modname} has no callable {attr!r}")
        return fn
    raise UnknownNameError("method", name, task_names())
