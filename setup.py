"""Only the optional C inner loops of the solvers are configured here; everything else is in
pyproject.toml. If no C compiler is available the extensions are skipped (``optional=True``) and
the solver runs in pure Python, with the same results, more slowly. All four include the header
``_core.h`` (their shared memo, progress callback and Python plumbing), and the two replies to a
fixed rule (over a set, ``_fastreply``; over a match, ``_fastkotormatch``) ``_rule.h`` (the
rules' decisions), and the three that place cards themselves (``_fastsolve``, ``_fastmatch``,
building their candidate lists, and ``_fastkotormatch``, the rule's turns) ``_sides.h`` (the
hands and placing a card): a change to a header rebuilds what
includes it (``depends``), and MANIFEST.in ships them in the sdist."""

from setuptools import Extension, setup

CORE_HEADER = "pazaak_cli/solve/_core.h"
RULE_HEADER = "pazaak_cli/solve/_rule.h"
SIDES_HEADER = "pazaak_cli/solve/_sides.h"

setup(
    ext_modules=[
        Extension(
            "pazaak_cli.solve._fastsolve",
            sources=["pazaak_cli/solve/_fastsolve.c"],
            depends=[CORE_HEADER, SIDES_HEADER],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "pazaak_cli.solve._fastreply",
            sources=["pazaak_cli/solve/_fastreply.c"],
            depends=[CORE_HEADER, RULE_HEADER],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "pazaak_cli.solve._fastmatch",
            sources=["pazaak_cli/solve/_fastmatch.c"],
            depends=[CORE_HEADER, SIDES_HEADER],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "pazaak_cli.solve._fastkotormatch",
            sources=["pazaak_cli/solve/_fastkotormatch.c"],
            depends=[CORE_HEADER, RULE_HEADER, SIDES_HEADER],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ]
)
