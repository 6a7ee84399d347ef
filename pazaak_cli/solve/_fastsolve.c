/* The inner loop of pazaak_cli.solve.solver.SetSolver, in C.
 *
 * Python interns the hands (with their plays, handed here by add_hands) and the sides of a
 * question's root (intern_side); this module interns every side and candidate list the search
 * reaches (the distinct ways a turn can end after a draw, built by the same rules as
 * SetSolver._candidate_list: place_card, place_flip, the plays, the turn's ends, the best stand
 * only) and runs the memoised expectimax over (mover side, other side) pairs with fixed draw
 * probabilities, exactly as SetSolver.before_draw / after_draw / candidate_value do in Python;
 * or (a core made without probabilities) on the exact deck, drawn without replacement: each
 * position also keyed by the deck's code (exact_draws, in _core.h) and held in an ExactTable.
 * (The lists were built in Python, called back for each: a sixth of a kotor2 set answer.)
 *
 * Values are pairs (equity, p_win) for the player to move; the other side's view of (e, w) is
 * (-e, w - e). Ties between moves are broken exactly as in Python: higher equity (beyond
 * EPSILON), then higher p_win.
 */
#define EPSILON 1e-12
#define LOSS_MOVE (-1)
#define WIN_MOVE (-2)

/* The memo (see _core.h): an entry packs its key (two ids of ID_BITS each, plus one) with the
 * round of searches that stored it, in 4 bits, and the work it cost, in 12 bits
 * (positions solved to compute it, what forgetting it would cost): 24 bytes, a quarter less
 * memory to zero and to read than a key and a count apart. A key lives within 8 slots of its
 * home slot. A table that may not grow any more (its `max_cap`) is a cache: a new key takes the
 * empty slot of its window or, when there is none, the slot of the entry of an earlier round
 * that cost the least work to compute, else of this round's cheapest (values are pure functions
 * of their keys: a forgotten one is computed again, the same). The memory is then bounded by
 * max_cap. Python begins a round with each hidden hand it averages (next_round): the positions
 * the hands done stored go first. */
#define ID_BITS 24
#define MAX_ID (((uint32_t)1 << ID_BITS) - 1)
#define MEMO_KEY_BITS (2 * ID_BITS)
#define MEMO_ROUND_BITS 4
#define MEMO_WINDOW 8
#define MEMO_HUGE_PAGES 1
#include "_core.h"

/* An exact core's bound on its positions when Python gives none (32 bytes a slot: 1 GiB). */
#define EXACT_SET_ENTRIES ((size_t)1 << 25)

static inline uint64_t memo_mix(uint64_t key) {
    key ^= key >> 31;
    key *= 0x9E3779B97F4A7C15ULL;
    key ^= key >> 29;
    return key;
}

/* (a large table is unmapped at once, a small one's heap memory is kept for the next) */
static inline void memo_released(size_t bytes) {
    (void)bytes;
}

/* A position's key: (mover, other) before the draw, (candidate list, other) after it; plus one,
 * so that no key is EMPTY. */
static inline uint64_t pair_key(int first, int second) {
    return (((uint64_t)(uint32_t)first << ID_BITS) | (uint32_t)second) + 1;
}

#include "_sides.h"

typedef struct {
    PyObject_HEAD
    int ndraws;
    int draw_value[10];
    double draw_p[10];
    SideRules rules;
    int max_ids;     /* sides and lists the core may number (the memo keys' bound, or less) */
    int every_stand; /* keep every stand in the lists (the tests' check that dropping changes
                        no value) */
    Hands hands;
    /* per hand: from which totals more of its cards are dead (solver.LiveHands, add_alive),
     * pairs (least total, hand id left) at alive[2 * alive_at[hand]], alive_len[hand] of them */
    int nalive_hands, capalive_hands;
    int *alive_at, *alive_len;
    int *alive;
    int nalive, capalive;
    /* sides: a standing one is (total, tiebreak), a playing one all of Playing */
    int nsides, capsides;
    char *standing;
    int *total;
    char *tiebreak;
    int *cards, *hand, *f24, *f36;
    int *after; /* after[side * 11 + value]: candidate list id, or -1 */
    IdMap side_ids;   /* a side's key -> its id */
    IdMap placed_ids; /* a side holding its draw (and the draw, if its hand holds a Double) ->
                         its list: many draws lead to one side (5 then 3, 6 then 2) */
    ListIndex lists; /* the candidate lists: id -> codes, and the ids by their codes */
    Map before, after_memo;
    int rebalanced; /* the memo was full: the before-draw table took most of the after-draw
                       table's room (rebalance) */
    size_t clears;
    int exact;            /* drawn without replacement: positions on a deck, in exact_memo */
    ExactTable exact_memo; /* the positions before a draw (see after_draw) */
    long long budget;     /* exact: fail once this many positions were stored (-1: none) */
    uint64_t solved; /* positions computed (a forgotten one computed again counts again) */
    uint64_t reported; /* `solved` at the last progress report (see count_solved) */
    PyObject *progress; /* called with `solved` every PROGRESS_EVERY positions, or NULL */
    int failed;
    int small_pages; /* a short search's: the memo's tables made from now on in small pages at
                        once, not in huge pages (slots_alloc, in _core.h) */
} Core;

#define CALLBACKS(X) X(progress)
CORE_GC(CALLBACKS)

static void core_dealloc(Core *self) {
    PyObject_GC_UnTrack(self);
    core_clear(self);
    FREE_ALL(self->standing, self->total, self->tiebreak, self->cards, self->hand, self->f24,
             self->f36, self->after, self->alive_at, self->alive_len, self->alive);
    hands_free(&self->hands);
    idmap_free(&self->side_ids);
    idmap_free(&self->placed_ids);
    listindex_free(&self->lists);
    memo_free(&self->before);
    memo_free(&self->after_memo);
    exact_free(&self->exact_memo);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Refuse more sides or lists than the memo's keys can number (or than the solver's bound). */
static int check_ids(Core *self, int next, const char *what) {
    if (next < self->max_ids) return 0;
    char digits[16], grouped[24];
    int length = snprintf(digits, sizeof digits, "%d", self->max_ids), out = 0;
    for (int i = 0; i < length; i++) { /* (16,777,215: grouped as Python's `:,` would) */
        if (i && (length - i) % 3 == 0) grouped[out++] = ',';
        grouped[out++] = digits[i];
    }
    grouped[out] = 0;
    PyErr_Format(PyExc_OverflowError,
                 "the search needs more than %s distinct %s, more than the C solver can number",
                 grouped, what);
    return -1;
}

/* -- sides --------------------------------------------------------------------------------------- */

/* A side's key: a playing side's playing_key; a standing one's its total and tiebreak, bit 62
 * set. */
static inline uint64_t side_key(int standing, const Playing *side) {
    if (!standing) return playing_key(side);
    return (uint64_t)1 << 63 | (uint64_t)1 << 62 | (uint64_t)(uint8_t)side->total |
           (uint64_t)(side->tiebreak != 0) << 8;
}

/* The hand a playing side on `total` holding `hand` keeps in its key: the cards it can still
 * play without busting (solver.LiveHands.side). */
static inline int alive_hand(const Core *self, int hand, int total) {
    if (hand >= self->nalive_hands) return hand;
    const int *steps = &self->alive[2 * self->alive_at[hand]];
    int left = hand;
    for (int i = 0; i < self->alive_len[hand] && total >= steps[2 * i]; i++) left = steps[2 * i + 1];
    return left;
}

/* The id of a side (a standing one reads only total and tiebreak; a playing one holds only its
 * live cards), interned if new. -1: an exception is set. */
static int intern_side(Core *self, int standing, const Playing *given) {
    Playing alive = *given;
    if (!standing) alive.hand = alive_hand(self, given->hand, given->total);
    const Playing *side = &alive;
    uint64_t key = side_key(standing, side);
    int found = idmap_get(&self->side_ids, key);
    if (found >= 0) return found;
    if (check_ids(self, self->nsides, "sides") < 0) return -1;
    if (self->nsides == self->capsides) {
        int cap = self->capsides ? self->capsides * 2 : 1024;
        if (grow((void **)&self->standing, cap, 1) < 0 ||
            grow((void **)&self->total, cap, sizeof(int)) < 0 ||
            grow((void **)&self->tiebreak, cap, 1) < 0 ||
            grow((void **)&self->cards, cap, sizeof(int)) < 0 ||
            grow((void **)&self->hand, cap, sizeof(int)) < 0 ||
            grow((void **)&self->f24, cap, sizeof(int)) < 0 ||
            grow((void **)&self->f36, cap, sizeof(int)) < 0 ||
            grow((void **)&self->after, cap * 11, sizeof(int)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        self->capsides = cap;
    }
    int id = self->nsides;
    if (idmap_put(&self->side_ids, key, id) < 0) return -1;
    self->nsides++;
    self->standing[id] = (char)(standing != 0);
    self->tiebreak[id] = (char)(side->tiebreak != 0);
    self->total[id] = side->total;
    self->cards[id] = standing ? 0 : side->cards;
    self->hand[id] = standing ? -1 : side->hand;
    self->f24[id] = standing ? 0 : side->f24;
    self->f36[id] = standing ? 0 : side->f36;
    for (int v = 0; v < 11; v++) self->after[id * 11 + v] = -1;
    return id;
}

/* The playing side `id` (not standing). */
static inline Playing playing_of(const Core *self, int id) {
    Playing side = {self->total[id], self->cards[id], self->hand[id],
                    self->f24[id],   self->f36[id],   self->tiebreak[id]};
    return side;
}

/* The most codes a list gathers before its repeats go: two ends for each play and the draw. */
#define MAX_ENDS 256

/* SetSolver._end_codes: append to codes[*n] the ways a turn can end once `side` holds its last
 * card of the turn (`full`: its table's last slot). -1: an exception is set. */
static int end_codes(Core *self, const Playing *side, int tiebreaker_last, int full, int *codes,
                     int *n) {
    if (*n + 2 > MAX_ENDS) return fail_status(PyExc_OverflowError, "a hand with too many plays");
    Playing stand = *side;
    stand.tiebreak = side->tiebreak || (tiebreaker_last && !self->rules.any_tiebreak);
    int kind = turn_end(&self->rules, side->total, full);
    if (kind == FREE_END) { /* end the turn, or stand */
        int ends = intern_side(self, 0, side), stands = intern_side(self, 1, &stand);
        if (ends < 0 || stands < 0) return -1;
        codes[(*n)++] = ends;
        codes[(*n)++] = stands;
    } else if (kind == BUST_END || kind == NINTH_BUST_END) {
        codes[(*n)++] = LOSS_MOVE;
    } else if (kind == NINTH_WIN_END) {
        codes[(*n)++] = WIN_MOVE;
    } else { /* the ninth card, or the target: an automatic stand */
        int stands = intern_side(self, 1, &stand);
        if (stands < 0) return -1;
        codes[(*n)++] = stands;
    }
    return 0;
}

/* -- candidate lists ----------------------------------------------------------------------------- */

/* The id of the list codes[0..n), interned if new. -1: an exception is set. */
static int intern_list(Core *self, const int *codes, int n) {
    int found = listindex_get(&self->lists, codes, n);
    if (found >= 0) return found;
    if (check_ids(self, self->lists.count, "candidate lists") < 0 ||
        listindex_add(&self->lists, codes, n) < 0)
        return -1;
    return self->lists.count - 1;
}

/* SetSolver._placed_list: the list of a side holding the card it just drew (`drawn`): its
 * ways to end the turn, then each play's, each code once, every stand but the best dropped
 * (SetSolver._undominated: a stand on a higher total, or on the same with a Tiebreaker, does at
 * least as well). -1: an exception is set. */
static int placed_list(Core *self, const Playing *placed, int drawn) {
    int codes[MAX_ENDS], n = 0;
    int size = self->rules.table_size;
    const Hands *hands = &self->hands;
    if (end_codes(self, placed, 0, placed->cards >= size, codes, &n) < 0) return -1;
    if (placed->cards < size && placed->total != self->rules.target) {
        int start = hands->plays_start[placed->hand], count = hands->plays_len[placed->hand];
        for (int i = 0; i < count; i++) {
            const Play *play = &hands->plays[start + i];
            Playing after = play_card(hands, &self->rules, *placed, drawn, play);
            if (end_codes(self, &after, play->kind == TIEBREAKER, after.cards >= size, codes, &n) <
                0)
                return -1;
        }
    }
    int kept = unique_codes(codes, n), best = -1;
    for (int i = 0; i < kept; i++) {
        int code = codes[i];
        if (code >= 0 && self->standing[code] &&
            (best < 0 || self->total[code] > self->total[best] ||
             (self->total[code] == self->total[best] && self->tiebreak[code] > self->tiebreak[best])))
            best = code;
    }
    n = 0;
    for (int i = 0; i < kept; i++) {
        int code = codes[i];
        if (code < 0 || !self->standing[code] || code == best || self->every_stand)
            codes[n++] = code;
    }
    return intern_list(self, codes, n);
}

/* SetSolver._candidate_list: the list after the playing side `side` draws `value`, made the
 * first time. -1: an exception is set. */
static int candidate_list(Core *self, int side, int value) {
    Playing placed =
        place_card(&self->hands, &self->rules, playing_of(self, side), value, self->hand[side]);
    uint64_t key = placed_key(&self->hands, &placed, value);
    int list = idmap_get(&self->placed_ids, key);
    if (list < 0) {
        if ((list = placed_list(self, &placed, value)) < 0) return -1;
        if (idmap_put(&self->placed_ids, key, list) < 0) return -1;
    }
    self->after[side * 11 + value] = list;
    return list;
}

static int core_init(Core *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    PyObject *probabilities;
    Py_ssize_t max_entries; /* per memo table; 0: unbounded */
    int max_ids;
    SideRules *r = &self->rules;
    if (!PyArg_ParseTuple(args, "On(iippp)i", &probabilities, &max_entries, &r->target,
                          &r->table_size, &r->nine_win, &r->any_tiebreak, &r->flip_all, &max_ids))
        return -1;
    if (self->nsides || self->hands.count)
        return fail_status(PyExc_RuntimeError, "a core is initialised once");
    self->max_ids = max_ids > 0 && max_ids < (int)MAX_ID ? max_ids : (int)MAX_ID;
    size_t max_cap = (size_t)1 << 62;
    if (max_entries > 0) {
        max_cap = 1 << 10; /* the largest power of two within the bound (at least 1024) */
        while (max_cap * 2 <= (size_t)max_entries) max_cap *= 2;
    }
    self->budget = -1;
    if (probabilities == Py_None) {
        self->exact = 1;
        self->exact_memo.max_cap = max_entries > 0 ? max_cap * 2 : EXACT_SET_ENTRIES;
    } else if (read_probabilities(probabilities, &self->ndraws, self->draw_value, self->draw_p) <
               0) {
        return -1;
    }
    memo_free(&self->before);
    memo_free(&self->after_memo);
    self->before.small_pages = self->after_memo.small_pages = &self->small_pages;
    if (memo_init(&self->before, 1 << 16, max_cap) < 0 ||
        memo_init(&self->after_memo, 1 << 16, max_cap) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(core_add_hands_doc, "add_hands(hands): the next hands by id, each (holds a Flip 2&4, holds a Flip 3&6, count slack, plays, card codes sorted), a play (value, kind, id of the hand left)");
static PyObject *core_add_hands(Core *self, PyObject *args) {
    if (hands_add(&self->hands, args, (int)MAX_ID) < 0) return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_add_alive_doc, "add_alive(first, steps): for the hands from id first on (the next ones), each a sequence of (least total, id of the hand left) where more of its cards are dead, ascending");
static PyObject *core_add_alive(Core *self, PyObject *args) {
    int first;
    PyObject *given;
    if (!PyArg_ParseTuple(args, "iO", &first, &given)) return NULL;
    if (first != self->nalive_hands)
        return fail(PyExc_ValueError, "add_alive takes the hands in order, each once");
    PyObject *seq = PySequence_Fast(given, "add_alive's steps must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    if (first + count > self->hands.count)
        return fail_releasing(seq, PyExc_ValueError, "add_alive names a hand not added");
    int limit = first + (int)count, kept = self->nalive;
    if (limit > self->capalive_hands) {
        int cap = self->capalive_hands ? self->capalive_hands : 256;
        while (cap < limit) cap *= 2;
        if (grow((void **)&self->alive_at, cap, sizeof(int)) < 0 ||
            grow((void **)&self->alive_len, cap, sizeof(int)) < 0) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        self->capalive_hands = cap;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        int hand = first + (int)i;
        PyObject *steps = PySequence_Fast(PySequence_Fast_GET_ITEM(seq, i), "a hand's steps must be a sequence");
        if (!steps) goto failed;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(steps);
        if (room_for((void **)&self->alive, 2 * self->nalive, &self->capalive, 2 * n, sizeof(int)) < 0) {
            Py_DECREF(steps);
            goto failed;
        }
        self->alive_at[hand] = self->nalive;
        self->alive_len[hand] = (int)n;
        for (Py_ssize_t k = 0; k < n; k++) {
            int *pair = &self->alive[2 * (self->nalive + k)];
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(steps, k), "ii", &pair[0], &pair[1])) {
                Py_DECREF(steps);
                goto failed;
            }
            if (pair[1] < 0 || pair[1] >= self->hands.count || (k && pair[0] <= pair[-2])) {
                Py_DECREF(steps);
                PyErr_SetString(PyExc_ValueError, "a step names no hand, or the totals do not rise");
                goto failed;
            }
        }
        self->nalive += (int)n;
        Py_DECREF(steps);
    }
    Py_DECREF(seq);
    self->nalive_hands = limit;
    Py_RETURN_NONE;
failed:
    self->nalive = kept;
    Py_DECREF(seq);
    return NULL;
}

PyDoc_STRVAR(core_intern_side_doc, "intern_side(side) -> side id: a standing (total, tiebreak) or a playing (total, cards, hand, f24, f36, tiebreak), as solver.py's compact sides");
static PyObject *core_intern_side(Core *self, PyObject *args) {
    PyObject *tuple;
    if (!PyArg_ParseTuple(args, "O!", &PyTuple_Type, &tuple)) return NULL;
    Playing side = {0, 0, 0, 0, 0, 0};
    int standing = PyTuple_GET_SIZE(tuple) == 2;
    if (standing ? !PyArg_ParseTuple(tuple, "ip", &side.total, &side.tiebreak)
                 : !PyArg_ParseTuple(tuple, "iiiiip", &side.total, &side.cards, &side.hand,
                                     &side.f24, &side.f36, &side.tiebreak))
        return NULL;
    if (standing ? side.total < -128 || side.total > 127 : !side_in_range(&self->hands, &side))
        return fail(PyExc_ValueError, "a side out of the C core's range, or of a hand not added");
    int id = intern_side(self, standing, &side);
    return id < 0 ? NULL : PyLong_FromLong(id);
}

PyDoc_STRVAR(core_side_doc, "side(id) -> the side as intern_side takes it");
static PyObject *core_side(Core *self, PyObject *args) {
    int id;
    if (!PyArg_ParseTuple(args, "i", &id)) return NULL;
    if (id < 0 || id >= self->nsides) return fail(PyExc_IndexError, "no such side");
    if (self->standing[id])
        return Py_BuildValue("(iN)", self->total[id], PyBool_FromLong(self->tiebreak[id]));
    return Py_BuildValue("(iiiiiN)", self->total[id], self->cards[id], self->hand[id],
                         self->f24[id], self->f36[id], PyBool_FromLong(self->tiebreak[id]));
}

PyDoc_STRVAR(core_candidates_doc, "candidates(side, value) -> the codes of the candidate list after the playing side draws value (made if new)");
static PyObject *core_candidates(Core *self, PyObject *args) {
    int side, value;
    if (!PyArg_ParseTuple(args, "ii", &side, &value)) return NULL;
    if (side < 0 || side >= self->nsides || self->standing[side] || value < 1 || value > 10)
        return fail(PyExc_IndexError, "no such playing side or value");
    int list = self->after[side * 11 + value];
    if (list < 0 && (list = candidate_list(self, side, value)) < 0) return NULL;
    return codes_tuple(&self->lists.codes[self->lists.start[list]], self->lists.len[list]);
}

static void before_draw(Core *self, int mover, int other, int deck, double *e, double *w);

/* The key of a position before a draw on an exact deck: the pair's key beside the deck's. */
static inline PosKey exact_key(uint64_t key, int deck) {
    PosKey k = {key - 1, (uint64_t)deck + 1};
    return k;
}

/* Whether the position before a draw `key` (on `deck`, an exact core's) is held: its values
 * then in *e and *w. */
static inline int held(Core *self, uint64_t key, int deck, double *e, double *w) {
    if (!self->exact) return memo_read(&self->before, key, e, w);
    const ExactEntry *found = exact_get(&self->exact_memo, exact_key(key, deck));
    if (!found) return 0;
    *e = found->v;
    *w = found->d;
    return 1;
}

/* Value for the mover of ending its turn as `code` says, against `other`, on deck `deck`. */
static void candidate_value(Core *self, int code, int other, int deck, double *e, double *w) {
    if (code < 0) {
        if (code == LOSS_MOVE) {
            *e = -1.0;
            *w = 0.0;
        } else {
            *e = 1.0;
            *w = 1.0;
        }
        return;
    }
    if (self->standing[other]) {
        if (!self->standing[code]) {
            before_draw(self, code, other, deck, e, w);
            return;
        }
        int mine = self->total[code], theirs = self->total[other];
        if (mine != theirs) {
            *e = mine > theirs ? 1.0 : -1.0;
            *w = mine > theirs ? 1.0 : 0.0;
        } else if (self->tiebreak[code] != self->tiebreak[other]) {
            *e = self->tiebreak[code] ? 1.0 : -1.0;
            *w = self->tiebreak[code] ? 1.0 : 0.0;
        } else {
            *e = 0.0;
            *w = 0.0;
        }
        return;
    }
    double oe, ow;
    before_draw(self, other, code, deck, &oe, &ow);
    *e = -oe;
    *w = ow - oe;
}

/* On an exact deck a position after a draw is not kept: it is the best of a few positions
 * before the next draw, which are, and solved again it costs less than the room it took (a
 * position before a draw reads ten after it): 0.43 of the time of a search of 2.9 M positions,
 * 0.73 of one that fills its table (docs/benchmarks.md). */
static void after_draw(Core *self, int list, int other, int deck, double *e, double *w) {
    uint64_t key = pair_key(list, other);
    if (!self->exact && memo_read(&self->after_memo, key, e, w)) return;
    uint64_t started = self->solved++;
    double be = -1.0, bw = 0.0;
    int start = self->lists.start[list], len = self->lists.len[list];
    int other_stands = self->standing[other];
    for (int i = 0; i < len && !self->exact; i++) { /* (the positions the candidates lead to, as candidate_value) */
        int code = self->lists.codes[start + i];
        if (code < 0 || (other_stands && self->standing[code])) continue;
        uint64_t next = other_stands ? pair_key(code, other) : pair_key(other, code);
        MEMO_PREFETCH(&self->before, next);
    }
    for (int i = 0; i < len; i++) {
        double ce, cw;
        candidate_value(self, self->lists.codes[start + i], other, deck, &ce, &cw);
        if (self->failed) return;
        if (ce > be + EPSILON || (ce > be - EPSILON && cw > bw)) {
            be = ce;
            bw = cw;
            if (be >= 1.0 - EPSILON) break;
        }
    }
    if (!self->exact && memo_keep(&self->after_memo, key, be, bw, self->solved - started) < 0) {
        self->failed = 1;
        return;
    }
    *e = be;
    *w = bw;
}

/* Once the before-draw table, at its bound, first forgets a position to make room: the
 * after-draw table gives up seven eighths of its room
 * (its positions forgotten, found again as they are asked: each is the best of a few
 * before-draw values) and the before-draw table doubles into it. A position before a draw
 * averages ten after-draw ones; one after a draw is 2.4 times as common and far cheaper to
 * find again: in halves of the memory each, they crowded the dearer ones out (a kotor2
 * all-gold 4 v 4 set answer computed 173 M positions for 33.5 M held, docs/benchmarks.md). A
 * search that fits never comes here: its tables are as they were. The memo then holds 1/16
 * more positions than its bound (2 ** k + 2 ** (k - 4) for halves of 2 ** (k - 1)). */
static int rebalance(Core *self) {
    Map *before = &self->before, *after = &self->after_memo;
    self->rebalanced = 1;
    size_t small = after->max_cap / 8;
    if (small < (1 << 10)) return 0; /* (a memo this small stays as it is) */
    if (after->cap > small) { /* (else it never grew past its new bound) */
        memo_free(after);
        if (memo_init(after, small, small) < 0) return -1;
    }
    after->max_cap = small;
    before->max_cap *= 2;
    return memo_resize(before, before->cap * 2);
}

static void before_draw(Core *self, int mover, int other, int deck, double *e, double *w) {
    uint64_t key = pair_key(mover, other);
    if (held(self, key, deck, e, w)) return;
    uint64_t started = self->solved;
    if (self->exact && self->budget >= 0 && (long long)self->exact_memo.stored >= self->budget) {
        PyErr_SetString(PyExc_OverflowError, "the exact solve exceeds its state budget");
        self->failed = 1;
        return;
    }
    if (count_solved(&self->solved, &self->reported, self->progress) < 0) { /* (Ctrl-C in a long search) */
        self->failed = 1;
        return;
    }
    Draws made;
    DrawList draws = draw_list(self->exact, deck, self->ndraws, self->draw_value, self->draw_p, &made);
    for (int i = 0; i < draws.n && !self->exact; i++) { /* (the after-draw positions read below) */
        int list = self->after[mover * 11 + draws.value[i]];
        if (list >= 0) MEMO_PREFETCH(&self->after_memo, pair_key(list, other));
    }
    double equity = 0.0, p_win = 0.0;
    for (int i = 0; i < draws.n; i++) {
        int value = draws.value[i];
        int list = self->after[mover * 11 + value];
        if (list < 0 && (list = candidate_list(self, mover, value)) < 0) {
            self->failed = 1;
            return;
        }
        double ae = 0.0, aw = 0.0;
        after_draw(self, list, other, draws.rest[i], &ae, &aw);
        if (self->failed) return;
        equity += draws.p[i] * ae;
        p_win += draws.p[i] * aw;
    }
    if (self->exact) {
        if (exact_put(&self->exact_memo, exact_key(key, deck), equity, p_win,
                      self->solved - started) < 0) {
            self->failed = 1;
            return;
        }
    } else if (memo_keep(&self->before, key, equity, p_win, self->solved - started) < 0 ||
        (self->before.replaced && !self->rebalanced &&
         self->before.cap >= self->before.max_cap && rebalance(self) < 0)) {
        if (!PyErr_Occurred()) PyErr_NoMemory();
        self->failed = 1;
        return;
    }
    *e = equity;
    *w = p_win;
}

static int check_side(Core *self, int side) {
    if (side < 0 || side >= self->nsides) return fail_status(PyExc_IndexError, "no such side");
    return 0;
}

/* A search asked by Python: `what` of (first, second), as (equity, p_win) for the mover (NULL:
 * it failed, an exception is set). */
static PyObject *search(Core *self, void (*what)(Core *, int, int, int, double *, double *),
                        int first, int second, int deck) {
    double e = 0, w = 0;
    self->failed = 0;
    what(self, first, second, deck, &e, &w);
    if (self->failed) return NULL;
    return Py_BuildValue("(dd)", e, w);
}

static PyObject *core_get_nsides(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->nsides);
}

static PyObject *core_get_nlists(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->lists.count);
}

/* A deck an exact core draws from is a code (0 to FULL_DECK_CODE); a fixed one's is 0. */
static int check_deck(Core *self, int deck) {
    if (deck < 0 || deck > (self->exact ? FULL_DECK_CODE : 0))
        return fail_status(PyExc_ValueError, "no such deck (an exact core's is a code, else 0)");
    return 0;
}

PyDoc_STRVAR(core_before_draw_doc, "before_draw(mover, other, deck=0) -> (equity, p_win) for the mover (deck: an exact core's deck code)");
static PyObject *core_before_draw(Core *self, PyObject *args) {
    int mover, other, deck = 0;
    if (!PyArg_ParseTuple(args, "ii|i", &mover, &other, &deck)) return NULL;
    if (check_side(self, mover) < 0 || check_side(self, other) < 0 || check_deck(self, deck) < 0)
        return NULL;
    if (self->standing[mover]) return fail(PyExc_ValueError, "a standing side does not draw");
    return search(self, before_draw, mover, other, deck);
}

PyDoc_STRVAR(core_candidate_value_doc, "candidate_value(code, other, deck=0) -> (equity, p_win) for the mover");
static PyObject *core_candidate_value(Core *self, PyObject *args) {
    int code, other, deck = 0;
    if (!PyArg_ParseTuple(args, "ii|i", &code, &other, &deck)) return NULL;
    if ((code >= 0 && check_side(self, code) < 0) || check_side(self, other) < 0 ||
        check_deck(self, deck) < 0)
        return NULL;
    return search(self, candidate_value, code, other, deck);
}

/* Empty the memo between searches (the sides and lists stay): values are recomputed on demand. */
PyDoc_STRVAR(core_clear_memo_doc, "clear_memo(): forget every value (the sides and candidate lists stay)");
static PyObject *core_clear_memo(Core *self, PyObject *unused) {
    (void)unused;
    memo_clear(&self->before);
    memo_clear(&self->after_memo);
    exact_free(&self->exact_memo);
    self->clears++;
    Py_RETURN_NONE;
}

/* Begin a new round of searches (see the memo, above). */
PyDoc_STRVAR(core_next_round_doc, "next_round(): the searches from here on are a new round: what the memo holds from earlier rounds is forgotten first when it is full");
static PyObject *core_next_round(Core *self, PyObject *unused) {
    (void)unused;
    memo_next_round(&self->before);
    memo_next_round(&self->after_memo);
    Py_RETURN_NONE;
}

/* Make room at once for `entries` positions in each memo table (within its bound; see
 * memo_reserve). */
PyDoc_STRVAR(core_reserve_doc, "reserve(entries): make room in each memo table for that many positions (within its bound; an exact core's cache grows by itself)");
static PyObject *core_reserve(Core *self, PyObject *args) {
    Py_ssize_t entries;
    if (!PyArg_ParseTuple(args, "n", &entries)) return NULL;
    if (entries <= 0 || self->exact) Py_RETURN_NONE; /* (its fixed-odds memos are not used) */
    if (memo_reserve(&self->before, (size_t)entries) < 0 ||
        memo_reserve(&self->after_memo, (size_t)entries) < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *core_get_states(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->before.size + self->after_memo.size + self->exact_memo.size);
}

static PyObject *core_get_clears(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->clears);
}

static PyObject *core_get_solved(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->solved);
}

static PyObject *core_get_replaced(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->before.replaced + self->after_memo.replaced +
                             self->exact_memo.replaced);
}

static PyObject *core_get_rebalanced(Core *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->rebalanced);
}

static PyObject *core_get_memo_bytes(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t((self->before.cap + self->after_memo.cap) * sizeof(Entry) +
                             self->exact_memo.cap * sizeof(ExactEntry));
}

static PyGetSetDef core_getset[] = {
    GETTER(states, "positions in the memo (before and after draws)"),
    GETTER(clears, "times clear_memo() emptied the memo"),
    GETTER(solved, "positions computed so far (again if forgotten)"),
    GETTER(replaced, "memo entries forgotten to bound the memory"),
    GETTER(memo_bytes, "bytes the two memo tables take now"),
    GETTER(rebalanced, "whether the memo was full and the before-draw table took most of the after-draw table's room"),
    FLAG_ATTRIBUTE(every_stand, "keep every stand in the candidate lists made from now on (not only the best)"),
    FLAG_ATTRIBUTE(small_pages, "a short search: the memo's large tables made from now on in small pages at once, not in huge pages"),
    GETTER(nsides, "sides interned"),
    GETTER(nlists, "candidate lists interned"),
    PROGRESS_ATTRIBUTE("progress(solved) is called every so many positions in a long search (or None)"),
    BUDGET_ATTRIBUTE("an exact core: raise OverflowError once this many positions were stored (None: no budget)"),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef core_methods[] = {
    METHOD(add_hands, VARARGS), METHOD(add_alive, VARARGS), METHOD(intern_side, VARARGS),
    METHOD(side, VARARGS),
    METHOD(candidates, VARARGS),
    METHOD(before_draw, VARARGS), METHOD(candidate_value, VARARGS),
    METHOD(reserve, VARARGS), METHOD(clear_memo, NOARGS), METHOD(next_round, NOARGS),
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType =
    CORE_TYPE("pazaak_cli.solve._fastsolve.Core",
              "Memoised set expectimax with fixed draw probabilities, or on the exact deck (see solver.py).");

static struct PyModuleDef module = CORE_MODULE(
    "_fastsolve",
    "The optional C inner loop of pazaak_cli.solve.solver (pure Python is used without it).");

PyMODINIT_FUNC PyInit__fastsolve(void) {
    PyObject *m = core_module(&module, &CoreType);
    if (m && PyModule_AddIntConstant(m, "MAX_IDS", (long)MAX_ID) < 0) Py_CLEAR(m);
    return m;
}
