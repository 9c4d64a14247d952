"""interpretopt: interpretable machine-learning methods written as optimization problems.

Every registered estimator (see :mod:`interpretopt.methods`) is importable from here, e.g.
``from interpretopt import BRCGClassifier``; estimators are imported on first access, so
``import interpretopt`` stays cheap.
"""

import importlib as _importlib

__version__ = "0.1.0"

_methods = _importlib.import_module("interpretopt.methods")

__all__ = ["__version__", *sorted(_methods._EXPORTS)]


def _refresh_exports() -> None:
    """``__all__`` after an estimator was registered (``interpretopt.methods.register_estimator``)."""
    global __all__
    __all__ = ["__version__", *sorted(_methods._EXPORTS)]


def __getattr__(name: str):
    if name in _methods._EXPORTS:
        return getattr(_methods, name)
    raise AttributeError(f"module 'interpretopt' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_methods._EXPORTS))
