#!/usr/bin/env bash
# Build and install pycorels 1.1.29 (the reference CORELS, GPL), the optional oracle of
# benchmarks/bench_corels.py and benchmarks/bench_rule_learners.py. Never a dependency.
#
# Its sdist does not build as shipped on Python >= 3.11 with current setuptools/numpy:
#   - setup.py sets `__builtins__.__NUMPY_SETUP__ = False`, which fails there: the line becomes `pass`;
#   - the shipped corels/_corels.cpp includes longintrepr.h, which Python 3.11 removed: it is
#     regenerated from corels/_corels.pyx with Cython < 3.1 (`cython -3 --cplus`).
# Then `pip install --no-build-isolation --no-deps .` (needs numpy, setuptools and wheel here).
#
# Usage: bash benchmarks/install_pycorels.sh [PYTHON]   (default: python)
set -euo pipefail

PY="${1:-python}"
VERSION=1.1.29
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

say() { echo "install_pycorels: $*"; }

say "installing the build tools (Cython < 3.1, wheel) into $("$PY" -c 'import sys; print(sys.prefix)')"
"$PY" -m pip install --quiet "cython<3.1" wheel setuptools numpy

say "downloading the corels $VERSION sdist"
"$PY" -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation \
    "corels==$VERSION" -d "$WORK" || {
    say "pip download failed; fetching the sdist from PyPI's JSON API instead"
    "$PY" - "$VERSION" "$WORK" <<'EOF'
import json, sys, urllib.request
version, dest = sys.argv[1], sys.argv[2]
meta = json.load(urllib.request.urlopen(f"https://pypi.org/pypi/corels/{version}/json"))
url = next(u["url"] for u in meta["urls"] if u["packagetype"] == "sdist")
urllib.request.urlretrieve(url, f"{dest}/{url.rsplit('/', 1)[1]}")
EOF
}
SDIST="$(ls "$WORK"/corels-"$VERSION".tar.gz)"
tar -xzf "$SDIST" -C "$WORK"
SRC="$WORK/corels-$VERSION"

say "patching setup.py (the __NUMPY_SETUP__ line becomes pass)"
grep -q "__NUMPY_SETUP__" "$SRC/setup.py" || { say "setup.py has no __NUMPY_SETUP__ line: unexpected sdist"; exit 1; }
sed -i 's/^\(\s*\)__builtins__\.__NUMPY_SETUP__ = False/\1pass/' "$SRC/setup.py"

say "regenerating corels/_corels.cpp with Cython $("$PY" -c 'import Cython; print(Cython.__version__)')"
(cd "$SRC" && "$PY" -m cython -3 --cplus corels/_corels.pyx -o corels/_corels.cpp)

say "building and installing"
(cd "$SRC" && "$PY" -m pip install --quiet --no-build-isolation --no-deps .)

"$PY" -c "import corels; print('install_pycorels: pycorels imports from', corels.__file__)"
