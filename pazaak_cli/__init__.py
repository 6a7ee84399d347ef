"""pazaak: play, solve and validate Pazaak, the card game of Star Wars: KOTOR I and II.

The package is laid out in layers. A module imports only modules of its own layer or of the
layers below it, never in a circle, and only at module level; ``tests/test_imports.py`` checks
all three against this list. From the top down:

1. ``__main__``, ``cli``: the ``pazaak`` command group. It imports each command's module by name
   when the command runs (``importlib.import_module``, so that ``pazaak advise`` does not load
   ``play`` and ``simulate``): the one import of a package module made inside a function.
2. ``commands.*``: one module per command (``play_cmd``, ``advise_cmd``, ``chart_cmd``,
   ``follow_cmd``, ``validate_cmd``, ``decks_cmd``, ``simulate_cmd``, ``rules_cmd``) and the
   options they share (``common``, ``deck_option``).
3. ``follow``, ``deckbuild``, ``chart``, ``chart_svg``: a match played in the game, mirrored;
   the deck builder; the basic-strategy chart of a hand (every cell a question to ``advice``)
   and its SVG picture.
4. ``session``, ``simulate``: a match at the keyboard (saved and resumed); tournaments.
5. ``players``: the table of named players (``make_player``) and the rule-based policies
   (``kotor``, ``heuristic``, ``stand17``, ``random``).
6. ``expert``: the exact set and match solvers as players.
7. ``budgeted``, ``advice``, ``match_advice``: the answer within a time budget (exact where
   it fits, else sampled hidden hands with their intervals, refined on demand); the entry point
   for exact advice (``solve_question``, ``advise``), which picks the solver by the objective
   and the opponent model; match advice (a position's moves with their match-win
   probabilities, hidden hands averaged).
8. ``kotor_reply``, ``match_kotor``, ``match_solver``, ``match_native``, ``match_cache``:
   the exact best reply to the KOTOR I computer opponent, in a set and over a match; the exact
   match solver, its C inner loop and its match-state values kept on disk.
9. ``match_pipeline``: the table through which two processes solving the match solver's scores
   at once pass their values.
10. ``solver``: the exact set solver against an optimal opponent.
11. ``kotor_rule``, ``heuristic_rule``: the KOTOR I computer opponent's rule and the heuristic
    player's, as rules of the game (what the best reply over a match is solved against).
12. ``position_builder``, ``notation``, ``decks``, ``savefile``, ``executors``: positions from the
    command line and their text form, side-deck files, save files, where batches of work run.
13. ``game``: the engine (states, actions, dealing, the table's arithmetic).
14. ``rules``, ``cards``, ``numbers``, ``errors``, ``sampling``, ``pazaak_cli`` (this file):
    rulesets, cards, numbers read from text, the errors, the draws of a sampled hidden hand and
    their estimate.
"""

__version__ = "0.1.0"
