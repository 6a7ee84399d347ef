"""The public API (pazaak_cli/api.py): every name imports, docs/api.md lists exactly them, and
the page's example runs."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

from pazaak_cli import api

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
TEXT = DOC.read_text(encoding="utf-8")


def test_every_public_name_imports_and_is_listed_once() -> None:
    assert len(set(api.__all__)) == len(api.__all__)
    missing = [name for name in api.__all__ if not hasattr(api, name)]
    assert missing == []
    assert len(api.__all__) >= 60


def test_the_page_lists_exactly_the_public_names() -> None:
    listed = re.findall(r"^- `([A-Za-z_][A-Za-z0-9_]*)`:", TEXT, re.MULTILINE)
    assert len(listed) == len(set(listed)), "a name is listed twice"
    assert sorted(listed) == sorted(api.__all__)


def test_nothing_else_is_public_in_the_module() -> None:
    """A name imported into api.py but not in __all__ would look public by accident."""
    extra = {
        name
        for name in vars(api)
        if not name.startswith("_") and name not in api.__all__ and name != "annotations"
    }
    assert extra == set()


def test_the_example_of_the_page_runs() -> None:
    code = re.search(r"```python\n(.*?)```", TEXT, re.DOTALL)
    assert code is not None
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code.group(1), str(DOC), "exec"), {})
    assert re.search(r"(exact|sampled)$", printed.getvalue().strip())
