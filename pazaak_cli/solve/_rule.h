/* The decisions of the fixed rules the C cores can play against, from the rule's own inputs:
 * the KOTOR I rule (pazaak_cli/policies/kotor_rule.py) and the heuristic player's rule
 * (pazaak_cli/policies/heuristic_rule.py), line for line. Included by _fastreply.c (the set reply
 * to a rule) and _fastkotormatch.c (the match reply to a rule), so that each rule is written
 * once in C; each includer gives the rule's few constants of the ruleset and the position in a
 * RuleParams.
 *
 * A rule sees its own total (`mine`), the other player's total (`theirs`) and whether he stands,
 * and the (total reached, flexible) pairs of the cards it tries, in its order; `played`: a card
 * already followed the draw (step 4 only). It answers a try's index, END_TURN or STAND.
 */
#ifndef PAZAAK_RULE_H
#define PAZAAK_RULE_H

/* What a rule answers besides a try's index (policies.kotor_rule.KOTOR_END_TURN, KOTOR_STAND). */
#define END_TURN (-1)
#define STAND (-2)
/* What the KOTOR rule counts a total over the target as (policies.kotor_rule.BUST). */
#define RULE_BUST (-1000000)

/* The rules (RULE_NAMES / NATIVE_RULES in Python name them). */
#define RULE_KOTOR 0
#define RULE_HEURISTIC 1

/* What a rule reads besides the position: which rule, the ruleset's target and sets to win, and
 * the sets the other player has won (the KOTOR rule's step 3). */
typedef struct {
    int rule, target, sets_to_win, their_sets;
} RuleParams;

/* -- the rules' decisions (policies/kotor_rule.py, policies/heuristic_rule.py) ---------------- */

/* Best-up (and the try reaching it, -1 if none improves) and best-down of the KOTOR rule, over
 * `n` tries given as (total, flexible) pairs. */
static void kotor_best_cards(int mine, int target, const int *tries, int n, int *best_up, int *up,
                             int *best_down) {
    if (mine > target) mine = RULE_BUST;
    int bu = mine, bd = mine, index = -1, up_flexible = 0;
    for (int i = 0; i < n; i++) {
        int total = tries[2 * i], flexible = tries[2 * i + 1];
        if (total > target) continue;
        if (total > bu || (total == bu && up_flexible)) {
            bu = total;
            index = i;
            up_flexible = flexible;
        }
        if (total < bd) bd = total;
    }
    *best_up = bu;
    *up = index;
    *best_down = bd;
}

static int kotor_step4(int mine, int theirs, int they_stand, int best_down, int target) {
    if (they_stand && mine < theirs) return END_TURN;
    if (mine < target - 2 && best_down < target - 4) return END_TURN;
    return STAND;
}

static int kotor_decide(const RuleParams *self, int mine, int theirs, int they_stand, const int *tries,
                        int n, int played) {
    int target = self->target, raw = mine;
    if (mine > target) mine = RULE_BUST;
    if (theirs > target) {
        theirs = RULE_BUST;
        they_stand = 1;
    }
    int best_up, up, best_down;
    kotor_best_cards(raw, target, tries, n, &best_up, &up, &best_down);
    if (played) return kotor_step4(mine, theirs, they_stand, best_down, target);
    if (they_stand && theirs < mine) return STAND; /* step 1 */
    if (up >= 0 && theirs <= best_up && best_up >= target - 2 &&
        (best_up == target || (best_up == target - 1 && best_down >= target - 8) ||
         best_down >= target - 6))
        return up; /* step 2 */
    if (raw > target) { /* step 3 */
        if (self->their_sets < self->sets_to_win - 1 && theirs >= target - 2 && best_up < theirs)
            return END_TURN;
        if (up >= 0) return up;
    }
    return kotor_step4(mine, theirs, they_stand, best_down, target);
}

/* The heuristic's try for `total`: the first fixed-sign card reaching it, else the first ± card
 * (-1: none reaches it). */
static int first_reaching(const int *tries, int n, int total) {
    int found = -1;
    for (int i = 0; i < n; i++) {
        if (tries[2 * i] != total) continue;
        if (found < 0 || (tries[2 * found + 1] && !tries[2 * i + 1])) found = i;
    }
    return found;
}

/* The heuristic's try leaving the highest total in (above, target], or -1. */
static int highest_reaching(const int *tries, int n, int above, int target) {
    int best = -1;
    for (int i = 0; i < n; i++) {
        int total = tries[2 * i];
        if (total > above && total <= target && (best < 0 || total > tries[2 * best])) best = i;
    }
    return best < 0 ? -1 : first_reaching(tries, n, tries[2 * best]);
}

static int heuristic_decide(const RuleParams *self, int mine, int theirs, int they_stand, const int *tries,
                            int n, int played) {
    int target = self->target;
    if (!played) {
        int exact = first_reaching(tries, n, target);
        if (exact >= 0) return exact;
        if (mine > target) {
            int rescue = highest_reaching(tries, n, RULE_BUST, target);
            return rescue < 0 ? END_TURN : rescue;
        }
        if (they_stand && mine <= theirs) {
            int passing = highest_reaching(tries, n, theirs, target);
            if (passing >= 0) return passing;
        }
    }
    if (mine > target) return END_TURN;
    if (they_stand) {
        if (mine > theirs) return STAND;
        if (mine < theirs) return END_TURN;
    }
    return mine >= target - 2 ? STAND : END_TURN;
}

static inline int decide(const RuleParams *self, int mine, int theirs, int they_stand, const int *tries,
                         int n, int played) {
    if (self->rule == RULE_HEURISTIC)
        return heuristic_decide(self, mine, theirs, they_stand, tries, n, played);
    return kotor_decide(self, mine, theirs, they_stand, tries, n, played);
}

#endif /* PAZAAK_RULE_H */
