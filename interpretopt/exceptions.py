"""Exceptions a user may see. Every message says what was wrong and what is accepted."""

from __future__ import annotations


class InterpretoptError(Exception):
    """Base class of the errors raised on purpose by interpretopt."""


class InputError(InterpretoptError, ValueError):
    """Bad user input: wrong shape, NaN, non-numeric column, single class, value out of range."""


class UnknownNameError(InterpretoptError, KeyError):
    """A name (dataset, model, solver, method, preset) that no registry knows."""

    def __init__(self, kind: str, name: str, valid: list[str]) -> None:
        self.kind, self.name, self.valid = kind, name, list(valid)
        super().__init__(f"unknown {kind} {name!r}; valid names: {', '.join(valid) or '(none)'}")

    def __str__(self) -> str:  # KeyError would quote the message
        return self.args[0]


class DataError(InterpretoptError, OSError):
    """A dataset file that is missing, unreadable or does not parse."""


class SolverError(InterpretoptError, RuntimeError):
    """A solver that is unavailable, failed, or cannot do what was asked (e.g. no duals)."""


class ConfigError(InterpretoptError, ValueError):
    """An experiment config that does not validate; lists every problem at once."""

    def __init__(self, path: str, problems: list[str]) -> None:
        self.path, self.problems = path, list(problems)
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid config {path}: {len(problems)} problem(s)\n{lines}")


class InputTypeError(InputError, TypeError):
    """Bad user input of the wrong type (e.g. a dict inside a feature matrix)."""


def _make_parameter_error() -> type:
    from sklearn.utils._param_validation import InvalidParameterError

    class ParameterError(InputError, InvalidParameterError):
        """An estimator or config parameter outside its schema (also scikit-learn's ``InvalidParameterError``)."""

    return ParameterError


def _make_not_fitted_error() -> type:
    from sklearn.exceptions import NotFittedError as _SkNotFitted

    class NotFittedError(InterpretoptError, _SkNotFitted):
        """A fitted attribute or method used before ``fit`` (also scikit-learn's ``NotFittedError``)."""

    return NotFittedError


# ``ParameterError`` and ``NotFittedError`` subclass scikit-learn's exceptions (so its checks and
# user code catching them work); they are created on first access so that importing this
# module (and ``interpretopt``) does not import scikit-learn.
_LAZY = {"ParameterError": _make_parameter_error, "NotFittedError": _make_not_fitted_error}


def __getattr__(name: str):
    make = _LAZY.get(name)
    if make is None:
        raise AttributeError(f"module 'interpretopt.exceptions' has no attribute {name!r}")
    cls = make()
    cls.__module__ = __name__
    cls.__qualname__ = name
    globals()[name] = cls
    return cls
