"""``REPORT.html``: the reproduction report as one self-contained, browsable page.

:func:`write_html` writes the same content as ``REPORT.md`` (:func:`interpretopt.experiments.report.write_report`)
into one HTML file with no external assets: figures are inline (base64 PNG), styles and a few
lines of plain JavaScript are in the page. Every published cell is a table row carrying its
paper and verdict (``data-paper``, ``data-verdict``), so that two drop-downs filter the cells by
paper and by verdict (agrees, differs, partial, no data, not run), also from the address
(``REPORT.html#paper=imd&verdict=differs``); each table links to its config's protocol notes
(the config header) further down the same page.
"""

from __future__ import annotations

import base64
import html
import math
import os
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

__all__ = ["write_html", "render_html", "VERDICT_FILTERS"]

VERDICT_FILTERS = ("agrees", "differs", "partial", "no data", "not run")

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5em auto;max-width:1200px;
color:#222;line-height:1.4;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:2px solid #ddd;margin-top:2em}h3{margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}th{background:#f3f3f3}
tr.agrees td.v{color:#18794e;font-weight:600}tr.differs td.v{color:#b42318;font-weight:600}
tr.partial td.v{color:#b54708}tr.nodata td.v,tr.notrun td.v{color:#777}
.claim{border-left:4px solid #999;padding:.3em .8em;margin:.8em 0;background:#fafafa}
.claim.reproduced{border-color:#18794e}.claim.not-reproduced{border-color:#b42318}
.filters{position:sticky;top:0;background:#fff;padding:.5em 0;border-bottom:1px solid #ddd;z-index:2}
.changes{background:#fff8e6;padding:.3em .8em;border:1px solid #f0d9a0}
img{max-width:100%;border:1px solid #eee;margin:.3em 0}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}
.small{color:#666;font-size:.85em}
"""

_JS = """
function applyFilters(){
  var p=document.getElementById('f-paper').value, v=document.getElementById('f-verdict').value;
  document.querySelectorAll('tr[data-verdict]').forEach(function(tr){
    var ok=(p===''||tr.dataset.paper===p)&&(v===''||tr.dataset.verdict===v);
    tr.style.display=ok?'':'none';
  });
  document.querySelectorAll('section.cells').forEach(function(s){
    var any=s.querySelector('tr[data-verdict]:not([style*="none"])');
    s.style.display=(any||(p===''&&v===''))?'':'none';
  });
  document.querySelectorAll('section.paper').forEach(function(s){
    s.style.display=(p===''||s.dataset.paper===p)?'':'none';
  });
}
document.addEventListener('DOMContentLoaded',function(){
  var q=new URLSearchParams(location.hash.slice(1));
  ['paper','verdict'].forEach(function(k){
    var sel=document.getElementById('f-'+k);
    if(q.has(k)){sel.value=q.get(k);}
    sel.addEventListener('change',applyFilters);
  });
  applyFilters();
});
"""


def _e(x) -> str:
    return html.escape("" if x is None else str(x))


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _verdict_key(row) -> str:
    if row.status == "compared":
        return str(row.verdict) if isinstance(row.verdict, str) else "differs"
    return {"partial": "partial", "no_data": "no data", "not_run": "not run"}.get(row.status, str(row.status))


def _cells_html(cells: pd.DataFrame, digits: int = 3) -> str:
    from interpretopt.experiments.report import VERDICT_MARKS, _pm

    rows = []
    for x in cells.itertuples():
        key = _verdict_key(x)
        mark = VERDICT_MARKS.get(key, key)
        why = "" if x.status == "compared" else str(x.reason or "")
        band = "" if _nan(x.rule) or x.rule is None else str(x.rule)
        if band and not _nan(x.tolerance):
            band += f": {float(x.tolerance):.3g}"
        if not _nan(getattr(x, "n_limited", None)) and getattr(x, "n_limited", 0):
            band += f"; {int(x.n_limited)} runs stopped by a time limit"
        paper_n = x.paper_n if x.kind not in ("pvalue", "wins", "mark", "rank") else None
        rows.append(f'<tr class="{key.replace(" ", "")}" data-paper="{_e(x.paper)}" data-verdict="{_e(key)}">'
                    f"<td>{_e(x.row)}</td><td>{_e(x.column)}</td><td>{_e(_pm(x.ours, x.ours_std, x.n_runs, digits))}"
                    f"</td><td>{_e(_pm(x.paper_value, x.paper_std, paper_n, digits))}</td>"
                    f'<td class="v">{_e(mark)}</td><td class="small">{_e(band)} {_e(why)}</td></tr>')
    return ("<table><thead><tr><th>row</th><th>column</th><th>ours ± std (n)</th><th>paper ± std (n)</th>"
            "<th>verdict</th><th>rule: band / why</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _img(path: Path) -> str:
    if not path.is_file() or path.suffix != ".png":
        return ""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<figure><img alt="{_e(path.stem)}" src="data:image/png;base64,{data}"></figure>'


def _config_html(r, paper: str) -> str:
    from interpretopt.experiments.report import _anchor, _limited_line, protocol_notes, scale_changes

    rel = Path(r.path).name if r.config is None else f"{paper}/{Path(r.path).stem}"
    anchor = f"protocol-{_anchor(rel)}"
    parts = [f'<h3 id="{_anchor(rel)}">{_e(rel)}</h3>']
    if r.config is not None and r.config.description:
        parts.append(f"<p>{_e(' '.join(r.config.description.split()))}</p>")
    planned = "" if r.n_planned is None else f" of {r.n_planned} planned"
    parts.append(f'<p class="small">Runs: {r.n_runs}{planned} ({r.n_ok} ok, {r.n_failed} failed).</p>')
    changes = scale_changes(r.published, r.config)
    if changes:
        parts.append(f'<div class="changes"><b>Settings the {_e(r.config.scale)} scale changes against the paper\'s '
                     "protocol:</b><ul>" + "".join(f"<li>{_e(c)}</li>" for c in changes) + "</ul></div>")
    limited = _limited_line(r)
    if limited:
        parts.append(f"<p><b>{_e(limited.replace('**', ''))}</b></p>")
    if r.error:
        parts.append(f"<p><b>Problem:</b> {_e(r.error)}</p>")
    for name, tr in r.tables.items():
        spec = tr.spec
        parts.append(f'<section class="cells"><h4>{_e(name)}: {_e(spec.metric)} '
                     f"({_e(spec.aggregate.replace('_', ' '))}) at {_e(tr.scale)} scale "
                     f'<a class="small" href="#{anchor}">protocol notes</a></h4>')
        if spec.caption:
            parts.append(f"<p class=\"small\">The paper's caption{'' if tr.scale == 'full' else ' (its protocol, not this scale’s)'}: "
                         f"<i>{_e(' '.join(spec.caption.split()))}</i></p>")
        c = r.cells[r.cells["table"] == name] if len(r.cells) else r.cells
        if len(c):
            parts.append(_cells_html(c, spec.digits))
        parts.append("<details><summary>Our table</summary>" + tr.cells.to_html(escape=True, border=0) + "</details>")
        parts.append("</section>")
    for fig in r.figures:
        parts.append(_img(Path(fig)))
    notes = protocol_notes(r.path) if Path(r.path).is_file() else ""
    parts.append(f'<details id="{anchor}"><summary>Protocol notes of {_e(rel)} (from the config header)</summary>'
                 f"<pre>{_e(notes or 'none')}</pre></details>")
    return "\n".join(parts)


def _claims_html(claims: list) -> str:
    from interpretopt.experiments.report import CLAIM_MARKS

    out = []
    for cl, res in claims:
        out.append(f'<div class="claim {res.verdict.replace(" ", "-")}"><blockquote>{_e(cl.quote)}</blockquote>'
                   f'<p class="small"><i>{_e(cl.where)}</i></p><p><b>{_e(CLAIM_MARKS.get(res.verdict, res.verdict))}'
                   f"</b> at this scale: {_e(res.detail)}</p><p class=\"small\">test: {_e(cl.test)}; runs of "
                   f"{_e(', '.join(cl.tables))} (claim <code>{_e(cl.paper)}.{_e(cl.key)}</code>)</p></div>")
    return "\n".join(out)


def render_html(records: list, *, scale: str, claims: list | None = None, command: str = "") -> str:
    """The page's HTML text (see the module docstring)."""
    from interpretopt.experiments.agreement import RULE_TEXT
    from interpretopt.experiments.report import PAPERS, _all_cells, summarize_cells

    claims = claims or []
    cells = _all_cells(records, claims, scale)
    summ = summarize_cells(cells) if len(cells) else pd.DataFrame()
    papers = [p for p in PAPERS if any(r.paper == p for r in records) or any(c.paper == p for c, _ in claims)]
    opts = "".join(f'<option value="{_e(p)}">{_e(p)}</option>' for p in papers)
    vopts = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in VERDICT_FILTERS)
    body = [f"<h1>Reproduction report: {_e(scale)} scale</h1>",
            f'<p class="small">{_e(command)} · {datetime.now(timezone.utc).isoformat(timespec="seconds")}</p>',
            f"<p>{_e(RULE_TEXT)}</p>",
            '<div class="filters">Paper <select id="f-paper"><option value="">all</option>' + opts + "</select> "
            'Verdict <select id="f-verdict"><option value="">all</option>' + vopts + "</select></div>"]
    if len(summ):
        summ = summ.assign(differs=summ["compared"] - summ["within_tolerance"]).rename(
            columns={"within_tolerance": "agrees", "compared_share": "share compared"})
        summ = summ[["paper", "published", "with_data", "compared", "share compared", "agrees", "differs", "partial",
                     "no_data", "not_run"]]
        body.append("<h2>Summary</h2>" + summ.to_html(index=False, escape=True, border=0,
                                                      float_format=lambda x: f"{x:.2f}"))
    for paper in papers:
        recs = [r for r in records if r.paper == paper]
        mine = [(c, r) for c, r in claims if c.paper == paper]
        body.append(f'<section class="paper" data-paper="{_e(paper)}"><h2>{_e(PAPERS[paper])}</h2>')
        if mine:
            body.append("<h3>Headline claims</h3>" + _claims_html(mine))
        head = cells[(cells["paper"] == paper) & (cells["table"] == "headline")] if len(cells) else cells
        if len(head):
            body.append('<section class="cells"><h4>Headline numbers of the paper\'s text</h4>'
                        + _cells_html(head) + "</section>")
        body += [_config_html(r, paper) for r in recs]
        body.append("</section>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Reproduction report: {_e(scale)} scale</title><style>{_CSS}</style>"
            f"<script>{_JS}</script></head><body>" + "\n".join(body) + "</body></html>\n")


def write_html(records: list, out_dir: str | os.PathLike, *, scale: str, claims: list | None = None,
               command: str = "") -> Path:
    """Write ``REPORT.html`` beside ``REPORT.md`` in ``out_dir``; returns its path."""
    path = Path(out_dir) / "REPORT.html"
    path.write_text(render_html(records, scale=scale, claims=claims, command=command), encoding="utf-8")
    return path
