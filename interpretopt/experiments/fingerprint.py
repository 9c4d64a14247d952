"""Code fingerprints: which source a run's result depends on, and whether it has changed since.

A run's result is a function of its config and of the code its task executes. The code is
named by the task's *import closure* within the package: the task's module and the
experiment runner (seeds, splits, black boxes, the row), then every ``interpretopt`` module
that one of them imports, at any depth (imports inside functions included, since the
package imports its heavy parts lazily), found statically with :mod:`ast` -- nothing is
imported. A package's ``__init__`` belongs to the closure when a module imports the package
by name (``from interpretopt.methods import METHODS``), not merely because a submodule of it
is imported: a package initialiser that re-exports names does not shape a result. Modules
reached only through ``importlib.import_module(name)`` with a computed name (the task and
method registries) are not followed: each run names its own task module as a root.

The config contributes its *runs part*: the parsed YAML without ``tables``, ``plots`` and
``description`` (which shape the report, not the runs), so that editing a caption or a
published reference value does not make runs stale.

:func:`code_manifest` returns ``{file: hash}`` over the closure and the config;
:func:`manifest_fingerprint` hashes a manifest into the 16-hex-digit ``code_fingerprint``
stored in every run row. Manifests are kept per output directory in ``code.json``
(:func:`write_manifests`), so that a later reader can name the files that changed
(:func:`changed_files`). The modules that only describe rows (this one and
:mod:`interpretopt.experiments.record`) are never part of a closure.

A module's hash is taken over its *code*: its Python tokens without comments and docstrings
(``tok:`` and 12 hex digits of SHA-256, :func:`file_hash`), so that mending a docstring or a comment
does not make the runs of every table that imports the module stale, while any other edit,
a string's content or a blank line inside one included, does. Manifests written before this
(2026-12-05) hash the file's bytes (12 hex digits, no prefix); a stored manifest is always
compared with today's code hashed its way (:func:`manifest_scheme`, :func:`is_fresh`), so
those runs stay fresh exactly as long as their files' bytes are unchanged.

The runner takes the fingerprint once per invocation (:func:`record_code`) and stamps it on every
row it writes; the rows written while the code changed are unstamped afterwards by the command line
(:func:`interpretopt.experiments.record.distrust_runs_changed_during`).
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import os
import tokenize
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "MANIFEST_FILE",
    "PACKAGE",
    "RUNNER_MODULE",
    "module_index",
    "module_imports",
    "import_closure",
    "task_module",
    "config_runs_hash",
    "code_manifest",
    "manifest_fingerprint",
    "method_fingerprints",
    "read_manifests",
    "write_manifests",
    "changed_files",
    "file_hash",
    "manifest_scheme",
    "is_fresh",
    "fresh_rows",
    "table_code",
    "table_fresh_rows",
    "today_code",
    "SCHEMES",
]

PACKAGE = "interpretopt"
RUNNER_MODULE = "interpretopt.experiments.runner"
MANIFEST_FILE = "code.json"
#: modules that describe rows and never shape one (not part of any closure)
NOT_SHAPING = frozenset({"interpretopt.experiments.fingerprint", "interpretopt.experiments.record"})
#: config keys that shape the report, not the runs
REPORT_KEYS = ("tables", "plots", "description")
_HASH_DIGITS = 12
#: how a module is hashed: "tokens" (today's: code without comments and docstrings, prefix ``tok:``) or
#: "bytes" (manifests written before 2026-12-05); the first is the one new manifests use
SCHEMES = ("tokens", "bytes")
TOKENS_PREFIX = "tok:"

#: ``(scheme, method) -> manifest``: today's code of a method hashed as a stored manifest was
Today = Callable[[str, str], dict[str, str]]


def package_root() -> Path:
    """The directory of the ``interpretopt`` package being run."""
    return Path(__file__).resolve().parents[1]


@lru_cache(maxsize=4)
def module_index(root: str | None = None) -> dict[str, Path]:
    """Module name -> source file of every module of the package (``pkg.__init__`` as ``pkg``)."""
    base = Path(root) if root is not None else package_root()
    out: dict[str, Path] = {}
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(base.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _resolve_from(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module named by ``from <node.module> import ...`` (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join(base + ([node.module] if node.module else []))


def module_imports(name: str, index: dict[str, Path] | None = None) -> set[str]:
    """The package modules that module ``name`` imports (anywhere in its body), statically.

    ``import a.b`` names ``a.b``; ``from a import x, y`` names ``a.x`` and ``a.y`` where those are
    modules, and the package ``a`` itself when some imported name is not a module of it (a name
    its ``__init__`` defines).
    """
    index = module_index() if index is None else index
    path = index.get(name)
    if path is None:
        return set()
    return _named_modules(_imports_in(name, str(path), path.stat().st_mtime_ns), index)


def _named_modules(imports: tuple[tuple[str, tuple[str, ...]], ...], index: dict[str, Path]) -> set[str]:
    found: set[str] = set()
    for module, names in imports:
        subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in index]
        found.update(subs)
        if not names or len(subs) < len(names):
            found.add(module)
    return {m for m in found if m in index}


@lru_cache(maxsize=1024)
def _imports_in(name: str, path_text: str, mtime_ns: int) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``(module, imported names)`` of every import statement of a file (names empty for ``import m``),
    relative imports resolved; cached per file version."""
    path = Path(path_text)
    tree = ast.parse(path.read_bytes(), filename=path_text)
    is_package = path.name == "__init__.py"
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append((_resolve_from(name, is_package, node), tuple(a.name for a in node.names)))
    return tuple(found)


def import_closure(roots: list[str], index: dict[str, Path] | None = None) -> list[str]:
    """Every package module reachable from ``roots`` by :func:`module_imports`, sorted."""
    index = module_index() if index is None else index
    seen: set[str] = set()
    todo = [r for r in roots if r in index]
    while todo:
        m = todo.pop()
        if m in seen or m in NOT_SHAPING:
            continue
        seen.add(m)
        todo.extend(module_imports(m, index) - seen)
    return sorted(seen)


def task_module(method: str) -> str | None:
    """The module defining the task of ``method`` (a registered task or ``module:function``), or None."""
    from interpretopt.experiments.tasks import get_task

    try:
        return getattr(get_task(method), "__module__", None)
    except Exception:  # an unknown task: the run fails and says so; its code is the runner's
        return None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:_HASH_DIGITS]


def _docstring_spans(tree: ast.AST) -> list[tuple[int, int, int, int]]:
    """``(line, col, end_line, end_col)`` of every docstring (the string first statement of a module, class or
    function), columns in UTF-8 bytes as :mod:`ast` gives them."""
    spans = []
    for node in ast.walk(tree):
        body = getattr(node, "body", None) if isinstance(
            node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) else None
        first = body[0] if body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            spans.append((first.lineno, first.col_offset, first.end_lineno, first.end_col_offset))
    return spans


def _code_tokens(text: str) -> list[str]:
    """The tokens of a module's source that make its code: no comments, no blank or continuation line
    breaks, no docstring (nor the line end after it). An f-string is one token, its source text, as
    Python 3.11 gives it (3.12 splits it), so the hash is the same on either."""
    lines = text.splitlines(keepends=True)

    def char_col(row: int, byte_col: int) -> int:
        return len(lines[row - 1].encode()[:byte_col].decode(errors="ignore")) if row <= len(lines) else byte_col

    docs = [((r, char_col(r, c)), (er, char_col(er, ec))) for r, c, er, ec in _docstring_spans(ast.parse(text))]
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING}
    fstring_start = getattr(tokenize, "FSTRING_START", None)
    out: list[str] = []
    tokens = iter(tokenize.generate_tokens(io.StringIO(text).readline))
    after_doc = False
    for tok in tokens:
        if tok.type in skip:
            continue
        if any(a <= tok.start and tok.end <= b for a, b in docs):
            after_doc = True
            continue
        if after_doc and tok.type == tokenize.NEWLINE:
            after_doc = False
            continue
        after_doc = False
        if fstring_start is not None and tok.type == fstring_start:
            start, depth = tok.start, 1
            for tok in tokens:  # to the matching end: the f-string's source text, as one token
                depth += (tok.type == fstring_start) - (tok.type == tokenize.FSTRING_END)
                if depth == 0:
                    break
            out.append("STRING " + _source_span(lines, start, tok.end))
            continue
        out.append(f"{tokenize.tok_name[tok.type]} {tok.string}")  # names: the numbers differ by version
    return out


def _source_span(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    (r0, c0), (r1, c1) = start, end
    if r0 == r1:
        return lines[r0 - 1][c0:c1]
    return lines[r0 - 1][c0:] + "".join(lines[r0:r1 - 1]) + lines[r1 - 1][:c1]


def file_hash(path: str | os.PathLike, scheme: str = SCHEMES[0]) -> str:
    """A module's hash: ``tok:`` and 12 hex digits of SHA-256 over its code tokens (``scheme="tokens"``,
    :func:`_code_tokens`; a file that does not tokenize or parse is hashed by its bytes, with the prefix), or
    12 hex digits over its bytes (``"bytes"``, the manifests written before 2026-12-05)."""
    data = Path(path).read_bytes()
    if scheme == "bytes":
        return _digest(data)
    if scheme != "tokens":
        raise ValueError(f"unknown hash scheme {scheme!r}; accepted: {', '.join(SCHEMES)}")
    key = hashlib.sha256(data).digest()   # the same bytes tokenize the same: each content once per process
    if key not in _TOKEN_HASHES:
        try:
            code = json.dumps(_code_tokens(data.decode("utf-8"))).encode()  # a list: no two sequences alike
        except (SyntaxError, UnicodeDecodeError, tokenize.TokenError, ValueError):
            code = data
        _TOKEN_HASHES[key] = TOKENS_PREFIX + _digest(code)
    return _TOKEN_HASHES[key]


#: token hashes by the SHA-256 of the file's bytes: a record of 27 tables hashes the same modules for each
_TOKEN_HASHES: dict[bytes, str] = {}


def manifest_scheme(files: Mapping[str, str]) -> str:
    """How a stored manifest hashed its modules: ``"tokens"`` when any module hash has the ``tok:`` prefix,
    else ``"bytes"``."""
    return "tokens" if any(isinstance(v, str) and v.startswith(TOKENS_PREFIX) for v in files.values()) else "bytes"


def config_runs_hash(path: str | os.PathLike) -> str:
    """Hash of a config file's runs part: its parsed YAML without :data:`REPORT_KEYS`."""
    import yaml

    data = yaml.safe_load(Path(path).read_text())
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in REPORT_KEYS}
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:_HASH_DIGITS]


def _config_label(path: str | os.PathLike) -> str:
    """``config:<paper>/<table>.yaml`` for a shipped config, else ``config:<file name>``."""
    from interpretopt.experiments.config import configs_root

    p = Path(path).resolve()
    try:
        return "config:" + p.relative_to(Path(configs_root()).resolve()).as_posix()
    except ValueError:
        return "config:" + p.name


def _external_module_file(name: str) -> Path | None:
    """The source file of a task module outside the package (``module:function`` tasks)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None) if spec is not None else None
    return Path(origin) if origin and origin.endswith(".py") else None


def code_manifest(method: str, config_path: str | os.PathLike | None = None, scheme: str = SCHEMES[0]
                  ) -> dict[str, str]:
    """``{file: hash}`` of the code a run of ``method`` depends on, and of the config's runs part.

    Files of the package are named relative to the package's parent (``interpretopt/...``); a
    task module outside the package by ``module:<name>``; the config by ``config:<path>``. Modules
    are hashed by ``scheme`` (:func:`file_hash`).
    """
    index = module_index()
    roots = [RUNNER_MODULE]
    mod = task_module(method)
    manifest: dict[str, str] = {}
    if mod is not None and mod in index:
        roots.append(mod)
    elif mod is not None:
        ext = _external_module_file(mod)
        if ext is not None:
            manifest[f"module:{mod}"] = file_hash(ext, scheme)
            roots += sorted(_external_imports(ext, index))
    base = package_root().parent
    for m in import_closure(roots, index):
        manifest[index[m].relative_to(base).as_posix()] = file_hash(index[m], scheme)
    if config_path is not None and Path(config_path).is_file():
        manifest[_config_label(config_path)] = config_runs_hash(config_path)
    return dict(sorted(manifest.items()))


def _external_imports(path: Path, index: dict[str, Path]) -> set[str]:
    """The package modules a module outside the package imports (absolute imports only)."""
    imports = _imports_in(path.stem, str(path), path.stat().st_mtime_ns)
    return _named_modules(tuple((m, n) for m, n in imports if m and not m.startswith(".")), index)


def manifest_fingerprint(manifest: dict[str, str]) -> str:
    """The ``code_fingerprint`` of a manifest: 16 hex digits of SHA-256 over its sorted items."""
    text = "\n".join(f"{k} {v}" for k, v in sorted(manifest.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def method_fingerprints(config: Any) -> dict[str, tuple[str, dict[str, str]]]:
    """``method -> (fingerprint, manifest)`` for every method of an experiment config."""
    path = getattr(config, "path", None)
    path = path if path and path != "<string>" else None
    out = {}
    for m in dict.fromkeys(spec.method for spec in config.methods):
        manifest = code_manifest(m, path)
        out[m] = (manifest_fingerprint(manifest), manifest)
    return out


def read_manifests(out_dir: str | os.PathLike) -> dict[str, dict]:
    """``fingerprint -> {"method", "commit", "files"}`` stored in ``<out_dir>/code.json`` ({} if none)."""
    path = Path(out_dir) / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_manifests(out_dir: str | os.PathLike, fingerprints: dict[str, tuple[str, dict[str, str]]],
                    commit: str | None = None) -> Path:
    """Add the manifests of ``fingerprints`` (from :func:`method_fingerprints`) to ``<out_dir>/code.json``."""
    from interpretopt.experiments.results import atomic_write_text

    data = read_manifests(out_dir)
    for method, (fp, manifest) in fingerprints.items():
        entry = data.get(fp) or {"method": method, "commit": commit, "files": manifest}
        data[fp] = entry
    path = Path(out_dir) / MANIFEST_FILE
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def changed_files(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """The files whose hash differs between two manifests (added, removed or edited), sorted."""
    return sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))


def record_code(config: Any, out_dir: str | os.PathLike) -> dict[str, str]:
    """``method -> code fingerprint`` of ``config``'s methods, their manifests added to ``<out_dir>/code.json``
    (with the commit of the checkout, when there is one): the runner stamps every row it writes."""
    from interpretopt.experiments.results import git_commit

    fps = method_fingerprints(config)
    write_manifests(out_dir, fps, commit=git_commit())
    return {m: fp for m, (fp, _) in fps.items()}


def today_code(config_path: str | os.PathLike | None = None) -> Today:
    """``(scheme, method) -> manifest`` of today's code, each computed once (the module index is read again:
    a module may have been added since it was read)."""
    module_index.cache_clear()

    @lru_cache(maxsize=None)
    def now(scheme: str, method: str) -> dict[str, str]:
        return code_manifest(method, config_path, scheme)

    return now


def is_fresh(fp: Any, method: str, manifests: Mapping[str, dict], today: Today) -> bool:
    """Whether rows stamped ``fp`` were made by today's code of ``method``: ``fp`` is the fingerprint of
    today's code hashed as ``fp``'s stored manifest was (``manifests``, :func:`read_manifests`); without a
    stored manifest, hashed either way (equal fingerprints are equal code in any scheme)."""
    if not (isinstance(fp, str) and fp):
        return False
    stored = manifests.get(fp, {}).get("files")
    schemes = (manifest_scheme(stored),) if stored else SCHEMES
    return any(manifest_fingerprint(today(s, method)) == fp for s in schemes)


def fresh_rows(rows: Any, manifests: Mapping[str, dict], today: Today) -> list[bool]:
    """Per row of ``rows`` (a DataFrame of run rows with ``method`` and ``code_fingerprint``): made by today's
    code (:func:`is_fresh`, decided once per distinct method and fingerprint)."""
    if rows is None or not len(rows):
        return []
    fps = rows["code_fingerprint"] if "code_fingerprint" in rows.columns else [None] * len(rows)
    seen: dict[tuple, bool] = {}
    out = []
    for method, fp in zip(rows["method"], fps):
        key = (str(method), fp if isinstance(fp, str) else None)
        if key not in seen:
            seen[key] = is_fresh(key[1], key[0], manifests, today)
        out.append(seen[key])
    return out


def runs_freshness(rows: Any, manifests: dict[str, dict], today: Today | Mapping[str, dict[str, str]]) -> list[dict]:
    """The stale groups of ``rows`` (a DataFrame of run rows): one entry per code fingerprint whose
    code differs from today's, ``{"fingerprint", "method", "n_runs", "commits", "changed"}``.

    ``manifests`` are the stored ones (:func:`read_manifests`); ``today`` gives each method's manifest now,
    hashed as a stored manifest was (:func:`today_code`; a mapping ``method -> manifest`` is taken as it
    is). Rows without a fingerprint (made before fingerprints were recorded) or whose manifest is lost are
    stale with ``changed == ["(unknown: no code manifest)"]``.
    """
    if rows is None or not len(rows) or "method" not in rows.columns:
        return []
    fps = rows["code_fingerprint"] if "code_fingerprint" in rows.columns else [None] * len(rows)
    commits = rows["git_commit"] if "git_commit" in rows.columns else [None] * len(rows)
    groups: dict[tuple, dict] = {}
    for method, fp, commit in zip(rows["method"], fps, commits):
        fp = fp if isinstance(fp, str) and fp else None
        g = groups.setdefault((str(method), fp), {"fingerprint": fp, "method": str(method), "n_runs": 0,
                                                   "commits": set()})
        g["n_runs"] += 1
        if isinstance(commit, str) and commit:
            g["commits"].add(commit)
    out = []
    for (method, fp), g in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        stored = manifests.get(fp, {}).get("files") if fp else None
        if stored is None:
            changed = ["(unknown: no code manifest)"]
        else:
            now = today(manifest_scheme(stored), method) if callable(today) else today.get(method)
            if now is not None and manifest_fingerprint(now) == fp:
                continue
            changed = changed_files(stored, now or {})
        out.append({**g, "commits": sorted(c[:12] + ("-dirty" if c.endswith("-dirty") else "")
                                           for c in g["commits"]), "changed": changed})
    return out


def shown_files(files: list[str], limit: int = 8) -> str:
    """The files as Markdown code, comma-separated: the first ``limit`` of them, then how many more."""
    more = f" and {len(files) - limit} more" if len(files) > limit else ""
    return ", ".join(f"`{f}`" for f in files[:limit]) + more


def freshness_note(stale: list[dict], n_rows: int) -> str:
    """One Markdown paragraph naming the stale runs of a table, their commits and the changed files
    ("" when nothing is stale)."""
    if not stale:
        return ""
    parts = []
    for g in stale:
        at = f" at commit {', '.join(g['commits'])}" if g["commits"] else ""
        parts.append(f"{g['n_runs']} {g['method']} runs{at}, by code that differs from today's in "
                     f"{shown_files(g['changed'])}")
    n = sum(g["n_runs"] for g in stale)
    return (f"**Stale: {n} of {n_rows} runs were made by other code than today's** ({'; '.join(parts)}). "
            "Their numbers are not what today's code gives; rerun the table to refresh them.")


def table_code(config: Any, out_dir: str | os.PathLike) -> tuple[dict[str, dict], Today]:
    """``(stored manifests, today's code)`` of the runs of one table config stored under ``out_dir`` (for a
    config with ``runs_from``, its manifests are read beside the runs, in the source config's directory)."""
    from interpretopt.experiments.runner import runs_source

    src, src_dir = runs_source(config, out_dir)
    manifests = {**read_manifests(src_dir), **read_manifests(out_dir)}
    return manifests, today_code(src.path if src.path != "<string>" else None)


def table_fresh_rows(config: Any, out_dir: str | os.PathLike, rows: Any) -> list[bool]:
    """:func:`fresh_rows` of the rows of one table config stored under ``out_dir``."""
    return fresh_rows(rows, *table_code(config, out_dir)) if rows is not None and len(rows) else []


def table_freshness(config: Any, out_dir: str | os.PathLike, rows: Any) -> str:
    """:func:`freshness_note` for the rows of one table config stored under ``out_dir``."""
    if rows is None or not len(rows):
        return ""
    return freshness_note(runs_freshness(rows, *table_code(config, out_dir)), len(rows))
