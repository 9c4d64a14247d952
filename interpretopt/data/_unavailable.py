"""Datasets the papers use that interpretopt cannot hold, and why.

A reproduction report lists a published cell of such a dataset as ``no_data`` with the
reason below rather than leaving it silently empty. A user who has the data (e.g. from
ICPSR) can load it as a local CSV with :func:`~interpretopt.data.dataset_from_csv`.
"""

from __future__ import annotations

__all__ = ["UNAVAILABLE_DATASETS", "unavailable_reason"]

UNAVAILABLE_DATASETS: dict[str, str] = {
    "juvenile": "juvenile (ICPSR 3986) is not redistributable: ICPSR's terms of use forbid copies",
    "frisk": "frisk (NYC stop-question-frisk, ICPSR 21660) is not available offline: the yearly files "
             "are only distributed by NYPD/ICPSR",
    "recidivism": "the full recidivism data (11,645 x 106) is not available: only its 20% test split "
                  "(recidivism_mrs_test) is public",
    "schizophrenia": "the schizophrenia data is not public",
    "lending_large": "the large LendingClub set (2.2M rows) is not available: only the 39,786-row "
                     "LoanStats3a derivative (lending_club) is held",
}

_ALIASES = {"schizo": "schizophrenia", "juvenile_justice": "juvenile", "stop_and_frisk": "frisk",
            "lending_club_large": "lending_large"}


def unavailable_reason(name: str) -> str | None:
    """Why dataset ``name`` (a name or table label, any case) is not held, or ``None`` if it is not listed."""
    key = str(name).strip().lower().replace(" ", "_").replace("-", "_")
    key = _ALIASES.get(key, key)
    return UNAVAILABLE_DATASETS.get(key)
