"""Only the optional C inner loops of the solvers are configured here; everything else is in
pyproject.toml. If no C compiler is available the extensions are skipped (``optional=True``) and
the solver runs in pure Python, with the same results, more slowly."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pazaak_cli.solve._fastsolve",
            sources=["pazaak_cli/solve/_fastsolve.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(
            "pazaak_cli.solve._fastmatch",
            sources=["pazaak_cli/solve/_fastmatch.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ]
)
