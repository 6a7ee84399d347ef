"""The exact solvers and the answers built on them. From the top down:

``budgeted`` (the answer within a time budget: exact where every hidden hand fits, else a
sample of them with intervals), ``advice`` (the entry point for exact advice), ``match_advice``
(a position's moves with their match-win odds, hidden hands averaged), ``hand_rows`` (a
hidden hand solved one possible hand at a time, whatever the opponent model and objective),
``kotor_reply`` and ``match_kotor`` (the best reply to a rule such as KOTOR I's, in a set and
over a match), ``rule_opponent`` (that rule as the opponent's nodes, for both), ``match_native``,
``match_solver``, ``match_cache``, ``match_pipeline`` (the match solver against an optimal
opponent, its C inner loop ``_fastmatch``, its values on disk, the table two processes share),
``solver`` (the set solver against an optimal opponent, its C inner loop ``_fastsolve``, and
the sums every exact average takes), ``sampling`` (the draws of a sampled hidden hand and
their estimate). Both C loops include ``_core.h`` (the memo, progress and Ctrl-C, the Python
glue). docs/architecture.md shows how they fit.
"""
