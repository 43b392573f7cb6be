"""The house rules a newcomer can count on: no module over 500 lines, and in pipeline/ (the
runner, the stages) no function over 60 lines."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "videoreview"
MODULE_LINES = 500
PIPELINE_FUNCTION_LINES = 60


def test_no_module_over_500_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert not long, long


def test_no_function_in_the_pipeline_over_60_lines():
    long = {}
    for path in (PACKAGE / "pipeline").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > PIPELINE_FUNCTION_LINES:
                    long[f"{path.relative_to(PACKAGE)}:{node.name}"] = lines
    assert not long, long
