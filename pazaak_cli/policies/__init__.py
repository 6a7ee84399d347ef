"""Fixed decision rules of the game, as pure functions of a position: ``kotor_rule`` (the KOTOR I
computer opponent's exact rule) and ``heuristic_rule`` (a good human's rule). The solvers solve
against them; the players play them."""
