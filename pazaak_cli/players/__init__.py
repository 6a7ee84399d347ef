"""Players that choose an action for a position: ``roster`` (the named players, ``make_player``,
and the rule-based ones) and ``expert`` (the solvers as players)."""
