"""The exact solvers and the answers built on them. From the top down:

``budgeted`` (the answer within a time budget: exact where every hidden hand fits, else a
sample of them with intervals), ``advice`` (the entry point for exact advice), ``match_advice``
(a position's moves with their match-win odds, hidden hands averaged), ``kotor_reply`` and
``match_kotor`` (the best reply to the KOTOR I rule, in a set and over a match),
``match_native``, ``match_solver``, ``match_cache``, ``match_pipeline`` (the match solver, its C
inner loop ``_fastmatch``, its values on disk, the table two processes share), ``solver`` (the
set solver against an optimal opponent, its C inner loop ``_fastsolve``, and the hand-by-hand
loop every averaging uses), ``sampling`` (the draws of a sampled hidden hand and their
estimate). docs/architecture.md shows how they fit.
"""
