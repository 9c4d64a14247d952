"""House style: no function of the package longer than 100 lines without a reason written above it.

A function over the limit names its reason in a comment that starts with ``# Long:`` on the lines just
above its ``def`` (or its decorators); a function that holds several steps should instead be split into
named ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

import interpretopt

LIMIT = 100
PACKAGE = Path(interpretopt.__file__).parent


def long_functions_without_reason(source: str) -> list[tuple[str, int, int]]:
    """``(name, line, length)`` of each function of ``source`` over ``LIMIT`` lines with no ``# Long:`` above it."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        length = node.end_lineno - node.lineno + 1
        if length <= LIMIT:
            continue
        head = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1   # lines above the head: [:head]
        comments = []
        for line in reversed(lines[:head]):
            if not line.strip().startswith("#"):
                break
            comments.append(line.strip())
        if not any(c.startswith("# Long:") for c in comments):
            found.append((node.name, node.lineno, length))
    return found


def test_no_function_of_the_package_is_over_the_limit_without_a_reason():
    found = [f"{p.relative_to(PACKAGE.parent)}:{line} {name} ({n} lines)"
             for p in sorted(PACKAGE.rglob("*.py"))
             for name, line, n in long_functions_without_reason(p.read_text(encoding="utf-8"))]
    assert not found, f"functions over {LIMIT} lines with no '# Long:' reason above them: {found}"


def test_the_check_finds_a_long_function_unless_a_reason_is_written_above_it():
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    source = (f"def bare():\n{body}\n\n\n# Long: a reason.\n# (more of it)\n@staticmethod\ndef explained():\n{body}\n\n\n"
              f"def short():\n    return 1\n")
    assert [name for name, _, _ in long_functions_without_reason(source)] == ["bare"]
