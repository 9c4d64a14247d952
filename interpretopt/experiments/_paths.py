"""Paths named by a config or on the command line stay inside their root.

A config names files (table and plot names, a solver preset, dataset labels that name cache
files); the output directory, the configs directory and the data directory are the roots they
must stay in. :func:`inside` joins a name to its root and refuses, with the offending value,
any name that would leave it (``..``, an absolute path, a symbolic link pointing out), so that a
config shared by someone else cannot write or read files elsewhere.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from interpretopt.exceptions import InputError

__all__ = ["PathEscapeError", "inside", "check_name", "NAME_RULE"]

NAME_RULE = "a plain file name: letters, digits, '_', '-', '.', '=', '+', not starting with '.'"
_NAME = re.compile(r"^[A-Za-z0-9_=+-][A-Za-z0-9_.=+-]*$")


class PathEscapeError(InputError):
    """A name given by a config or on the command line would resolve outside its root."""


def check_name(value: object, what: str) -> str:
    """``value`` when it is a plain file name (no separator, not ``.``/``..``, not hidden), else raise.

    >>> check_name("table1", "table name")
    'table1'
    """
    text = str(value)
    if not _NAME.match(text):
        raise PathEscapeError(f"{what} {value!r} is not {NAME_RULE}")
    return text


def inside(root: str | os.PathLike, *parts: str | os.PathLike, what: str = "path") -> Path:
    """``root / parts...`` resolved, or :class:`PathEscapeError` naming ``parts`` when it leaves ``root``.

    Symbolic links are followed (a link inside the output directory pointing elsewhere is refused
    too). The root itself need not exist yet.

    >>> inside("/tmp/out", "tables", "t1.md").as_posix()
    '/tmp/out/tables/t1.md'
    """
    base = Path(root).resolve()
    target = base.joinpath(*(os.fspath(p) for p in parts)).resolve()
    if target != base and base not in target.parents:
        shown = os.path.join(*(os.fspath(p) for p in parts)) if parts else ""
        raise PathEscapeError(f"{what} {shown!r} resolves to {target}, outside {base}; name a file inside it")
    return target
