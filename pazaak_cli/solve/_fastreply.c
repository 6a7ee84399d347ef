/* The inner loop of pazaak_cli.solve.kotor_reply.KotorReplySolver, in C: the exact best reply,
 * over one set with fixed draw probabilities, to an opponent that follows a fixed decision rule;
 * or (a core made without probabilities) on the exact deck, drawn without replacement: each
 * position also keyed by the deck's code (exact_draws, in _core.h) and held in an ExactTable.
 *
 * Python keeps the advised player's seat: it interns his sides (small integer ids) and lists his
 * ways to end a turn after a draw (`expand_mine(side, value) -> list id`). The rule's seat is
 * here whole, beside the maximising nodes: its hands come from Python once (each with the plays
 * the rule tries, in its order, and what placing a card needs to know of the hand left), and
 * this module places its cards on the compact side (solver.place_card, place_flip), interns its
 * sides, works out its turn after each draw (rule_opponent.RuleSeat.turn) and makes the rule's
 * decision: the KOTOR I rule and the heuristic player's rule (pazaak_cli/policies), line for
 * line, from the same inputs.
 *
 * Values are pairs (equity, p_win) for the advised player. The recursion, its tie rule between
 * moves (higher equity beyond EPSILON, then higher p_win) and the order of every sum are those of
 * KotorReplySolver's Python methods, so both give the same numbers to the last bit.
 */
#define EPSILON 1e-12

/* The memo (see _core.h): a key is two ids of ID_BITS each, plus one; an entry packs the work it
 * cost beside its key, and a full window forgets its cheapest entry, so that a table at its bound
 * is a cache (values are pure functions of their keys: a forgotten one is computed again). */
#define ID_BITS 24
#define MAX_ID (((uint32_t)1 << ID_BITS) - 1)
#define MEMO_KEY_BITS (2 * ID_BITS + 1)
#define MEMO_WINDOW 8
#define MEMO_HUGE_PAGES 1
#include "_core.h"
#include "_rule.h"

/* The codes of a turn's end that are not sides (rule_opponent.BUSTS and NINE_WINS). */
#define BUSTS (-1)
#define NINE_WINS (-2)
/* END_TURN, STAND, RULE_BUST, RULE_KOTOR, RULE_HEURISTIC and the rules' decisions: _rule.h. */
#define NO_STAND (-1)

/* How a hand card is played (solver.PLAIN, FLIP24, FLIP36, DOUBLE, TIEBREAKER). */
#define PLAIN 0
#define FLIP24 1
#define FLIP36 2
#define DOUBLE 3
#define TIEBREAKER 4
/* A hand's plays are (value, kind, hand left, flexible). */
#define PLAY_INTS 4
/* Hand ids fit in this many bits of a side's packed key. */
#define HAND_BITS 18
/* An exact core's bound on its positions when Python gives none (32 bytes a slot: 1 GiB). */
#define EXACT_REPLY_ENTRIES ((size_t)1 << 25)


static inline uint64_t memo_mix(uint64_t key) {
    key ^= key >> 31;
    key *= 0x9E3779B97F4A7C15ULL;
    key ^= key >> 29;
    return key;
}

static inline void memo_released(size_t bytes) {
    (void)bytes;
}

/* memo_keep, but a table below its bound grows rather than forget an entry of a full window: so
 * that a search within the bound computes each position once, as the Python one does (the
 * positions it counts are then the same, and so is what is decided from that count). */
static inline int keep(Map *m, uint64_t key, double v, double d, uint64_t work) {
    while (m->cap < m->max_cap && !memo_find(m, key)) {
        if (memo_resize(m, m->cap * 2) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    return memo_keep(m, key, v, d, work);
}

static inline uint64_t pair_key(int first, int second) {
    return (((uint64_t)(uint32_t)first << ID_BITS) | (uint32_t)second) + 1;
}

/* One seat's sides: whether each stands, its total and its tiebreak (a standing side's), and per
 * (side, value drawn) what Python worked out for it (a list id, or a turn id; -1: not yet). */
typedef struct {
    int n, cap;
    char *standing;
    int *total;
    char *tiebreak;
    int *after;
} Sides;

/* A side of the rule's seat still playing: solver.py's compact (total, cards, hand, f24, f36,
 * tiebreak). */
typedef struct {
    int total, cards, hand, f24, f36, tiebreak;
} Playing;

/* A turn of the rule's side after a draw, flattened into `data` at its offset:
 *   forced:  0, code
 *   choices: 1, total, end, stand, ntries, (total, flexible) * ntries, then where each play
 *            starts (counted from the turn's own start) * ntries
 *   a play:  total, forced (0/1), forced code, end, stand, nleft, (total, flexible) * nleft
 */
typedef struct {
    PyObject_HEAD
    int ndraws;
    int draw_value[10];
    double draw_p[10];
    int rule, target, sets_to_win, their_sets;
    int size, nine_win, flip_all, any_tiebreak;
    Sides mine, theirs;
    Playing *playing; /* the rule's sides as placed (a standing side's: its total, tiebreak) */
    int capplaying;
    Map side_of;      /* a rule side's packed key -> its id */
    /* the rule's hands: what placing a card needs to know of each, and its plays */
    int nhands, caphands;
    int *flip24, *flip36, *slack, *plays_at, *nplays;
    int nplayints, capplayints;
    int *play_ints;
    /* the advised player's candidate lists */
    CANDIDATE_LISTS
    /* the rule's turns, and its replies: per (side, total faced, standing) the ten codes */
    int nturns, capturns;
    int *turn_at;
    int ndata, capdata;
    int *data;
    int nrows, caprows;
    int *rows;
    Map row_of;
    Map my_before, my_choice, opp_before;
    int exact;             /* drawn without replacement: positions on a deck, in exact_memo */
    ExactTable exact_memo; /* both players' positions before a draw (see exact_key) */
    long long budget;      /* fail once `solved` passes it (-1: none), as Python's budget */
    uint64_t solved; /* positions computed before a draw, either player's (as Python counts) */
    uint64_t reported; /* `solved` at the last progress report (see count_solved) */
    PyObject *expand_mine;
    PyObject *progress;
    int failed;
    int small_pages; /* a short search's: the memo's tables made from now on in small pages at
                        once, not in huge pages (slots_alloc, in _core.h) */
} Core;

#define CALLBACKS(X) X(expand_mine) X(progress)
CORE_GC(CALLBACKS)

static void sides_free(Sides *s) {
    FREE_ALL(s->standing, s->total, s->tiebreak, s->after);
    memset(s, 0, sizeof(*s));
}

static int sides_add(Sides *s, int standing, int tiebreak, int total) {
    if (s->n >= (int)MAX_ID) return fail_status(PyExc_OverflowError, "more sides than the C core's keys can hold");
    if (s->n == s->cap) {
        int cap = s->cap ? s->cap * 2 : 1024;
        if (grow((void **)&s->standing, cap, 1) < 0 || grow((void **)&s->total, cap, sizeof(int)) < 0 ||
            grow((void **)&s->tiebreak, cap, 1) < 0 || grow((void **)&s->after, cap * 11, sizeof(int)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        s->cap = cap;
    }
    int id = s->n++;
    s->standing[id] = (char)standing;
    s->tiebreak[id] = (char)tiebreak;
    s->total[id] = total;
    for (int v = 0; v < 11; v++) s->after[id * 11 + v] = -1;
    return id;
}

static void core_dealloc(Core *self) {
    PyObject_GC_UnTrack(self);
    core_clear(self);
    sides_free(&self->mine);
    sides_free(&self->theirs);
    FREE_ALL(self->list_start, self->list_len, self->codes, self->turn_at, self->data, self->rows,
             self->playing, self->flip24, self->flip36, self->slack, self->plays_at, self->nplays,
             self->play_ints);
    memo_free(&self->row_of);
    memo_free(&self->side_of);
    memo_free(&self->my_before);
    memo_free(&self->my_choice);
    memo_free(&self->opp_before);
    exact_free(&self->exact_memo);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int core_init(Core *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    PyObject *probabilities, *expand_mine, *rules;
    int rule, their_sets;
    Py_ssize_t max_entries = 0; /* per memo table; 0: unbounded */
    if (!PyArg_ParseTuple(args, "OOiOi|n", &probabilities, &expand_mine, &rule, &rules,
                          &their_sets, &max_entries))
        return -1;
    if (rule != RULE_KOTOR && rule != RULE_HEURISTIC)
        return fail_status(PyExc_ValueError, "no such rule in the C core");
    if (!PyCallable_Check(expand_mine))
        return fail_status(PyExc_TypeError, "expand_mine must be callable");
    /* the ruleset: (target, sets to win, table size, nine cards win, flips turn every sign,
     * any tiebreaker played counts) */
    if (!PyArg_ParseTuple(rules, "iiippp", &self->target, &self->sets_to_win, &self->size,
                          &self->nine_win, &self->flip_all, &self->any_tiebreak))
        return -1;
    size_t max_cap = (size_t)1 << 62;
    if (max_entries > 0) {
        max_cap = 1 << 10; /* the largest power of two within the bound (at least 1024) */
        while (max_cap * 2 <= (size_t)max_entries) max_cap *= 2;
    }
    self->budget = -1;
    if (probabilities == Py_None) { /* the exact deck: the rule's replies to every value */
        self->exact = 1;
        self->ndraws = 10;
        for (int i = 0; i < 10; i++) self->draw_value[i] = i + 1;
        exact_free(&self->exact_memo);
        self->exact_memo.max_cap = max_entries > 0 ? max_cap : EXACT_REPLY_ENTRIES;
    } else if (read_probabilities(probabilities, &self->ndraws, self->draw_value, self->draw_p) <
               0) {
        return -1;
    }
    self->rule = rule;
    self->their_sets = their_sets;
    Py_INCREF(expand_mine);
    Py_XSETREF(self->expand_mine, expand_mine);
    Map *maps[] = {&self->my_before, &self->my_choice, &self->opp_before};
    for (int i = 0; i < 3; i++) {
        memo_free(maps[i]);
        maps[i]->small_pages = &self->small_pages;
        if (memo_init(maps[i], 1 << 12, max_cap) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    memo_free(&self->side_of);
    if (memo_init(&self->side_of, 1 << 12, (size_t)1 << 62) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    memo_free(&self->row_of);
    if (memo_init(&self->row_of, 1 << 12, (size_t)1 << 62) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* -- what Python adds ------------------------------------------------------------------------- */

static PyObject *add_side(Sides *sides, PyObject *args) {
    int standing, tiebreak, total;
    if (!PyArg_ParseTuple(args, "ppi", &standing, &tiebreak, &total)) return NULL;
    int id = sides_add(sides, standing, tiebreak, total);
    return id < 0 ? NULL : PyLong_FromLong(id);
}

PyDoc_STRVAR(core_add_mine_doc, "add_mine(standing, tiebreak, total) -> the advised player's next side id");
static PyObject *core_add_mine(Core *self, PyObject *args) {
    return add_side(&self->mine, args);
}

CORE_ADD_LIST(MAX_ID)

PyDoc_STRVAR(core_set_list_doc, "set_list(side, value, list): the advised side's candidate list after drawing value");
static PyObject *core_set_list(Core *self, PyObject *args) {
    int side, value, list;
    if (!PyArg_ParseTuple(args, "iii", &side, &value, &list)) return NULL;
    if (side < 0 || side >= self->mine.n || value < 1 || value > 10 || list < 0 || list >= self->nlists)
        return fail(PyExc_IndexError, "no such side, value or list");
    self->mine.after[side * 11 + value] = list;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_add_hand_doc,
             "add_hand(flip24, flip36, slack, plays) -> the rule's next hand id; plays: (value, "
             "kind, hand left, flexible) for each try, in the rule's order");
static PyObject *core_add_hand(Core *self, PyObject *args) {
    int flip24, flip36, slack;
    PyObject *items;
    if (!PyArg_ParseTuple(args, "ppiO", &flip24, &flip36, &slack, &items)) return NULL;
    if (self->nhands >= (1 << HAND_BITS) - 1)
        return fail(PyExc_OverflowError, "more hands than the C core's keys can hold");
    PyObject *seq = PySequence_Fast(items, "plays must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (self->nhands == self->caphands) {
        int cap = self->caphands ? self->caphands * 2 : 256;
        if (grow((void **)&self->flip24, cap, sizeof(int)) < 0 ||
            grow((void **)&self->flip36, cap, sizeof(int)) < 0 ||
            grow((void **)&self->slack, cap, sizeof(int)) < 0 ||
            grow((void **)&self->plays_at, cap, sizeof(int)) < 0 ||
            grow((void **)&self->nplays, cap, sizeof(int)) < 0) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        self->caphands = cap;
    }
    if (codes_room(&self->play_ints, self->nplayints, &self->capplayints, n * PLAY_INTS) < 0) {
        Py_DECREF(seq);
        return NULL;
    }
    int start = self->nplayints;
    for (Py_ssize_t i = 0; i < n; i++) {
        int *play = self->play_ints + start + i * PLAY_INTS;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iiip", &play[0], &play[1],
                              &play[2], &play[3])) {
            Py_DECREF(seq);
            return NULL;
        }
        if (play[1] < PLAIN || play[1] > TIEBREAKER || play[2] < 0 ||
            play[2] >= (1 << HAND_BITS) - 1) {
            Py_DECREF(seq);
            return fail(PyExc_ValueError, "a play names no kind or no hand");
        }
    }
    Py_DECREF(seq);
    self->nplayints = start + (int)n * PLAY_INTS;
    int id = self->nhands++;
    self->flip24[id] = flip24;
    self->flip36[id] = flip36;
    self->slack[id] = slack;
    self->plays_at[id] = start;
    self->nplays[id] = (int)n;
    return PyLong_FromLong(id);
}

/* -- the rule's seat: its sides, its cards placed (solver.place_card, place_flip) -------------- */

/* The id of the rule's side (playing, or standing when `standing`), interned; -1 on failure. */
static int their_side(Core *self, const Playing *side, int standing) {
    /* (8 bits a number, offset by 128: totals and flippable sums stay within -128..127) */
    int fields[3] = {side->total, standing ? 0 : side->f24, standing ? 0 : side->f36};
    for (int i = 0; i < 3; i++)
        if (fields[i] < -128 || fields[i] > 127) {
            PyErr_SetString(PyExc_OverflowError, "a total beyond what the C core's keys can hold");
            return -1;
        }
    uint64_t key = standing ? 0 : (((uint64_t)side->hand << 4) | (uint64_t)side->cards);
    for (int i = 0; i < 3; i++) key = (key << 8) | (uint64_t)(fields[i] + 128);
    key = ((key << 2) | ((uint64_t)side->tiebreak << 1) | (uint64_t)standing) + 1;
    double found, unused;
    if (memo_read(&self->side_of, key, &found, &unused)) return (int)found;
    int id = sides_add(&self->theirs, standing, side->tiebreak, side->total);
    if (id < 0) return -1;
    if (self->theirs.n > self->capplaying) {
        int cap = self->theirs.cap;
        if (grow((void **)&self->playing, cap, sizeof(Playing)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        self->capplaying = cap;
    }
    self->playing[id] = *side;
    if (keep(&self->side_of, key, (double)id, 0.0, 0) < 0) return -1;
    return id;
}

static Playing place_card(const Core *self, const Playing *side, int value, int hand) {
    Playing p = *side;
    int magnitude = value > 0 ? value : -value;
    int counts = value > 0 || self->flip_all;
    if (!self->flip24[hand])
        p.f24 = 0;
    else if (counts && (magnitude == 2 || magnitude == 4))
        p.f24 += value;
    if (!self->flip36[hand])
        p.f36 = 0;
    else if (counts && (magnitude == 3 || magnitude == 6))
        p.f36 += value;
    p.total += value;
    p.cards += 1;
    if (p.cards < p.total + self->slack[hand]) p.cards = 0; /* the count no longer matters */
    p.hand = hand;
    return p;
}

static Playing place_flip(const Core *self, const Playing *side, int flips_2_4, int hand) {
    Playing p = *side;
    int turned = flips_2_4 ? p.f24 : p.f36;
    p.total -= 2 * turned;
    int after = self->flip_all ? -turned : 0;
    if (flips_2_4)
        p.f24 = after;
    else
        p.f36 = after;
    p.cards += 1;
    if (p.cards < p.total + self->slack[hand]) p.cards = 0;
    if (!self->flip24[hand]) p.f24 = 0;
    if (!self->flip36[hand]) p.f36 = 0;
    p.hand = hand;
    return p;
}

/* A side after playing `play` (a hand's PLAY_INTS) right after drawing `drawn`. */
static Playing play_card(const Core *self, const Playing *side, int drawn, const int *play) {
    int value = play[0], kind = play[1], rest = play[2];
    if (kind == PLAIN) return place_card(self, side, value, rest);
    if (kind == DOUBLE) return place_card(self, side, drawn, rest);
    if (kind == TIEBREAKER) {
        Playing p = place_card(self, side, value, rest);
        if (self->any_tiebreak) p.tiebreak = 1;
        return p;
    }
    return place_flip(self, side, kind == FLIP24, rest);
}

/* The standing form of a playing side (its hand no longer matters in a set). */
static int stands(Core *self, const Playing *side, int tiebreaker_last) {
    Playing p = {side->total, 0, 0, 0, 0, side->tiebreak || (tiebreaker_last && !self->any_tiebreak)};
    return their_side(self, &p, 1);
}

/* The first of the end codes of RuleSeat.end_codes (the one the rules force where they do);
 * with `stand`, also the code of standing on a free end. -3 on failure. */
static int end_code(Core *self, const Playing *side, int tiebreaker_last, int full, int *stand) {
    int target = self->target;
    if (!full && side->total < target) {
        int ends = their_side(self, side, 0);
        if (ends < 0) return -3;
        if (stand && (*stand = stands(self, side, tiebreaker_last)) < 0) return -3;
        return ends;
    }
    if (side->total > target) return BUSTS; /* (over the target, on the ninth card or not) */
    if (full && self->nine_win) return NINE_WINS;
    int code = stands(self, side, tiebreaker_last);
    return code < 0 ? -3 : code;
}

/* Append ints to the turns' data (-1: no memory, an exception set). */
static int put(Core *self, const int *ints, int n) {
    if (codes_room(&self->data, self->ndata, &self->capdata, n) < 0) return -1;
    memcpy(self->data + self->ndata, ints, sizeof(int) * (size_t)n);
    self->ndata += n;
    return 0;
}

/* The rule side `opp`'s turn after drawing `value` (RuleSeat.turn), flattened into `data` as
 * described above; its id, or -1 on failure. */
static int build_turn(Core *self, int opp, int value) {
    Playing placed = place_card(self, &self->playing[opp], value, self->playing[opp].hand);
    int target = self->target, size = self->size, total = placed.total, hand = placed.hand;
    if (codes_room(&self->turn_at, self->nturns, &self->capturns, 1) < 0) return -1;
    int start = self->ndata;
    if (placed.cards >= size || total == target) {
        int code = end_code(self, &placed, 0, placed.cards >= size, NULL);
        int forced[2] = {0, code};
        if (code == -3 || put(self, forced, 2) < 0) return -1;
    } else {
        int over = total > target, end = BUSTS, stand = NO_STAND;
        if (!over && ((end = their_side(self, &placed, 0)) < 0 || (stand = stands(self, &placed, 0)) < 0))
            return -1;
        int n = self->nplays[hand];
        const int *plays = self->play_ints + self->plays_at[hand];
        int head = 5 + 3 * n;
        if (codes_room(&self->data, self->ndata, &self->capdata, head) < 0) return -1;
        int *t = self->data + start;
        t[0] = 1;
        t[1] = total;
        t[2] = end;
        t[3] = stand;
        t[4] = n;
        self->ndata += head;
        for (int i = 0; i < n; i++) {
            const int *play = plays + i * PLAY_INTS;
            Playing after = play_card(self, &placed, value, play);
            int kind = play[1], tiebreaker = kind == TIEBREAKER;
            int at = self->ndata - start;
            if (after.cards >= size || after.total >= target) {
                int forced = end_code(self, &after, tiebreaker, after.cards >= size, NULL);
                if (forced == -3) return -1;
                int row[6] = {after.total, 1, forced, NO_STAND, NO_STAND, 0};
                if (put(self, row, 6) < 0) return -1;
            } else {
                int last = kind == DOUBLE ? value : (kind == FLIP24 || kind == FLIP36) ? 0 : play[0];
                int stood = stands(self, &after, tiebreaker);
                int ends = stood < 0 ? -1 : their_side(self, &after, 0);
                if (ends < 0) return -1;
                int nleft = self->nplays[after.hand];
                const int *rests = self->play_ints + self->plays_at[after.hand];
                int row[6] = {after.total, 0, 0, ends, stood, nleft};
                if (put(self, row, 6) < 0) return -1;
                for (int k = 0; k < nleft; k++) {
                    const int *rest = rests + k * PLAY_INTS;
                    Playing then = play_card(self, &after, last, rest);
                    int pair[2] = {then.total, rest[3]};
                    if (put(self, pair, 2) < 0) return -1;
                }
            }
            t = self->data + start; /* (the data may have moved) */
            t[5 + 2 * i] = after.total;
            t[6 + 2 * i] = play[3];
            t[5 + 2 * n + i] = at;
        }
    }
    int id = self->nturns++;
    self->turn_at[id] = start;
    self->theirs.after[opp * 11 + value] = id;
    return id;
}

/* -- the rules' decisions (_rule.h) ------------------------------------------------------------ */

static inline int core_rule_decide(const Core *self, int mine, int theirs, int they_stand,
                                   const int *tries, int n, int played) {
    RuleParams params = {self->rule, self->target, self->sets_to_win, self->their_sets};
    return decide(&params, mine, theirs, they_stand, tries, n, played);
}

/* -- the rule's replies ------------------------------------------------------------------------ */

/* The turn-end code the rule reaches from its side `opp` after drawing `value`, facing the
 * advised player's total `theirs` (standing or not), as RuleSeat.reply; -2 on failure. */
static int reply(Core *self, int opp, int value, int theirs, int they_stand) {
    int turn = self->theirs.after[opp * 11 + value];
    if (turn < 0 && (turn = build_turn(self, opp, value)) < 0) return -2;
    const int *t = self->data + self->turn_at[turn];
    if (t[0] == 0) return t[1];
    int total = t[1], end = t[2], stand = t[3], ntries = t[4];
    const int *tries = t + 5;
    int choice = core_rule_decide(self, total, theirs, they_stand, tries, ntries, 0);
    if (choice == END_TURN) return end;
    if (choice == STAND) return stand;
    const int *play = t + t[5 + 2 * ntries + choice];
    if (play[1]) return play[2];
    int then = core_rule_decide(self, play[0], theirs, they_stand, play + 6, play[5], 1);
    return then == END_TURN ? play[3] : play[4];
}

/* The rule's ten codes (index 1..10) from `opp` facing (theirs, they_stand); NULL on failure. */
static const int *replies(Core *self, int opp, int theirs, int they_stand) {
    uint64_t key = (((((uint64_t)(uint32_t)opp << 12) | (uint32_t)(theirs + 1024)) << 1) | (uint64_t)they_stand) + 1;
    double found, unused;
    if (memo_read(&self->row_of, key, &found, &unused)) return self->rows + (size_t)found * 11;
    int codes[11] = {0};
    for (int i = 0; i < self->ndraws; i++) {
        int value = self->draw_value[i];
        int code = reply(self, opp, value, theirs, they_stand);
        if (code == -2 && PyErr_Occurred()) return NULL;
        codes[value] = code;
    }
    if (self->nrows == self->caprows) {
        int cap = self->caprows ? self->caprows * 2 : 1024;
        if (grow((void **)&self->rows, cap * 11, sizeof(int)) < 0) {
            PyErr_NoMemory();
            return NULL;
        }
        self->caprows = cap;
    }
    int row = self->nrows++;
    memcpy(self->rows + (size_t)row * 11, codes, sizeof(codes));
    if (keep(&self->row_of, key, (double)row, 0.0, 0) < 0) return NULL;
    return self->rows + (size_t)row * 11;
}

/* -- the recursion (KotorReplySolver.my_before_draw, opp_before_draw, after_my_turn) ----------- */

static void opp_before(Core *self, int me, int opp, int deck, double *e, double *w);

/* Both stand: the higher total wins; equal totals go to a lone tiebreaker. */
static inline void judge(const Core *self, int me, int opp, double *e, double *w) {
    int a = self->mine.total[me], b = self->theirs.total[opp];
    if (a != b) {
        *e = a > b ? 1.0 : -1.0;
        *w = a > b ? 1.0 : 0.0;
    } else if (self->mine.tiebreak[me] != self->theirs.tiebreak[opp]) {
        *e = self->mine.tiebreak[me] ? 1.0 : -1.0;
        *w = self->mine.tiebreak[me] ? 1.0 : 0.0;
    } else {
        *e = 0.0;
        *w = 0.0;
    }
}

/* A new position to compute: counted (progress, Ctrl-C), and refused past the budget as Python's
 * _new_state refuses it (`solved` counts what Python's `states` counts while nothing is
 * forgotten). -1: failed, an exception set. */
static int count_position(Core *self) {
    if (count_solved(&self->solved, &self->reported, self->progress) < 0) {
        self->failed = 1;
        return -1;
    }
    if (self->budget >= 0 && (long long)self->solved > self->budget) {
        PyErr_SetString(PyExc_OverflowError, "the exact solve exceeds its state budget");
        self->failed = 1;
        return -1;
    }
    return 0;
}

/* An exact core's key of a position before a draw: the pair's key beside the deck's code and
 * whose draw it is (the advised player's 0, the rule's 1). */
static inline PosKey exact_key(uint64_t key, int deck, int rules_draw) {
    PosKey k = {key - 1, (((uint64_t)deck << 1) | (uint64_t)rules_draw) + 1};
    return k;
}

/* Whether the position before a draw `key` is held: in `memo` with fixed odds, in the exact
 * table on the exact deck `deck`. */
static inline int held(Core *self, Map *memo, uint64_t key, int deck, int rules_draw, double *e,
                       double *w) {
    if (!self->exact) return memo_read(memo, key, e, w);
    const ExactEntry *found = exact_get(&self->exact_memo, exact_key(key, deck, rules_draw));
    if (!found) return 0;
    *e = found->v;
    *w = found->d;
    return 1;
}

/* Keep a position before a draw where `held` looks for it. -1: failed (set), `failed` too. */
static inline int store(Core *self, Map *memo, uint64_t key, int deck, int rules_draw, double e,
                        double w, uint64_t work) {
    int status = self->exact ? exact_put(&self->exact_memo, exact_key(key, deck, rules_draw), e, w, work)
                             : keep(memo, key, e, w, work);
    if (status < 0) self->failed = 1;
    return status;
}

/* On an exact deck a position after a draw (the advised player's best end of turn) is not kept,
 * as in the set core: it is the best of a few positions before the next draw, which are. */
static void my_before(Core *self, int me, int opp, int deck, double *e, double *w) {
    uint64_t key = pair_key(me, opp);
    if (held(self, &self->my_before, key, deck, 0, e, w)) return;
    uint64_t started = self->solved;
    if (count_position(self) < 0) return;
    int opp_stands = self->theirs.standing[opp];
    Draws made;
    DrawList draws = draw_list(self->exact, deck, self->ndraws, self->draw_value, self->draw_p, &made);
    double equity = 0.0, p_win = 0.0;
    for (int i = 0; i < draws.n; i++) {
        int value = draws.value[i], rest = draws.rest[i];
        int list = self->mine.after[me * 11 + value];
        if (list < 0 && (list = call_expand(self->expand_mine, me, value, &self->nlists)) < 0) {
            self->failed = 1;
            return;
        }
        uint64_t choice_key = pair_key(list, opp);
        double be, bw;
        if (self->exact || !memo_read(&self->my_choice, choice_key, &be, &bw)) {
            uint64_t choice_started = self->solved;
            be = -1.0;
            bw = 0.0;
            int start = self->list_start[list], len = self->list_len[list];
            for (int k = 0; k < len; k++) {
                int code = self->codes[start + k];
                double ce, cw;
                if (code < 0) {
                    ce = code == BUSTS ? -1.0 : 1.0;
                    cw = code == BUSTS ? 0.0 : 1.0;
                } else if (opp_stands && self->mine.standing[code]) {
                    judge(self, code, opp, &ce, &cw);
                } else {
                    if (opp_stands)
                        my_before(self, code, opp, rest, &ce, &cw);
                    else
                        opp_before(self, code, opp, rest, &ce, &cw);
                    if (self->failed) return;
                }
                if (ce > be + EPSILON || (ce > be - EPSILON && cw > bw)) {
                    be = ce;
                    bw = cw;
                    if (be >= 1.0 - EPSILON) break; /* a certain win cannot be beaten */
                }
            }
            if (!self->exact &&
                keep(&self->my_choice, choice_key, be, bw, self->solved - choice_started) < 0) {
                self->failed = 1;
                return;
            }
        }
        equity += draws.p[i] * be;
        p_win += draws.p[i] * bw;
    }
    if (store(self, &self->my_before, key, deck, 0, equity, p_win, self->solved - started) < 0)
        return;
    *e = equity;
    *w = p_win;
}

static void opp_before(Core *self, int me, int opp, int deck, double *e, double *w) {
    uint64_t key = pair_key(me, opp);
    if (held(self, &self->opp_before, key, deck, 1, e, w)) return;
    uint64_t started = self->solved;
    if (count_position(self) < 0) return;
    int they_stand = self->mine.standing[me];
    const int *row = replies(self, opp, self->mine.total[me], they_stand);
    if (!row) {
        self->failed = 1;
        return;
    }
    int codes[11];
    memcpy(codes, row, sizeof(codes)); /* (the rows may move as the recursion adds some) */
    Draws made;
    DrawList draws = draw_list(self->exact, deck, self->ndraws, self->draw_value, self->draw_p, &made);
    double equity = 0.0, p_win = 0.0;
    for (int i = 0; i < draws.n; i++) {
        int code = codes[draws.value[i]];
        double ce, cw;
        if (code < 0) {
            ce = code == BUSTS ? 1.0 : -1.0;
            cw = code == BUSTS ? 1.0 : 0.0;
        } else if (they_stand && self->theirs.standing[code]) {
            judge(self, me, code, &ce, &cw);
        } else {
            if (they_stand)
                opp_before(self, me, code, draws.rest[i], &ce, &cw);
            else
                my_before(self, me, code, draws.rest[i], &ce, &cw);
            if (self->failed) return;
        }
        equity += draws.p[i] * ce;
        p_win += draws.p[i] * cw;
    }
    if (store(self, &self->opp_before, key, deck, 1, equity, p_win, self->solved - started) < 0)
        return;
    *e = equity;
    *w = p_win;
}

PyDoc_STRVAR(core_after_my_turn_doc,
             "after_my_turn(code, opp, deck=0) -> (equity, p_win) once the advised player's turn "
             "ended as code (deck: an exact core's deck code)");
static PyObject *core_after_my_turn(Core *self, PyObject *args) {
    int code, opp, deck = 0;
    if (!PyArg_ParseTuple(args, "ii|i", &code, &opp, &deck)) return NULL;
    if (opp < 0 || opp >= self->theirs.n || code >= self->mine.n || code < NINE_WINS)
        return fail(PyExc_IndexError, "no such side");
    if (deck < 0 || deck > (self->exact ? FULL_DECK_CODE : 0))
        return fail(PyExc_ValueError, "no such deck (an exact core's is a code, else 0)");
    double e = 0.0, w = 0.0;
    self->failed = 0;
    if (code < 0) {
        e = code == BUSTS ? -1.0 : 1.0;
        w = code == BUSTS ? 0.0 : 1.0;
    } else if (self->theirs.standing[opp]) {
        if (self->mine.standing[code])
            judge(self, code, opp, &e, &w);
        else
            my_before(self, code, opp, deck, &e, &w);
    } else {
        opp_before(self, code, opp, deck, &e, &w);
    }
    if (self->failed) return NULL;
    return Py_BuildValue("(dd)", e, w);
}

PyDoc_STRVAR(core_decide_doc,
             "decide(mine, theirs, they_stand, tries, played) -> the rule's choice: a try's index, "
             "-1 end the turn, -2 stand (the rule's own inputs; for the tests)");
static PyObject *core_decide(Core *self, PyObject *args) {
    int mine, theirs, they_stand, played;
    PyObject *items;
    if (!PyArg_ParseTuple(args, "iipOp", &mine, &theirs, &they_stand, &items, &played)) return NULL;
    PyObject *seq = PySequence_Fast(items, "tries must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int *tries = malloc(sizeof(int) * (size_t)(2 * n + 1));
    if (!tries) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int total, flexible;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ip", &total, &flexible)) {
            free(tries);
            Py_DECREF(seq);
            return NULL;
        }
        tries[2 * i] = total;
        tries[2 * i + 1] = flexible;
    }
    Py_DECREF(seq);
    int choice = core_rule_decide(self, mine, theirs, they_stand, tries, (int)n, played);
    free(tries);
    return PyLong_FromLong(choice);
}

PyDoc_STRVAR(core_their_side_doc,
             "their_side(total, cards, hand, f24, f36, tiebreak, standing) -> the id of the rule's "
             "side (a standing side: its total and tiebreak)");
static PyObject *core_their_side(Core *self, PyObject *args) {
    Playing side;
    int standing;
    if (!PyArg_ParseTuple(args, "iiiiipp", &side.total, &side.cards, &side.hand, &side.f24,
                          &side.f36, &side.tiebreak, &standing))
        return NULL;
    if (!standing && (side.hand < 0 || side.hand >= self->nhands || side.cards < 0 || side.cards > 15))
        return fail(PyExc_IndexError, "no such hand, or a count out of range");
    if (standing) side.hand = side.cards = side.f24 = side.f36 = 0;
    int id = their_side(self, &side, standing);
    return id < 0 ? NULL : PyLong_FromLong(id);
}

PyDoc_STRVAR(core_forget_theirs_doc,
             "forget_theirs(): drop the rule's sides, turns and replies, and every value (keyed by them)");
static PyObject *core_forget_theirs(Core *self, PyObject *unused) {
    (void)unused;
    self->theirs.n = 0;
    self->nturns = self->ndata = self->nrows = 0;
    memo_clear(&self->side_of);
    memo_clear(&self->row_of);
    memo_clear(&self->my_before);
    memo_clear(&self->my_choice);
    memo_clear(&self->opp_before);
    exact_clear(&self->exact_memo);
    Py_RETURN_NONE;
}

static PyObject *core_get_solved(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->solved);
}

static PyObject *core_get_replaced(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->my_before.replaced + self->my_choice.replaced +
                             self->opp_before.replaced + self->exact_memo.replaced);
}

static PyObject *core_get_exact_states(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->exact_memo.size);
}

static PyObject *core_get_memo_bytes(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t((self->my_before.cap + self->my_choice.cap + self->opp_before.cap) * sizeof(Entry) +
                             self->exact_memo.cap * sizeof(ExactEntry));
}

/* What the rule's sides, turns and replies hold (their tables counted at half load), which
 * grows with every hand of an average until forget_theirs: about 5 kB a side, its replies to
 * every total it faces most of it. */
static PyObject *core_get_their_bytes(Core *self, void *closure) {
    (void)closure;
    size_t side = sizeof(Playing) + 2 * sizeof(char) + (1 + 11) * sizeof(int);
    size_t bytes = (size_t)self->theirs.n * side + (size_t)self->nturns * sizeof(int) +
                   (size_t)self->ndata * sizeof(int) + (size_t)self->nrows * 11 * sizeof(int) +
                   2 * (self->side_of.size + self->row_of.size) * sizeof(Entry);
    return PyLong_FromSize_t(bytes);
}

static PyGetSetDef core_getset[] = {
    GETTER(solved, "positions computed before a draw so far (again if forgotten)"),
    GETTER(replaced, "memo entries forgotten to bound the memory"),
    GETTER(memo_bytes, "bytes the memo tables take now (an exact core's positions too)"),
    GETTER(exact_states, "an exact core: positions held in its table now"),
    BUDGET_ATTRIBUTE("raise OverflowError once more than this many positions were computed (None: no budget)"),
    FLAG_ATTRIBUTE(small_pages, "a short search: the memo's large tables made from now on in small pages at once, not in huge pages"),
    GETTER(their_bytes, "bytes the rule's sides, turns and replies hold now (forget_theirs frees them for reuse)"),
    COUNT(mine_sides, mine.n, "the advised player's sides added"),
    COUNT(their_sides, theirs.n, "the rule's sides interned"),
    COUNT(hands, nhands, "the rule's hands added"),
    COUNT(lists, nlists, "candidate lists added"),
    PROGRESS_ATTRIBUTE("progress(solved) is called every so many positions in a long search (or None)"),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef core_methods[] = {
    METHOD(add_mine, VARARGS),   METHOD(add_list, VARARGS),      METHOD(set_list, VARARGS),
    METHOD(add_hand, VARARGS),   METHOD(their_side, VARARGS),    METHOD(after_my_turn, VARARGS),
    METHOD(decide, VARARGS),     METHOD(forget_theirs, NOARGS),  {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType =
    CORE_TYPE("pazaak_cli.solve._fastreply.Core",
              "The memoised best reply over a set to a fixed rule, with fixed draw probabilities or on the exact deck (see kotor_reply.py).");

static struct PyModuleDef module = CORE_MODULE(
    "_fastreply",
    "The optional C inner loop of pazaak_cli.solve.kotor_reply (pure Python is used without it).");

PyMODINIT_FUNC PyInit__fastreply(void) {
    PyObject *m = core_module(&module, &CoreType);
    if (m && (PyModule_AddIntConstant(m, "MAX_IDS", (long)MAX_ID) < 0 ||
              PyModule_AddIntConstant(m, "RULE_KOTOR", RULE_KOTOR) < 0 ||
              PyModule_AddIntConstant(m, "RULE_HEURISTIC", RULE_HEURISTIC) < 0))
        Py_CLEAR(m);
    return m;
}
