"""Results of record: the rows of every published table, kept in the repository.

Layout (one directory per scale; each table's directory is an ordinary output directory of
the runner, so ``reproduce --out records/<scale>`` runs into it and resumes from it)::

    records/<scale>/RECORD.json                   {"scale": ...}: what this record holds
    records/<scale>/REPORT.md, cells.csv          made from the rows alone (no dates, no machine)
    records/<scale>/<paper>/<table>/rows.parquet  every stored row of the table (committed)
    records/<scale>/<paper>/<table>/code.json     code manifests: fingerprint -> {method, commit, files}
    records/<scale>/<paper>/<table>/experiment.json, pairs/*.json   small texts the runner wrote
    records/<scale>/<paper>/<table>/artifacts/<run key>/jst.json    the texts the report draws

The runner's working files in the same directories (``runs/*.json``, ``blackbox/``,
``results.parquet``, ``plots/``, the other artifacts) are not part of the record
(``records/.gitignore``). A row stored in ``rows.parquet`` counts as a finished run
(:func:`record_rows`, read by :class:`~interpretopt.experiments.results.ResultStore`): a table
can be run in several sittings, each recorded, and the rest resumed next time.

What is dropped from a row: the traceback of a failed run is cut to its last lines (the
error message is kept whole); nothing else. Pickled black boxes, joblib caches and the
artifacts the report does not read are never recorded.
"""

from __future__ import annotations

import json
import math
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "RECORD_FILE",
    "ROWS_FILE",
    "RECORD_ARTIFACTS",
    "record_rows",
]

RECORD_FILE = "RECORD.json"
ROWS_FILE = "rows.parquet"
#: artifacts the report reads (the joint surrogate trees it draws); the others are not recorded
RECORD_ARTIFACTS = ("jst.json",)
_JSON_COLUMNS_KEY = b"interpretopt.json_columns"
TRACEBACK_LINES = 12


# ----------------------------------------------------------------------------- reading rows


def record_rows(out_dir: str | os.PathLike) -> list[dict]:
    """The rows of ``<out_dir>/rows.parquet`` as dicts (JSON-stored columns decoded, NaN as None);
    [] when the directory holds no recorded rows."""
    path = Path(out_dir) / ROWS_FILE
    try:
        stat = path.stat()
    except OSError:
        return []
    return [dict(r) for r in _read_rows(str(path), stat.st_mtime_ns, stat.st_size)]


@lru_cache(maxsize=64)
def _read_rows(path: str, mtime_ns: int, size: int) -> tuple[dict, ...]:
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = table.schema.metadata or {}
    json_cols = set(json.loads(meta.get(_JSON_COLUMNS_KEY, b"[]")))
    rows = []
    for rec in table.to_pylist():
        row = {}
        for k, v in rec.items():
            if isinstance(v, float) and math.isnan(v):
                v = None  # as the row files store a missing number
            row[k] = json.loads(v) if (k in json_cols and v is not None) else v
        rows.append(row)
    return tuple(rows)


def _encode_rows(rows: list[dict]) -> Any:
    """A pyarrow table of ``rows``: a column whose values are not all of one scalar type is stored
    as the JSON text of every value (listed in the schema metadata), so that reading gives back
    exactly the values the row files held."""
    import pyarrow as pa

    columns = sorted({k for r in rows for k in r})
    json_cols, data = [], {}
    for c in columns:
        vals = [r.get(c) for r in rows]
        types = {type(v) for v in vals if v is not None}
        if len(types) <= 1 and types <= {int, float, str, bool}:
            data[c] = vals
        else:  # mixed (an int in one row, a float or a text in another) or nested: exact as JSON
            json_cols.append(c)
            data[c] = [None if v is None else json.dumps(v, sort_keys=True) for v in vals]
    table = pa.table(data)
    return table.replace_schema_metadata({_JSON_COLUMNS_KEY: json.dumps(json_cols).encode()})
