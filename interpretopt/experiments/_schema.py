"""Config specs declared once: each dataclass field is a YAML key, its type and its default.

A spec is a frozen dataclass. Every field made with :func:`key` is a key of the YAML mapping
the spec is read from; the field's annotation gives the type checked (``int``, ``float``,
``bool``, ``str``, ``tuple[str, ...]``, ``dict``, another spec, each optionally ``| None``),
the field's default is the value of an absent key (a field without a default is a required
key), and :func:`key`'s arguments add what a type alone cannot say: bounds (``low``, ``high``,
open or closed), the accepted values (``choices``), another YAML name (``yaml``) or a parser
of the key's own (``parse``). :func:`read_spec` reads a mapping against a spec, so the allowed
keys, types and defaults of a config section are never written a second time.

Problems are collected, with their key path (``tables[0].aggregate``), by a :class:`Checker`
that raises one :class:`~interpretopt.exceptions.ConfigError` listing them all; an unknown key
names the allowed ones and the closest of them (did-you-mean).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from interpretopt._validation import did_you_mean
from interpretopt.exceptions import ConfigError

__all__ = ["Checker", "MANUAL", "check_value", "join", "key", "read_spec", "spec_keys"]


def join(where: str, key: str) -> str:
    """The key path ``where.key`` (``key`` alone at the top level)."""
    return f"{where}.{key}" if where else key


class Checker:
    """Collects problems with their key path; :meth:`raise_if_any` raises one ConfigError at the end."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[str] = []

    def add(self, where: str, msg: str) -> None:
        self.problems.append(f"{where}: {msg}" if where else msg)

    def raise_if_any(self) -> None:
        if self.problems:
            raise ConfigError(self.path, self.problems)

    def keys(self, d: Any, where: str, allowed: set[str], required: tuple[str, ...] = ()) -> bool:
        """``d`` is a mapping whose keys are all in ``allowed`` and include ``required``."""
        if not isinstance(d, dict):
            self.add(where or "<top level>", f"expected a mapping, got {type(d).__name__} ({d!r})")
            return False
        for k in d:
            if k not in allowed:
                self.add(join(where, str(k)), f"unknown key; allowed keys: {', '.join(sorted(allowed))}"
                         f"{did_you_mean(str(k), sorted(allowed))}")
        for k in required:
            if k not in d:
                self.add(join(where, k), "required key is missing")
        return True

    def string(self, v: Any, where: str, default: str = "") -> str:
        if not isinstance(v, str) or not v:
            self.add(where, f"expected a non-empty string, got {type(v).__name__} ({v!r})")
            return default
        return v

    def integer(self, v: Any, where: str, low: int | None = None, default: int = 0, allow_none=False):
        if v is None and allow_none:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            self.add(where, f"expected an integer, got {type(v).__name__} ({v!r})")
            return default
        if low is not None and v < low:
            self.add(where, f"expected an integer >= {low}, got {v}")
            return default
        return v

    def number(self, v: Any, where: str, low=None, high=None, low_open=False, high_open=False, default=0.0,
               allow_none=False):
        if v is None and allow_none:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.add(where, f"expected a number, got {type(v).__name__} ({v!r})")
            return default
        bad = (low is not None and (v < low or (low_open and v == low))) or (
            high is not None and (v > high or (high_open and v == high))
        )
        if bad:
            lo = "(" if low_open else "["
            hi = ")" if high_open else "]"
            self.add(where, f"expected a number in {lo}{low}, {high}{hi}, got {v}")
            return default
        return float(v)

    def boolean(self, v: Any, where: str, default=False) -> bool:
        if not isinstance(v, bool):
            self.add(where, f"expected true or false, got {type(v).__name__} ({v!r})")
            return default
        return v

    def str_list(self, v: Any, where: str, allow_scalar=True) -> tuple[str, ...]:
        if isinstance(v, str) and allow_scalar:
            return (v,)
        if not isinstance(v, list):
            self.add(where, f"expected a list of strings, got {type(v).__name__} ({v!r})")
            return ()
        out = []
        for i, x in enumerate(v):
            if not isinstance(x, str) or not x:
                self.add(f"{where}[{i}]", f"expected a non-empty string, got {type(x).__name__} ({x!r})")
            else:
                out.append(x)
        return tuple(out)

    def text(self, v: Any, where: str, default: str = "") -> str:
        """Free text: a string, or null for the empty text."""
        if v is None:
            return ""
        if not isinstance(v, str):
            self.add(where, f"expected a string, got {type(v).__name__}")
            return default
        return v


Parser = Callable[[Checker, Any, str, Any], Any]
MANUAL = "manual"  # parse= of a key that the caller of read_spec reads itself

_NO_META = {"low": None, "high": None, "low_open": False, "high_open": False, "choices": None, "what": "value",
            "valid": "valid", "scalar": True, "null": None}


def key(default: Any = dataclasses.MISSING, *, default_factory: Any = dataclasses.MISSING, low=None, high=None,
        low_open: bool = False, high_open: bool = False, choices: tuple | None = None, what: str = "value",
        valid: str = "valid", scalar: bool = True, null: bool | None = None, required: bool | None = None,
        yaml: str | None = None, parse: Parser | str | None = None):
    """A spec field that is a YAML key.

    Parameters
    ----------
    default, default_factory
        As :func:`dataclasses.field`; a field with neither is a required key.
    low, high, low_open, high_open
        Bounds of a number (``low`` alone for an integer).
    choices, what, valid
        The accepted values of a string (or of each string of a list); an other value is
        ``unknown <what> <value>; <valid>: <choices>``.
    scalar
        A ``tuple[str, ...]`` key also accepts one string (default); ``False``: a list only.
    null
        Whether YAML ``null`` is accepted (and means the default); default: where the
        annotation is ``... | None``.
    required
        Whether the key must be given; default: where the field has no default.
    yaml
        The key's name in YAML where it differs from the field's name.
    parse
        ``parse(checker, value, where, default) -> value``: the key's own parser, for what its
        annotation cannot say; ``MANUAL``: the key is allowed and the caller reads it.
    """
    meta = {"key": True, "low": low, "high": high, "low_open": low_open, "high_open": high_open,
            "choices": choices, "what": what, "valid": valid, "scalar": scalar, "null": null,
            "required": required, "yaml": yaml, "parse": parse}
    return dataclasses.field(default=default, default_factory=default_factory, metadata=meta)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _fields(cls: type) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(cls) if f.metadata.get("key")]


def _yaml_name(f: dataclasses.Field) -> str:
    return f.metadata["yaml"] or f.name


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


def _required(f: dataclasses.Field) -> bool:
    if f.metadata.get("required") is not None:
        return f.metadata["required"]
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


def spec_keys(cls: type) -> set[str]:
    """The YAML keys of spec ``cls``."""
    return {_yaml_name(f) for f in _fields(cls)}


def _split_optional(hint: Any) -> tuple[Any, bool]:
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return hint, False


def _choose(c: Checker, v: str, where: str, meta: Mapping[str, Any]) -> bool:
    if meta["choices"] is not None and v not in meta["choices"]:
        c.add(where, f"unknown {meta['what']} {v!r}; {meta['valid']}: {', '.join(meta['choices'])}")
        return False
    return True


def check_value(c: Checker, hint: Any, v: Any, where: str, default: Any, meta: Mapping[str, Any] | None = None) -> Any:
    """``v`` checked against the annotation ``hint`` and the constraints ``meta`` of :func:`key`
    (none by default); an annotation without a check here raises ``TypeError``."""
    meta = _NO_META if meta is None else meta
    hint, optional = _split_optional(hint)
    null = optional if meta["null"] is None else meta["null"]
    if hint is bool:
        return c.boolean(v, where, default)
    if hint is int:
        return c.integer(v, where, low=meta["low"], default=default, allow_none=null)
    if hint is float:
        return c.number(v, where, meta["low"], meta["high"], meta["low_open"], meta["high_open"], default=default,
                        allow_none=null)
    if null and v is None:
        return default
    if hint is str:
        v = c.string(v, where, default)
        return v if _choose(c, v, where, meta) else default
    if typing.get_origin(hint) is tuple:
        out = c.str_list(v, where, meta["scalar"])
        return tuple(x for x in out if _choose(c, x, where, meta))
    if dataclasses.is_dataclass(hint):
        kw = read_spec(c, hint, v, where)
        return hint(**kw) if kw is not None else default
    raise TypeError(f"no check for annotation {hint!r} at {where}; give the key a parse= function")


def read_spec(c: Checker, cls: type, raw: Any, where: str, *, extra: set[str] = frozenset()) -> dict | None:
    """The keyword arguments of spec ``cls`` read from the mapping ``raw`` (absent keys left to
    the defaults), or ``None`` where ``raw`` is not a mapping. ``extra``: further keys allowed,
    which the caller reads itself."""
    fields = _fields(cls)
    required = tuple(_yaml_name(f) for f in fields if _required(f))
    if not c.keys(raw, where, spec_keys(cls) | set(extra), required=required):
        return None
    hints = _hints(cls)
    kw: dict[str, Any] = {}
    for f in fields:
        name = _yaml_name(f)
        if name not in raw:
            continue
        w = join(where, name)
        if f.metadata["parse"] == MANUAL:
            continue
        if f.metadata["parse"] is not None:
            kw[f.name] = f.metadata["parse"](c, raw[name], w, _default(f))
        else:
            kw[f.name] = check_value(c, hints[f.name], raw[name], w, _default(f), f.metadata)
    return kw
