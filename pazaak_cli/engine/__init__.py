"""The rules engine: what a card, a ruleset, a position and a side deck are, and how a set is
played. Nothing here knows of solvers, players or the terminal.

``errors`` and ``numbers`` (the errors and numbers read from text), ``cards``, ``rules`` (the
rulesets), ``game`` (states, actions, dealing, the table's arithmetic), ``notation`` (a
position's text form, which round-trips), ``decks`` (side-deck files and the sample decks),
``position_builder`` (a position from the command line's pieces).
"""
