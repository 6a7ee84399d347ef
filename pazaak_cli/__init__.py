"""pazaak: play, solve and validate Pazaak, the card game of Star Wars: KOTOR I and II.

The package is laid out in layers, one subpackage each. A module imports only modules of its
own package or of the packages below it, never in a circle, and only at module level;
``tests/test_imports.py`` checks all three. From the top down:

1. ``cli``, ``__main__``: the ``pazaak`` command group. It imports each command's module by name
   when the command runs (``importlib.import_module``, so that ``pazaak advise`` does not load
   ``play`` and ``simulate``): the one import of a package module made inside a function.
2. ``commands``: one module per command and the options they share; thin shells that parse,
   call the library and print.
3. ``tools``: what a player does with the library (a match at the keyboard, a game followed,
   tournaments, the deck builder, the strategy chart).
4. ``players``: the named players, rule-based and solver-backed.
5. ``solve``: the exact solvers, their C inner loops, and the answers (exact, or within a time
   budget) built on them.
6. ``policies``: the game's fixed decision rules (the KOTOR I computer's, the heuristic's).
7. ``runtime``: where batches of work run (processes, a Dask cluster) and save files.
8. ``engine``: cards, rulesets, positions and their notation, side decks, the game itself.

docs/architecture.md draws the layers and shows where a new opponent model or objective plugs in.
"""

__version__ = "0.1.0"
