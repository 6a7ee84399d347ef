"""Only the optional C inner loop of the solver is configured here; everything else is in
pyproject.toml. If no C compiler is available the extension is skipped (``optional=True``) and
the solver runs in pure Python, with the same results, more slowly."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "pazaak_cli._fastsolve",
            sources=["pazaak_cli/_fastsolve.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
