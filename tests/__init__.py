"""The project test suite (a package, so that `tests.*` resolves here before any installed `tests` package)."""
