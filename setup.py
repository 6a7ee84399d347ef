"""Only the optional C inner loops of the solvers are configured here; everything else is in
pyproject.toml. If no C compiler is available the extensions are skipped (``optional=True``) and
the solver runs in pure Python, with the same results, more slowly. All three include the header
``_core.h`` (their shared memo, progress callback and Python plumbing): a change to it rebuilds
them (``depends``), and MANIFEST.in ships it in the sdist."""

from setuptools import Extension, setup

CORE_HEADER = "pazaak_cli/solve/_core.h"

setup(
    ext_modules=[
        Extension(
            "pazaak_cli.solve._fastsolve",
            sources=["pazaak_cli/solve/_fastsolve.c"],
            depends=[CORE_HEADER],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "pazaak_cli.solve._fastreply",
            sources=["pazaak_cli/solve/_fastreply.c"],
            depends=[CORE_HEADER],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "pazaak_cli.solve._fastmatch",
            sources=["pazaak_cli/solve/_fastmatch.c"],
            depends=[CORE_HEADER],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ]
)
