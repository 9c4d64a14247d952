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


def _sklearn_invalid_parameter_error():
    from sklearn.utils._param_validation import InvalidParameterError

    return InvalidParameterError


def _sklearn_not_fitted_error():
    from sklearn.exceptions import NotFittedError as _SkNotFitted

    return _SkNotFitted


class ParameterError(InputError, _sklearn_invalid_parameter_error()):
    """An estimator or config parameter outside its schema (also scikit-learn's ``InvalidParameterError``)."""


class NotFittedError(InterpretoptError, _sklearn_not_fitted_error()):
    """A fitted attribute or method used before ``fit`` (also scikit-learn's ``NotFittedError``)."""
