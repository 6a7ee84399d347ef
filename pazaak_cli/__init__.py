"""pazaak: play, solve and validate Pazaak, the card game of Star Wars: KOTOR I and II.

The package is laid out in layers, one subpackage each. A module imports only modules of its
own package or of the packages below it, never in a circle, and only at module level;
``tests/test_imports.py`` checks all three. From the top down:

1. ``cli``, ``__main__``, ``api``: the ``pazaak`` command group, which imports each command's
   module by name when the command runs (``importlib.import_module``, so that ``pazaak
   advise`` does not load ``play`` and ``simulate``): the one import of a package module made
   inside a function; and the public Python API (docs/api.md), the names a program imports.
2. ``commands``: one module per command and the options they share; thin shells that parse,
   ask the library and print.
3. ``terminal``: what a person at a terminal reads and types, written once for every command
   (colour, wrapped lines, progress bars, typed lines, the table of moves, a match's events and
   board, the hint of ``play``).
4. ``rl``: the Gymnasium and PettingZoo environments (the optional ``rl`` extra: only this
   package imports gymnasium and pettingzoo; nothing imports it but a program).
5. ``tools``: what a player does with the library (a match at the keyboard, a game followed,
   tournaments, the deck builder, the strategy chart, the engine protocol).
6. ``players``: the named players, rule-based and solver-backed.
7. ``solve``: the exact solvers, their C inner loops, and the answer service (exact, or within
   a time budget) built on them.
8. ``policies``: the game's fixed decision rules (the KOTOR I computer's, the heuristic's).
9. ``runtime``: where batches of work run (processes, a Dask cluster) and save files.
10. ``engine``: cards, rulesets, positions and their notation, side decks, the game itself.

docs/architecture.md draws the layers and shows where a new opponent model or objective plugs in.
"""

__version__ = "0.1.0"
