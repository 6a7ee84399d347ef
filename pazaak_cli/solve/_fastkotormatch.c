/* The inner loop of pazaak_cli.solve.match_kotor.KotorMatchSolver, in C: the exact best reply,
 * over a MATCH, to an opponent that follows a fixed decision rule (the KOTOR I rule or the
 * heuristic player's rule, decided by _rule.h's lines, as the set reply _fastreply.c does).
 *
 * A core of its own rather than a second type in _fastreply.c: the set reply keys its positions
 * by two side ids and forgets the rule's hands once a side stands, while a match keeps every hand
 * (a standing, busted or nine-card side is a side with its hand), keys its positions by context
 * and deck too, values them as (value, slope) pairs for Python's fixed point, and ends a set in a
 * match state Python solves. What both share, the rules' decisions and the memo, is in the
 * headers _rule.h and _core.h.
 *
 * Python keeps every seat, hand and deck: it interns both players' hands and the advised
 * player's sides and candidate lists, the contexts (score, opener, deck model) and the match
 * states, and mirrors what this core needs: each side's kind, total, tiebreak and hand id, and
 * the rule's hands (their plays in the rule's order of tries). The rule's turn after a draw is
 * built here (build_turn, as RuleSeat.turn builds it), numbering the rule's new sides in the
 * order Python's seat would; Python takes them over (their_sides_from) before it numbers one
 * itself, so both number every side alike. This
 * core runs KotorMatchSolver.my_before_draw, opp_before_draw, _turn_ended, the rule's choice
 * (RuleSeat.reply, from the flattened turn) and the set's odds along the line chosen
 * (_odds_ended, _odds_before, _choice), and calls back into Python:
 *   expand(side, value) -> list id      the advised side's turn ends after a draw, first met;
 *   draws(model, deck) -> ((value, p, deck after), ...)   a deck's draws, first met;
 *   over(context, winner, hand, hand) -> (value, slope, final)   the value once a set ends
 *       (winner -1: a tie), which may solve that match state first, re-entering this core. A
 *       value that is not final is the value Python is iterating: it is kept apart (`volatile`)
 *       until Python changes what it iterates (`clear_volatile`), and reading it is flagged
 *       (`read_unknown`).
 *
 * The values, the choice among equal values (the first of the highest) and the order of every
 * sum are those of the Python methods, so both give the same floats.
 *
 * The positions of the match state whose fixed point Python iterates (its contexts, its two
 * hands: `push_live`) go to a scratch table of that level, each as a line in the value x tried
 * (a + b x: its card-free tie reads x as the line (0, 1), so a line's bits depend on its choices
 * only, which compare the lines at x) with the interval of x over which every choice it rests on
 * stands by CHOICE_MARGIN. A new try of x (`forget`) reads again the lines whose intervals hold
 * it, the same bits a search would give again, and searches the rest (under the alternating
 * openers, whose tie reads the other opener's line of the same try, it empties the table).
 * `settle` empties it once the value is found (read again, those positions are solved again from
 * the value found: moved along their slopes into the main table, they kept last bits that
 * depended on what was solved before and on what the table forgot); the choices made there
 * narrow the interval of values tried over which they all stand (`interval`),
 * as KotorMatchSolver._narrow does. The main table keeps a value a position and no slope (every
 * slope outside a scratch table is +0.0: Values). It is bounded: full, it forgets its entries, or
 * on an exact deck a new position takes the slot of its home (a cache: values are pure functions
 * of their keys; see values_keep). The rule's replies to a total of
 * mine are found through a direct index by rule side (reply_place), not a hash.
 */
/* (The hash tables of _core.h stay calloc'ed: in huge pages the kernel's zeroing of each page
 * first written took 30 % of a 3 v 3 first move, 5 % in small pages, when they held every
 * position. The main table of positions, which now does, is in huge pages: values_alloc.) */
#define MEMO_HUGE_PAGES 0
#include "_core.h"
#include "_rule.h"
#include "_sides.h"
#include <math.h>

enum { PLAYING, STANDING, BUST, NINE_WIN }; /* rule_opponent.PLAYING ... NINE_WIN */
#define ME 0
#define OPP 1
#define NO_STAND (-1)

/* A position's key: (slot, tag, x, y), 20 + 2 + 21 + 21 bits, plus one. The slot numbers the
 * (context, deck) pair (a context drawn with fixed probabilities has one deck); the tag says
 * whose turn (0: I am to draw, 1: the rule is, 2: my best end of turn from list x). */
#define ID_BITS 21
#define MAX_ID ((1 << ID_BITS) - 1)
#define SLOT_BITS 20
#define MAX_SLOTS ((1 << SLOT_BITS) - 2)
#define MAX_CONTEXTS ((1 << SLOT_BITS) - 2)
#define MAX_LEVELS 64
/* The direct index of the rule's replies: my totals REPLY_LOW .. REPLY_LOW + REPLY_SPAN - 1, and
 * at most REPLY_INDEX_MAX ints (64 MiB) in all (see reply_place). */
#define REPLY_LOW (-32)
#define REPLY_SPAN 64
#define REPLY_INDEX_MAX ((size_t)1 << 24)
/* A choice among lines in the value tried stands where it is higher by this much (the bits of a
 * line summed again at another value tried are then the same: KotorMatchSolver.CHOICE_MARGIN). */
#define CHOICE_MARGIN 1e-14
/* A buffer of the values seen at a live choice node on the stack, larger lists on the heap. */
#define SEEN_ON_STACK 64

static inline uint64_t memo_mix(uint64_t key) {
    return mix64(key);
}

static inline void memo_released(size_t bytes) {
    (void)bytes;
}

/* Store a value. The tables have no window (a key probes on to its slot or an empty one) and
 * grow before they are half full; one at its bound (the set's odds, the sloped pairs) that would
 * be more than half full forgets every entry first, counted as replaced: a cache, whose values are
 * pure functions of their keys. (A window that forgets one entry when its few slots are full, as
 * _fastreply.c's memo does, fills up long before the table does: at half load some window of
 * eight is full within a million keys, and then a table below its bound must double or forget a
 * position the Python search keeps, whose count the callers' budgets read.) */
static inline int keep(Map *m, uint64_t key, double v, double d) {
    if (m->max_cap && m->cap >= m->max_cap && (m->size + 1) * MEMO_LOAD_DEN > m->cap * MEMO_LOAD_NUM &&
        !memo_get(m, key)) {
        m->replaced += m->size;
        memo_clear(m);
    }
    return memo_keep(m, key, v, d, 0);
}

/* The main table of positions keeps a value each and no slope: 16 bytes a position instead of
 * 24, four to a cache line and none across two (a third less memory to hold and to read; the
 * table is read at random, a probe for every child of every position). Outside the match state whose fixed point is iterated (whose positions go to its
 * level's scratch table), a position's slope is +0.0: it reaches no set end that reads the value
 * iterated, for the hands only shrink and the score only grows along a match, so none comes back
 * to that match state; every other set end is a final value. A slope that is not +0.0 is kept
 * in the table of pairs `sloped` instead, so that nothing rests on that argument but the speed
 * (tests/test_match_kotor_native.py reads `sloped_held`: none, on every path it tries). Bounded:
 * at its bound, half full, it forgets every entry, or a new key takes its home's (values_keep). */
typedef struct {
    uint64_t key; /* plus one: a zeroed slot is empty */
    double v;
} Value;

typedef struct {
    Value *slots;
    size_t cap, size, max_cap, replaced;
    int huge;   /* a large table in huge pages (values_alloc) */
    int mapped; /* whether `slots` came from mmap (else calloc) */
    int evicts; /* at its bound a new key takes its home's slot (else every entry is forgotten) */
} Values;

/* The main table's slots: where `huge` (a long search: set by Python, see huge_pages) and past
 * HUGE_BYTES, asked of the system directly (zeroed by it, mapped when first written) in huge
 * pages where Linux offers them, as _core.h's slots_alloc does for the other cores' memos: the
 * search reads the table at random, and with 4 kB pages nearly every read also misses the
 * address cache (TLB). Not for a short search: a huge page first written may wait for the
 * kernel to gather free memory into one, which a search of a second or two does not earn back
 * (measured: docs/benchmarks.md). `*mapped` says which way they came. */
static Value *values_alloc(size_t cap, int huge, int *mapped) {
    *mapped = 0;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t bytes = cap * sizeof(Value);
    if (huge && bytes >= HUGE_BYTES) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        madvise(p, bytes, MADV_HUGEPAGE);
        *mapped = 1;
        return p;
    }
#else
    (void)huge;
#endif
    return calloc(cap, sizeof(Value));
}

static void values_release(Value *slots, size_t cap, int mapped) {
    if (!slots) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (mapped) {
        munmap(slots, cap * sizeof(Value));
        return;
    }
#else
    (void)cap;
    (void)mapped;
#endif
    free(slots);
}

static int values_init(Values *t, size_t cap, size_t max_cap, int huge) {
    if (max_cap && cap > max_cap) cap = max_cap;
    t->slots = values_alloc(cap, huge, &t->mapped);
    if (!t->slots) return -1;
    t->cap = cap;
    t->max_cap = max_cap;
    t->size = t->replaced = 0;
    t->huge = huge;
    return 0;
}

static void values_free(Values *t) {
    values_release(t->slots, t->cap, t->mapped);
    t->slots = NULL;
    t->cap = t->size = 0;
}

static void values_clear(Values *t) {
    if (t->slots && t->size) memset(t->slots, 0, t->cap * sizeof(Value));
    t->size = 0;
}

static inline size_t values_index(const Values *t, uint64_t key) {
    return (size_t)memo_mix(key) & (t->cap - 1);
}

/* The slot of `key` (plus one), or the empty slot where it would go. */
static inline Value *values_find(const Values *t, uint64_t key) {
    size_t i = values_index(t, key);
    for (;;) {
        Value *slot = &t->slots[i];
        if (slot->key == key || slot->key == EMPTY) return slot;
        i = (i + 1) & (t->cap - 1);
    }
}

static inline int values_read(const Values *t, uint64_t key, double *v) {
    const Value *slot = values_find(t, key);
    if (slot->key != key) return 0;
    *v = slot->v;
    return 1;
}

static int values_resize(Values *t, size_t cap) {
    Values bigger;
    if (values_init(&bigger, cap, t->max_cap, t->huge) < 0) return -1;
    bigger.replaced = t->replaced;
    bigger.evicts = t->evicts;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i].key == EMPTY) continue;
        Value *slot = values_find(&bigger, t->slots[i].key);
        *slot = t->slots[i];
        bigger.size++;
    }
    values_release(t->slots, t->cap, t->mapped);
    *t = bigger;
    return 0;
}

/* Store a value (MemoryError set and -1 when the table cannot grow). At its bound, as full as
 * it may be, it forgets every entry; or, where it `evicts` (a set on its exact deck), a new key
 * takes the slot of its home from whatever held it: the probes of every other key pass an
 * occupied slot there as before, and the table stays as full. Forgetting every entry made a
 * search that far outgrows the table solve again what it had just solved (the kotor1 first move
 * with four known cards a side, a ± card each, on its exact deck: 147 M positions solved in 2^24
 * slots, where 32 M are distinct); where a search outgrows it a little, and with fixed odds, an
 * emptied table, read faster, did better (docs/benchmarks.md, "the rule's main table"). */
static inline int values_keep(Values *t, uint64_t key, double v) {
    if ((t->size + 1) * MEMO_LOAD_DEN > t->cap * MEMO_LOAD_NUM) {
        if (t->max_cap && t->cap >= t->max_cap) {
            Value *held = values_find(t, key);
            if (held->key == key || t->evicts) {
                if (held->key != key) {
                    held = &t->slots[values_index(t, key)];
                    t->replaced++;
                }
                held->key = key;
                held->v = v;
                return 0;
            }
            t->replaced += t->size;
            values_clear(t);
        } else if (values_resize(t, t->cap * 2) < 0) {
            PyErr_NoMemory();
            return -1;
        }
    }
    Value *slot = values_find(t, key);
    if (slot->key == EMPTY) t->size++;
    slot->key = key;
    slot->v = v;
    return 0;
}

/* A position of the match state iterated: its value as a line in the value x tried, a + b x
 * (the card-free tie reads x as the line (0, 1): KotorMatchSolver._solve_entry), and the interval
 * [lo, hi] of x over which every choice it rests on stands (each by a margin of CHOICE_MARGIN).
 * Within that interval the same search would make the same choices and sum the same lines in the
 * same order: the same bits, so a later try of x reads it rather than solving it again. */
typedef struct {
    uint64_t key; /* plus one: a zeroed slot is empty */
    double a, b, lo, hi;
    unsigned epoch; /* the try that last read or solved it (read within it whatever its interval) */
    int reads;      /* whether its search read the value tried (a card-free tie: read_unknown) */
} Line;

typedef struct {
    Line *slots;
    size_t cap, size;
} Lines;

static void lines_free(Lines *t) {
    free(t->slots);
    t->slots = NULL;
    t->cap = t->size = 0;
}

static void lines_clear(Lines *t) {
    if (t->slots && t->size) memset(t->slots, 0, t->cap * sizeof(Line));
    t->size = 0;
}

static inline Line *lines_find(const Lines *t, uint64_t key) {
    size_t i = (size_t)memo_mix(key) & (t->cap - 1);
    for (;;) {
        Line *slot = &t->slots[i];
        if (slot->key == key || slot->key == EMPTY) return slot;
        i = (i + 1) & (t->cap - 1);
    }
}

static int lines_grow(Lines *t) {
    size_t cap = t->cap ? t->cap * 2 : 1 << 10;
    Line *old = t->slots;
    size_t old_cap = t->cap;
    t->slots = calloc(cap, sizeof(Line));
    if (!t->slots) {
        t->slots = old;
        PyErr_NoMemory();
        return -1;
    }
    t->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key != EMPTY) *lines_find(t, old[i].key) = old[i];
    free(old);
    return 0;
}

/* The slot for `key`, found or made (NULL: no memory, an exception set). */
static inline Line *lines_slot(Lines *t, uint64_t key) {
    if ((t->size + 1) * MEMO_LOAD_DEN > t->cap * MEMO_LOAD_NUM && lines_grow(t) < 0) return NULL;
    Line *slot = lines_find(t, key);
    if (slot->key == EMPTY) {
        slot->key = key;
        t->size++;
    }
    return slot;
}

static inline uint64_t position_key(int slot, int tag, int x, int y) {
    return ((((uint64_t)slot << 2 | (uint64_t)tag) << ID_BITS | (uint64_t)x) << ID_BITS | (uint64_t)y) + 1;
}

/* One seat's sides in Python's numbering: kind, total, tiebreak, hand id (and, the rule's seat,
 * whose turns are built here, a playing side's count and flip sums); and per (side, value drawn)
 * what was worked out for it (the advised player's list id, the rule's turn id; -1: not yet). */
typedef struct {
    int n, cap;
    char *kind, *tiebreak;
    int *total, *hand;
    int *cards, *f24, *f36;
    int *after;
} Sides;

/* (Draws, in _core.h: ndraws 0 here is a deck whose draws were not asked yet.) */
typedef struct {
    Draws *decks; /* by deck id */
    int ndecks;
} Model;

/* A match state whose fixed point Python iterates, and the scratch table of its positions.
 * `keep`: its positions outlive a try of x (their lines do not read the value tried; not under
 * the alternating openers, whose card-free tie reads the other opener's line of this try). */
typedef struct {
    int contexts[2], ncontexts, my_hand, its_hand;
    int keep;
    unsigned epoch; /* the try of x (a line solved in this try is read whatever its interval) */
    Lines scratch;
} Level;

typedef struct {
    PyObject_HEAD
    int rule, target, sets_to_win;
    Sides mine, theirs;
    /* the rule's seat, whose turns after a draw are built here (RuleSeat.turn): its hands in
     * Python's ids (their plays in the rule's order of tries), whether each play is a try of a
     * card whose sign the rule chooses, the rules of placing a card, and its sides by key (the
     * sides Python adds and those built here, in the order Python interns them) */
    Hands their_hands;
    char *flexible;
    int capflexible;
    SideRules rules;
    int rules_set;
    IdMap their_ids;
    CANDIDATE_LISTS
    /* the contexts: the sets I have won (the rule reads them), the deck model, fixed draws */
    int ncontexts, capcontexts;
    int *ctx_sets, *ctx_model;
    char *ctx_fixed;
    int *ctx_slot; /* a fixed context's one slot (-1: not yet) */
    int nmodels;
    Model *models;
    Map slot_of;   /* (context, deck) -> slot, for the contexts drawn exactly */
    int nslots;
    /* the rule's turns (flattened as RuleSeat.turn gives them) and its replies */
    int nturns, capturns;
    int *turn_at;
    int ndata, capdata;
    int *data;
    int nrows, caprows;
    int *rows;
    Map row_of;    /* (rule side, my total, sets, standing) -> row, past the direct index */
    long *reply_block; /* by rule side: its block of reply_index (-1: none yet) */
    int nblocks;
    int *reply_index;  /* rows by (sets, standing, my total) in each block (-1: not yet) */
    size_t nindex, capindex;
    Values memo;  /* the positions (bounded: a cache), their slopes +0.0 */
    Map sloped;   /* the positions outside a scratch table whose slopes are not +0.0 (none) */
    Map odds;     /* the set's odds along the line chosen, (P(win), P(tie)) by position */
    double tolerance; /* the odds' choice: match values this close are equal (BEST_TOLERANCE) */
    Map overs;    /* the final values of a set's ends */
    Map volatile_overs; /* the value iterated, where a set's end reads it */
    Level levels[MAX_LEVELS];
    int nlevels;
    double low, high; /* the interval of values tried over which every choice made stands */
    double x;         /* the value tried (the card-free tie's line is (0, 1)) */
    int read_unknown;
    uint64_t solved;
    uint64_t reported; /* `solved` at the last progress report (see count_solved) */
    long long budget; /* raise too_large once solved reaches it (-1: no budget) */
    PyObject *expand, *draws, *over, *too_large;
    PyObject *progress;
} Core;

#define CALLBACKS(X) X(expand) X(draws) X(over) X(too_large) X(progress)
CORE_GC(CALLBACKS)

static void sides_free(Sides *s) {
    FREE_ALL(s->kind, s->tiebreak, s->total, s->hand, s->cards, s->f24, s->f36, s->after);
    memset(s, 0, sizeof(*s));
}

static void models_free(Core *self) {
    for (int i = 0; i < self->nmodels; i++) free(self->models[i].decks);
    free(self->models);
    self->models = NULL;
    self->nmodels = 0;
}

static void core_dealloc(Core *self) {
    PyObject_GC_UnTrack(self);
    core_clear(self);
    sides_free(&self->mine);
    sides_free(&self->theirs);
    hands_free(&self->their_hands);
    free(self->flexible);
    idmap_free(&self->their_ids);
    models_free(self);
    FREE_ALL(self->list_start, self->list_len, self->codes, self->ctx_sets, self->ctx_model,
             self->ctx_fixed, self->ctx_slot, self->turn_at, self->data, self->rows, self->reply_block,
             self->reply_index);
    for (int i = 0; i < MAX_LEVELS; i++) lines_free(&self->levels[i].scratch);
    values_free(&self->memo);
    Map *maps[] = {&self->slot_of, &self->row_of, &self->sloped, &self->overs, &self->volatile_overs, &self->odds};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) memo_free(maps[i]);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int callable_or_fail(PyObject *object, const char *message) {
    if (PyCallable_Check(object)) return 0;
    return fail_status(PyExc_TypeError, message);
}

static int core_init(Core *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    PyObject *expand, *draws, *over, *too_large;
    Py_ssize_t max_entries = 0; /* the main table's bound; 0: none */
    if (!PyArg_ParseTuple(args, "iiiOOOO|n", &self->rule, &self->target, &self->sets_to_win,
                          &expand, &draws, &over, &too_large, &max_entries))
        return -1;
    if (self->rule != RULE_KOTOR && self->rule != RULE_HEURISTIC)
        return fail_status(PyExc_ValueError, "no such rule in the C core");
    if (callable_or_fail(expand, "expand must be callable") < 0 ||
        callable_or_fail(draws, "draws must be callable") < 0 ||
        callable_or_fail(over, "over must be callable") < 0)
        return -1;
    PyObject *held[] = {expand, draws, over, too_large};
    PyObject **fields[] = {&self->expand, &self->draws, &self->over, &self->too_large};
    for (int i = 0; i < 4; i++) {
        Py_INCREF(held[i]);
        Py_XSETREF(*fields[i], held[i]);
    }
    size_t max_cap = (size_t)1 << 62;
    if (max_entries > 0) {
        max_cap = 1 << 10; /* the largest power of two within the bound (at least 1024) */
        while (max_cap * 2 <= (size_t)max_entries) max_cap *= 2;
    }
    if (values_init(&self->memo, 1 << 12, max_cap, 0) < 0) goto no_memory;
    if (memo_init(&self->sloped, 1 << 10, max_cap) < 0) goto no_memory;
    if (memo_init(&self->odds, 1 << 10, max_cap) < 0) goto no_memory;
    Map *maps[] = {&self->slot_of, &self->row_of, &self->overs, &self->volatile_overs};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
        if (memo_init(maps[i], 1 << 10, (size_t)1 << 62) < 0) goto no_memory;
    self->budget = -1;
    self->low = -INFINITY;
    self->high = INFINITY;
    return 0;
no_memory:
    PyErr_NoMemory();
    return -1;
}

/* -- what Python adds ------------------------------------------------------------------------ */

static int sides_room(Sides *s, int n) {
    if (s->n + n <= s->cap) return 0;
    int cap = s->cap ? s->cap : 1024;
    while (cap < s->n + n) cap *= 2;
    if (grow((void **)&s->kind, cap, 1) < 0 || grow((void **)&s->tiebreak, cap, 1) < 0 ||
        grow((void **)&s->total, cap, sizeof(int)) < 0 || grow((void **)&s->hand, cap, sizeof(int)) < 0 ||
        grow((void **)&s->cards, cap, sizeof(int)) < 0 || grow((void **)&s->f24, cap, sizeof(int)) < 0 ||
        grow((void **)&s->f36, cap, sizeof(int)) < 0 || grow((void **)&s->after, cap * 11, sizeof(int)) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    s->cap = cap;
    return 0;
}

/* The int of item i of a PySequence_Fast (-1 and an exception if it is none). */
static int item_int(PyObject *seq, Py_ssize_t i, long *out) {
    *out = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

PyDoc_STRVAR(core_add_sides_doc,
             "add_sides(seat, kinds, totals, tiebreaks, hands): the next sides of seat 0 (the "
             "advised player), as Python interned them (the rule's: add_their_sides)");
static PyObject *core_add_sides(Core *self, PyObject *args) {
    int seat;
    PyObject *lists[4];
    if (!PyArg_ParseTuple(args, "iOOOO", &seat, &lists[0], &lists[1], &lists[2], &lists[3])) return NULL;
    if (seat != ME) return fail(PyExc_ValueError, "the rule's sides are added by add_their_sides");
    Sides *s = &self->mine;
    PyObject *seqs[4] = {NULL, NULL, NULL, NULL};
    PyObject *result = NULL;
    for (int k = 0; k < 4; k++)
        if (!(seqs[k] = PySequence_Fast(lists[k], "sides come as four sequences"))) goto done;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seqs[0]);
    for (int k = 1; k < 4; k++)
        if (PySequence_Fast_GET_SIZE(seqs[k]) != n) {
            PyErr_SetString(PyExc_ValueError, "four sequences of one length");
            goto done;
        }
    if (s->n + n > MAX_ID) {
        PyErr_SetString(self->too_large, "the search needs more sides than the C solver can number");
        goto done;
    }
    if (sides_room(s, (int)n) < 0) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        long kind, total, tiebreak, hand;
        if (item_int(seqs[0], i, &kind) < 0 || item_int(seqs[1], i, &total) < 0 ||
            item_int(seqs[2], i, &tiebreak) < 0 || item_int(seqs[3], i, &hand) < 0)
            goto done;
        if (kind < PLAYING || kind > NINE_WIN || hand < 0 || hand > MAX_ID) {
            PyErr_SetString(PyExc_ValueError, "a side of no kind, or of a hand past the C solver's keys");
            goto done;
        }
        int id = s->n;
        s->kind[id] = (char)kind;
        s->tiebreak[id] = (char)(tiebreak != 0);
        s->total[id] = (int)total;
        s->hand[id] = (int)hand;
        s->cards[id] = s->f24[id] = s->f36[id] = 0;
        for (int v = 0; v < 11; v++) s->after[id * 11 + v] = -1;
        s->n++;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int k = 0; k < 4; k++) Py_XDECREF(seqs[k]);
    return result;
}

/* -- the rule's seat: its hands and sides, and its turns built here ----------------------------- */

/* A rule side's key: a playing side's fields (playing_key), or an ended side's kind, total,
 * tiebreak and hand (a bust's and a ninth-card win's total and tiebreak are 0, as Python's tuples
 * ("B", 0, False, hand) and ("W", 0, False, hand) have them). */
static inline uint64_t their_key(int kind, const Playing *side) {
    return playing_key(side) | (uint64_t)kind << 53;
}

/* The id of the rule's side of `kind` (ended sides keep only their total, tiebreak and hand),
 * numbered next if new, as Seat.side numbers it. -1: an exception is set. */
static int their_side(Core *self, int kind, Playing side) {
    if (kind != PLAYING) side.cards = side.f24 = side.f36 = 0;
    if (kind == BUST || kind == NINE_WIN) side.total = side.tiebreak = 0;
    side.tiebreak = side.tiebreak != 0;
    if (!side_in_range(&self->their_hands, &side))
        return fail_status(self->too_large, "a side of the rule past the C solver's keys");
    uint64_t key = their_key(kind, &side);
    int found = idmap_get(&self->their_ids, key);
    if (found >= 0) return found;
    Sides *s = &self->theirs;
    if (s->n >= MAX_ID)
        return fail_status(self->too_large, "the search needs more sides than the C solver can number");
    if (sides_room(s, 1) < 0 || idmap_put(&self->their_ids, key, s->n) < 0) return -1;
    int id = s->n++;
    s->kind[id] = (char)kind;
    s->tiebreak[id] = (char)side.tiebreak;
    s->total[id] = side.total;
    s->hand[id] = side.hand;
    s->cards[id] = side.cards;
    s->f24[id] = side.f24;
    s->f36[id] = side.f36;
    for (int v = 0; v < 11; v++) s->after[id * 11 + v] = -1;
    return id;
}

PyDoc_STRVAR(core_set_sides_rules_doc,
             "set_sides_rules(table_size, nine_win, any_tiebreak, flip_all): the rules the rule's "
             "turns are built by (its target is the core's)");
static PyObject *core_set_sides_rules(Core *self, PyObject *args) {
    SideRules *r = &self->rules;
    if (!PyArg_ParseTuple(args, "ippp", &r->table_size, &r->nine_win, &r->any_tiebreak, &r->flip_all))
        return NULL;
    if (r->table_size < 1 || r->table_size > 15)
        return fail(PyExc_ValueError, "a table of 1 to 15 cards");
    r->target = self->target;
    self->rules_set = 1;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_add_their_hands_doc,
             "add_their_hands(hands, flexible): the rule's next hands by id, as the set core takes "
             "hands (their plays in the rule's order of tries), and for each of their plays in turn "
             "whether it tries a card whose sign the rule chooses");
static PyObject *core_add_their_hands(Core *self, PyObject *args) {
    PyObject *hands, *flexible;
    if (!PyArg_ParseTuple(args, "OO", &hands, &flexible)) return NULL;
    PyObject *flags = PySequence_Fast(flexible, "flexible must be a sequence");
    if (!flags) return NULL;
    Hands *h = &self->their_hands;
    int first = h->nplays;
    PyObject *batch = PyTuple_Pack(1, hands);
    if (!batch || hands_add(h, batch, MAX_ID) < 0) {
        Py_XDECREF(batch);
        Py_DECREF(flags);
        return NULL;
    }
    Py_DECREF(batch);
    Py_ssize_t n = PySequence_Fast_GET_SIZE(flags);
    if (n != h->nplays - first) {
        Py_DECREF(flags);
        return fail(PyExc_ValueError, "one flag for each play of the hands added");
    }
    if (room_for((void **)&self->flexible, first, &self->capflexible, n, 1) < 0) {
        Py_DECREF(flags);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int flag = PyObject_IsTrue(PySequence_Fast_GET_ITEM(flags, i));
        if (flag < 0) {
            Py_DECREF(flags);
            return NULL;
        }
        self->flexible[first + i] = (char)flag;
    }
    Py_DECREF(flags);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_add_their_sides_doc,
             "add_their_sides(sides): the rule's next sides as Python interned them, each "
             "(total, cards, hand, f24, f36, tiebreak) or (tag, total, tiebreak, hand), tag 'S', "
             "'B' or 'W'");
static PyObject *core_add_their_sides(Core *self, PyObject *args) {
    PyObject *seq = sequence_argument(args, "sides must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        Playing side = {0, 0, 0, 0, 0, 0};
        int kind = PLAYING;
        const char *tag;
        if (PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 6) {
            if (!PyArg_ParseTuple(item, "iiiiii", &side.total, &side.cards, &side.hand, &side.f24,
                                  &side.f36, &side.tiebreak))
                goto failed;
        } else if (PyArg_ParseTuple(item, "siii", &tag, &side.total, &side.tiebreak, &side.hand)) {
            kind = tag[0] == 'S' ? STANDING : tag[0] == 'B' ? BUST : tag[0] == 'W' ? NINE_WIN : -1;
            if (kind < 0 || tag[1]) {
                PyErr_SetString(PyExc_ValueError, "an ended side's tag is 'S', 'B' or 'W'");
                goto failed;
            }
        } else {
            goto failed;
        }
        int before = self->theirs.n, id = their_side(self, kind, side);
        if (id < 0) goto failed;
        if (id != before) {
            PyErr_SetString(PyExc_ValueError, "that side of the rule is held already");
            goto failed;
        }
    }
    Py_DECREF(seq);
    Py_RETURN_NONE;
failed:
    Py_DECREF(seq);
    return NULL;
}

PyDoc_STRVAR(core_their_sides_from_doc,
             "their_sides_from(start) -> the rule's sides from id start on, as Python interns "
             "them: (total, cards, hand, f24, f36, tiebreak) or (tag, total, tiebreak, hand)");
static PyObject *core_their_sides_from(Core *self, PyObject *args) {
    int start;
    if (!PyArg_ParseTuple(args, "i", &start)) return NULL;
    const Sides *s = &self->theirs;
    if (start < 0 || start > s->n) return fail(PyExc_IndexError, "no such side");
    PyObject *sides = PyList_New(s->n - start);
    if (!sides) return NULL;
    for (int id = start; id < s->n; id++) {
        static const char *tags[] = {"", "S", "B", "W"};
        PyObject *side =
            s->kind[id] == PLAYING
                ? Py_BuildValue("(iiiiiN)", s->total[id], s->cards[id], s->hand[id], s->f24[id], s->f36[id],
                                PyBool_FromLong(s->tiebreak[id]))
                : Py_BuildValue("(siNi)", tags[(int)s->kind[id]], s->total[id],
                                PyBool_FromLong(s->tiebreak[id]), s->hand[id]);
        if (!side) {
            Py_DECREF(sides);
            return NULL;
        }
        PyList_SET_ITEM(sides, id - start, side);
    }
    return sides;
}

/* The code of the one way the rules let a turn end once the rule's side `side` holds its last
 * card of the turn (`full`: its table's last slot), past the free end (Seat.end_codes' first
 * where the side is full or at or over the target). -1: an exception is set. */
static int their_forced_end(Core *self, Playing side, int tiebreaker_last, int full) {
    switch (turn_end(&self->rules, side.total, full)) {
    case BUST_END:
    case NINTH_BUST_END:
        return their_side(self, BUST, side);
    case NINTH_WIN_END:
        return their_side(self, NINE_WIN, side);
    case FREE_END:
        return fail_status(PyExc_RuntimeError, "a free end is not forced");
    default:
        side.tiebreak = side.tiebreak || (tiebreaker_last && !self->rules.any_tiebreak);
        return their_side(self, STANDING, side);
    }
}

/* rule_opponent._total_after: the total of `side` once `play` is played on it, the card last on
 * its table worth `last`. */
static inline int total_after(const Playing *side, int last, const Play *play) {
    switch (play->kind) {
    case PLAIN:
    case TIEBREAKER:
        return side->total + play->value;
    case DOUBLE:
        return side->total + last;
    case FLIP24:
        return side->total - 2 * side->f24;
    default:
        return side->total - 2 * side->f36;
    }
}

/* RuleSeat.turn, flattened (as turn_of reads it), built here into `data`: what the rule's side
 * `opp` can do after drawing `value`, its sides interned in Seat.side's order. Its turn id, or
 * -1 with an exception set. */
static int build_turn(Core *self, int opp, int value) {
    const Hands *h = &self->their_hands;
    const SideRules *r = &self->rules;
    if (!self->rules_set) return fail_status(PyExc_RuntimeError, "set_sides_rules first");
    if (self->theirs.kind[opp] != PLAYING || self->theirs.hand[opp] >= h->count)
        return fail_status(PyExc_ValueError, "a turn of a rule side playing, of a hand added");
    const Sides *s = &self->theirs; /* (read before any side is added: they may move) */
    Playing side = {s->total[opp], s->cards[opp], s->hand[opp], s->f24[opp], s->f36[opp], s->tiebreak[opp]};
    Playing placed = place_card(h, r, side, value, side.hand);
    int hand = placed.hand, size = r->table_size, target = r->target;
    int first = h->plays_start[hand], nplays = h->plays_len[hand];
    int need = 5 + 3 * nplays;
    for (int i = 0; i < nplays; i++) need += 6 + 2 * h->plays_len[h->plays[first + i].rest];
    if (codes_room(&self->turn_at, self->nturns, &self->capturns, 1) < 0 ||
        codes_room(&self->data, self->ndata, &self->capdata, need) < 0)
        return -1;
    int start = self->ndata, at = start;
    int *d = self->data; /* (interning sides does not move it) */
    if (placed.cards >= size || placed.total == target) {
        int code = their_forced_end(self, placed, 0, placed.cards >= size);
        if (code < 0) return -1;
        d[at++] = 0;
        d[at++] = code;
    } else {
        int over = placed.total > target;
        int end = their_side(self, over ? BUST : PLAYING, placed), stand = NO_STAND;
        if (end < 0) return -1;
        if (!over) {
            Playing stood = placed;
            if ((stand = their_side(self, STANDING, stood)) < 0) return -1;
        }
        d[at++] = 1;
        d[at++] = placed.total;
        d[at++] = end;
        d[at++] = stand;
        d[at++] = nplays;
        int tries = at, starts = at + 2 * nplays, body = starts + nplays;
        for (int i = 0; i < nplays; i++) {
            const Play *play = &h->plays[first + i];
            Playing after = play_card(h, r, placed, value, play);
            int tiebreaker = play->kind == TIEBREAKER, full = after.cards >= size;
            d[tries + 2 * i] = after.total;
            d[tries + 2 * i + 1] = self->flexible[first + i];
            d[starts + i] = body - start;
            if (full || after.total >= target) {
                int forced = their_forced_end(self, after, tiebreaker, full);
                if (forced < 0) return -1;
                int row[6] = {after.total, 1, forced, NO_STAND, NO_STAND, 0};
                memcpy(d + body, row, sizeof row);
                body += 6;
                continue;
            }
            /* step 4 reads the tries of the hand left on the table after the card: a Double
             * copies the card now last on the table, the one just played (a flip is placed as 0) */
            int last = play->kind == DOUBLE ? value
                       : play->kind == FLIP24 || play->kind == FLIP36 ? 0
                                                                     : play->value;
            Playing stood = after;
            stood.tiebreak = after.tiebreak || (tiebreaker && !r->any_tiebreak);
            int stood_code = their_side(self, STANDING, stood);
            if (stood_code < 0) return -1;
            int end_code = their_side(self, PLAYING, after);
            if (end_code < 0) return -1;
            int left_first = h->plays_start[after.hand], nleft = h->plays_len[after.hand];
            d[body++] = after.total;
            d[body++] = 0;
            d[body++] = 0;
            d[body++] = end_code;
            d[body++] = stood_code;
            d[body++] = nleft;
            for (int k = 0; k < nleft; k++) {
                d[body++] = total_after(&after, last, &h->plays[left_first + k]);
                d[body++] = self->flexible[left_first + k];
            }
        }
        at = body;
    }
    self->ndata = at;
    int turn = self->nturns++;
    self->turn_at[turn] = start;
    self->theirs.after[opp * 11 + value] = turn;
    return turn;
}

CORE_ADD_LIST(MAX_ID)

PyDoc_STRVAR(core_add_context_doc,
             "add_context(my_sets, model, fixed) -> the next context id: the sets the advised "
             "player has won, its deck model, whether that model draws with fixed odds");
static PyObject *core_add_context(Core *self, PyObject *args) {
    int sets, model, fixed;
    if (!PyArg_ParseTuple(args, "iip", &sets, &model, &fixed)) return NULL;
    if (self->ncontexts >= MAX_CONTEXTS || model < 0)
        return fail(PyExc_OverflowError, "more contexts than the C solver's keys can hold");
    if (self->ncontexts == self->capcontexts) {
        int cap = self->capcontexts ? self->capcontexts * 2 : 64;
        if (grow((void **)&self->ctx_sets, cap, sizeof(int)) < 0 ||
            grow((void **)&self->ctx_model, cap, sizeof(int)) < 0 ||
            grow((void **)&self->ctx_fixed, cap, 1) < 0 || grow((void **)&self->ctx_slot, cap, sizeof(int)) < 0)
            return PyErr_NoMemory();
        self->capcontexts = cap;
    }
    if (model >= self->nmodels) {
        if (grow((void **)&self->models, model + 1, sizeof(Model)) < 0) return PyErr_NoMemory();
        memset(self->models + self->nmodels, 0, sizeof(Model) * (size_t)(model + 1 - self->nmodels));
        self->nmodels = model + 1;
    }
    int id = self->ncontexts++;
    self->ctx_sets[id] = sets;
    self->ctx_model[id] = model;
    self->ctx_fixed[id] = (char)fixed;
    self->ctx_slot[id] = -1;
    return PyLong_FromLong(id);
}

/* -- decks and slots --------------------------------------------------------------------------- */

/* The draws from `deck` in `context`'s model, asked of Python the first time (copied into *out:
 * the model's array may move while the caller recurses). -1: an exception is set. */
static int draws_of(Core *self, int context, int deck, Draws *out) {
    Model *model = &self->models[self->ctx_model[context]];
    if (deck < 0) return fail_status(PyExc_IndexError, "no such deck");
    if (deck < model->ndecks && model->decks[deck].ndraws) {
        *out = model->decks[deck];
        return 0;
    }
    PyObject *result = PyObject_CallFunction(self->draws, "ii", self->ctx_model[context], deck);
    if (!result) return -1;
    PyObject *seq = PySequence_Fast(result, "draws must be a sequence");
    Py_DECREF(result);
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 10) return fail_status_releasing(seq, PyExc_ValueError, "one to ten draws");
    Draws draws = {(int)n, {0}, {0}, {0}};
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "idi", &draws.value[i], &draws.p[i],
                              &draws.rest[i])) {
            Py_DECREF(seq);
            return -1;
        }
        if (draws.value[i] < 1 || draws.value[i] > 10 || draws.rest[i] < 0)
            return fail_status_releasing(seq, PyExc_ValueError, "a draw of no value or no deck");
    }
    Py_DECREF(seq);
    model = &self->models[self->ctx_model[context]]; /* (the callback may have added models) */
    if (deck >= model->ndecks) {
        int cap = model->ndecks ? model->ndecks : 16;
        while (cap <= deck) cap *= 2;
        if (grow((void **)&model->decks, cap, sizeof(Draws)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        memset(model->decks + model->ndecks, 0, sizeof(Draws) * (size_t)(cap - model->ndecks));
        model->ndecks = cap;
    }
    model->decks[deck] = draws;
    *out = draws;
    return 0;
}

/* The slot of (context, deck) in the positions' keys; -1: an exception is set. */
static int slot_of(Core *self, int context, int deck) {
    int fixed = self->ctx_fixed[context];
    if (fixed && self->ctx_slot[context] >= 0) return self->ctx_slot[context];
    uint64_t key = (((uint64_t)(uint32_t)context << 32) | (uint32_t)(fixed ? 0 : deck)) + 1;
    double found, unused;
    if (memo_read(&self->slot_of, key, &found, &unused)) return (int)found;
    if (self->nslots >= MAX_SLOTS)
        return fail_status(self->too_large, "the search meets more decks than the C solver can number");
    int slot = self->nslots++;
    if (keep(&self->slot_of, key, (double)slot, 0.0) < 0) return -1;
    if (fixed) self->ctx_slot[context] = slot;
    return slot;
}

/* -- the rule's replies (RuleSeat.reply, RuleSeat.replies) ------------------------------------ */

/* The flattened turn of the rule's side `opp` after drawing `value`, built the first time
 * (build_turn, as RuleSeat.turn and match_kotor._flat_turn give it):
 *   forced:  0, code
 *   choices: 1, total, end, stand, ntries, (total, flexible) * ntries, then where each play
 *            starts (counted from the turn's own start) * ntries
 *   a play:  total, forced (0/1), forced code, end, stand, nleft, (total, flexible) * nleft
 * Its id, or -1 with an exception set. */
static inline int turn_of(Core *self, int opp, int value) {
    int turn = self->theirs.after[opp * 11 + value];
    return turn >= 0 ? turn : build_turn(self, opp, value);
}

PyDoc_STRVAR(core_turn_doc,
             "turn(opp, value) -> the rule side's turn after drawing value, a tuple flattened as "
             "match_kotor._flat_turn gives RuleSeat.turn (its sides interned here)");
static PyObject *core_turn(Core *self, PyObject *args) {
    int opp, value;
    if (!PyArg_ParseTuple(args, "ii", &opp, &value)) return NULL;
    if (opp < 0 || opp >= self->theirs.n || value < 1 || value > 10)
        return fail(PyExc_IndexError, "no such rule side, or no such value drawn");
    int turn = turn_of(self, opp, value);
    if (turn < 0) return NULL;
    const int *t = self->data + self->turn_at[turn];
    int n = turn + 1 < self->nturns ? self->turn_at[turn + 1] - self->turn_at[turn]
                                     : self->ndata - self->turn_at[turn];
    return codes_tuple(t, n);
}

/* The turn-end code the rule reaches from side `opp` after drawing `value`, facing my total
 * `mine` (standing or not) and my `sets` won. -3: an exception is set. */
static int reply(Core *self, int opp, int value, int mine, int i_stand, int sets) {
    int turn = turn_of(self, opp, value);
    if (turn < 0) return -3;
    const int *t = self->data + self->turn_at[turn];
    if (t[0] == 0) return t[1];
    RuleParams params = {self->rule, self->target, self->sets_to_win, sets};
    int total = t[1], end = t[2], stand = t[3], ntries = t[4];
    int choice = decide(&params, total, mine, i_stand, t + 5, ntries, 0);
    if (choice == END_TURN) return end;
    if (choice == STAND) {
        if (stand == NO_STAND) return fail_status(PyExc_RuntimeError, "the rule stood over the target");
        return stand;
    }
    const int *play = t + t[5 + 2 * ntries + choice];
    if (play[1]) return play[2];
    int then = decide(&params, play[0], mine, i_stand, play + 6, play[5], 1);
    return then == END_TURN ? play[3] : play[4];
}

/* Where the row of the rule's replies from side `opp`, facing my total `mine` (standing or not)
 * and my `sets` won, is numbered in the direct index (blocks of REPLY_SPAN totals a sets won and
 * a standing, one block a rule side, made when that side is first asked): its place in
 * reply_index, or -1 where the hash row_of keeps it (a total or a count of sets past the block,
 * or the index at its bound). The index reads one int where the hash probed a table of all the
 * rows asked: a fifth of the recursion's time went to those probes. -2: no memory. */
static long reply_place(Core *self, int opp, int mine, int i_stand, int sets) {
    if (mine < REPLY_LOW || mine >= REPLY_LOW + REPLY_SPAN || sets >= self->sets_to_win) return -1;
    if (opp >= self->nblocks) {
        int cap = self->nblocks ? self->nblocks : 1024;
        while (cap <= opp) cap *= 2;
        if (grow((void **)&self->reply_block, cap, sizeof(long)) < 0) return -2;
        for (int i = self->nblocks; i < cap; i++) self->reply_block[i] = -1;
        self->nblocks = cap;
    }
    long block = self->reply_block[opp];
    if (block < 0) {
        size_t size = (size_t)self->sets_to_win * 2 * REPLY_SPAN;
        if (self->nindex + size > REPLY_INDEX_MAX) return -1;
        if (self->nindex + size > self->capindex) {
            size_t cap = self->capindex ? self->capindex : 1 << 14;
            while (cap < self->nindex + size) cap *= 2;
            if (grow((void **)&self->reply_index, (int)cap, sizeof(int)) < 0) return -2;
            self->capindex = cap;
        }
        block = (long)self->nindex;
        for (size_t i = 0; i < size; i++) self->reply_index[self->nindex + i] = -1;
        self->nindex += size;
        self->reply_block[opp] = block;
    }
    return block + ((long)sets * 2 + i_stand) * REPLY_SPAN + (mine - REPLY_LOW);
}

/* The rule's codes after each draw 1..10 (index 0 unused) into codes[]. -1: an exception. */
static int replies(Core *self, int opp, int mine, int i_stand, int sets, int codes[11]) {
    if (mine < -1000 || mine > 3000 || sets < 0 || sets > 31)
        return fail_status(PyExc_OverflowError, "a total beyond the C solver's keys");
    long place = reply_place(self, opp, mine, i_stand, sets);
    if (place == -2) {
        PyErr_NoMemory();
        return -1;
    }
    uint64_t key = ((((((uint64_t)opp << 12) | (uint64_t)(mine + 1024)) << 5 | (uint64_t)sets) << 1) |
                    (uint64_t)i_stand) + 1;
    int known = place >= 0 ? self->reply_index[place] : -1;
    double found, unused;
    if (place < 0 && memo_read(&self->row_of, key, &found, &unused)) known = (int)found;
    if (known >= 0) {
        memcpy(codes, self->rows + (size_t)known * 11, sizeof(int) * 11);
        return 0;
    }
    codes[0] = 0;
    for (int value = 1; value <= 10; value++) {
        int code = reply(self, opp, value, mine, i_stand, sets);
        if (code == -3) return -1;
        if (code < 0 || code >= self->theirs.n)
            return fail_status(PyExc_IndexError, "the rule's turn names a side not added");
        codes[value] = code;
    }
    if (self->nrows == self->caprows) {
        int cap = self->caprows ? self->caprows * 2 : 1024;
        if (grow((void **)&self->rows, cap * 11, sizeof(int)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        self->caprows = cap;
    }
    int row = self->nrows++;
    memcpy(self->rows + (size_t)row * 11, codes, sizeof(int) * 11);
    if (place >= 0) {
        self->reply_index[place] = row;
        return 0;
    }
    return keep(&self->row_of, key, (double)row, 0.0);
}

/* -- the memo: the main table, or the scratch table of the match state iterated ---------------- */

/* The level iterated where the position (context, me, opp) is one of its (the match state's
 * contexts and both its hands: KotorMatchSolver._is_live), else NULL. */
static inline Level *live_table(Core *self, int context, int me, int opp) {
    if (!self->nlevels) return NULL;
    Level *level = &self->levels[self->nlevels - 1];
    if (self->mine.hand[me] != level->my_hand || self->theirs.hand[opp] != level->its_hand) return NULL;
    for (int i = 0; i < level->ncontexts; i++)
        if (level->contexts[i] == context) return level;
    return NULL;
}

/* A position of the level iterated, solved in this try, or in an earlier one where its choices
 * stand at the value tried now: its line, and what the search reading it narrows (the interval,
 * whether the value tried was read). Read from an earlier try, it is not counted again: `solved`
 * counts the positions searched. 1: found; 0: not (or its choices do not stand). */
static inline int live_read(Core *self, Level *level, uint64_t key, double *v, double *d) {
    Line *slot = lines_find(&level->scratch, key);
    if (slot->key != key) return 0;
    if (slot->epoch != level->epoch) {
        if (!(slot->lo <= self->x && self->x <= slot->hi)) return 0;
        slot->epoch = level->epoch;
    }
    if (slot->lo > self->low) self->low = slot->lo;
    if (slot->hi < self->high) self->high = slot->hi;
    if (slot->reads) self->read_unknown = 1;
    *v = slot->a;
    *d = slot->b;
    return 1;
}

/* Keep a position of the level iterated, its choices standing over [low, high]. */
static inline int live_store(Core *self, Level *level, uint64_t key, double v, double d, double low,
                             double high) {
    Line *slot = lines_slot(&level->scratch, key);
    if (!slot) return -1;
    slot->a = v;
    slot->b = d;
    slot->lo = low;
    slot->hi = high;
    slot->reads = self->read_unknown;
    slot->epoch = level->epoch;
    return 0;
}

/* What a search of the level iterated narrows (the interval, whether the value tried was read)
 * is its own, kept with it, and then the outer search's too. */
typedef struct {
    double low, high;
    int reads;
} Outer;

static inline Outer live_begin(Core *self, const Level *live) {
    Outer outer = {self->low, self->high, self->read_unknown};
    if (live) {
        self->low = -INFINITY;
        self->high = INFINITY;
        self->read_unknown = 0;
    }
    return outer;
}

static inline void live_end(Core *self, Outer outer) {
    if (self->low < outer.low) self->low = outer.low;
    if (self->high > outer.high) self->high = outer.high;
    self->read_unknown |= outer.reads;
}

static inline int memo_lookup(Core *self, Level *live, uint64_t key, double *v, double *d) {
    if (live) return live_read(self, live, key, v, d);
    if (values_read(&self->memo, key, v)) {
        *d = 0.0;
        return 1;
    }
    return self->sloped.size && memo_read(&self->sloped, key, v, d);
}

/* Keep a position outside the level iterated: a value in the main table (its slope +0.0). */
static inline int memo_store(Core *self, uint64_t key, double v, double d) {
    if (d == 0.0 && !signbit(d)) return values_keep(&self->memo, key, v);
    return keep(&self->sloped, key, v, d);
}

/* Ask ahead for the slot of the position `key`, in `live`'s scratch table or the main one. */
#define POSITION_PREFETCH(self, live, key)                                                        \
    do {                                                                                          \
        if (live)                                                                                 \
            PREFETCH(&(live)->scratch.slots[(size_t)memo_mix(key) & ((live)->scratch.cap - 1)]);  \
        else                                                                                      \
            PREFETCH(&(self)->memo.slots[values_index(&(self)->memo, (key))]);                    \
    } while (0)

/* One more position before a draw: the budget, Ctrl-C and progress (KotorMatchSolver._new_position). */
static int count_position(Core *self) {
    if (count_solved(&self->solved, &self->reported, self->progress) < 0) return -1;
    if (self->budget >= 0 && self->solved >= (uint64_t)self->budget)
        return fail_status(self->too_large, "the exact solve exceeds its state budget");
    return 0;
}

/* A position before a draw is solved: kept in its level with what its search narrowed, which
 * then narrows the outer search's (live_begin), or in the main table. */
static inline int position_solved(Core *self, Level *live, uint64_t key, double v, double d, Outer outer) {
    if (!live) return memo_store(self, key, v, d);
    int status = live_store(self, live, key, v, d, self->low, self->high);
    live_end(self, outer);
    return status;
}

/* -- the recursion ----------------------------------------------------------------------------- */

static int my_before(Core *self, int context, int slot, int me, int opp, int deck, double *v, double *d);
static int opp_before(Core *self, int context, int slot, int me, int opp, int deck, double *v, double *d);

/* The value once a set of `context` ends (`winner` -1: a tie) with these hands left (_set_over). */
static int set_over(Core *self, int context, int winner, int my_hand, int its_hand, double *v, double *d) {
    uint64_t key = ((((uint64_t)context << 2 | (uint64_t)(winner + 1)) << ID_BITS | (uint64_t)my_hand)
                        << ID_BITS |
                    (uint64_t)its_hand) + 1;
    if (memo_read(&self->overs, key, v, d)) return 0;
    if (memo_read(&self->volatile_overs, key, v, d)) {
        self->read_unknown = 1;
        return 0;
    }
    PyObject *result = PyObject_CallFunction(self->over, "iiii", context, winner, my_hand, its_hand);
    if (!result) return -1;
    int final;
    int parsed = PyArg_ParseTuple(result, "ddp", v, d, &final);
    Py_DECREF(result);
    if (!parsed) return -1;
    if (final) return keep(&self->overs, key, *v, *d);
    self->read_unknown = 1;
    return keep(&self->volatile_overs, key, *v, *d);
}

/* Both stand: the higher total wins; equal totals go to a lone tiebreaker (-1: a tie). */
static inline int winner_of(const Core *self, int me, int opp) {
    int a = self->mine.total[me], b = self->theirs.total[opp];
    if (a != b) return a > b ? ME : OPP;
    if (self->mine.tiebreak[me] != self->theirs.tiebreak[opp]) return self->mine.tiebreak[me] ? ME : OPP;
    return -1;
}

/* The value once `mover`'s turn ended, my side `me` against the rule's `opp` (_turn_ended):
 * `slot` is (context, deck)'s. */
static int turn_ended(Core *self, int context, int slot, int mover, int me, int opp, int deck, double *v,
                      double *d) {
    int kind, other_stands;
    if (mover == ME) {
        kind = self->mine.kind[me];
        other_stands = self->theirs.kind[opp] == STANDING;
    } else {
        kind = self->theirs.kind[opp];
        other_stands = self->mine.kind[me] == STANDING;
    }
    if (kind <= STANDING && !other_stands) {
        mover = 1 - mover;
    } else if (kind == STANDING) {
        return set_over(self, context, winner_of(self, me, opp), self->mine.hand[me], self->theirs.hand[opp],
                        v, d);
    } else if (kind != PLAYING) {
        int winner = kind == BUST ? 1 - mover : mover;
        return set_over(self, context, winner, self->mine.hand[me], self->theirs.hand[opp], v, d);
    }
    if (mover == ME) return my_before(self, context, slot, me, opp, deck, v, d);
    return opp_before(self, context, slot, me, opp, deck, v, d);
}

/* Narrow the interval of values tried over which the choice of the line (value, slope) among
 * the lines `seen` stands, each by CHOICE_MARGIN (KotorMatchSolver._narrow). */
static void narrow(Core *self, double value, double slope, const double *seen, int n) {
    double low = self->low, high = self->high;
    for (int i = 0; i < n; i++) {
        double other = seen[2 * i], other_slope = seen[2 * i + 1];
        if (other_slope > slope) {
            double t = (value - other - CHOICE_MARGIN) / (other_slope - slope);
            if (t < high) high = t;
        } else if (other_slope < slope) {
            double t = (other - value + CHOICE_MARGIN) / (slope - other_slope);
            if (t > low) low = t;
        }
    }
    self->low = low;
    self->high = high;
}

/* My best end of turn from list `list` against `opp` in slot `slot` (deck `deck`), as
 * my_before_draw's inner loop: the first of the highest values. */
static int my_choice(Core *self, int context, int slot, int list, int opp, int deck, Level *live, double *bv,
                     double *bd) {
    uint64_t key = position_key(slot, 2, list, opp);
    if (memo_lookup(self, live, key, bv, bd)) return 0;
    Outer outer = live_begin(self, live);
    int they_stand = self->theirs.kind[opp] == STANDING;
    int start = self->list_start[list], len = self->list_len[list];
    double stack_seen[2 * SEEN_ON_STACK];
    double *seen = NULL;
    if (live) seen = len <= SEEN_ON_STACK ? stack_seen : malloc(sizeof(double) * 2 * (size_t)len);
    if (live && !seen) {
        PyErr_NoMemory();
        return -1;
    }
    int nseen = 0, status = 0;
    double best = -1.0, best_slope = 0.0, best_at = -1.0, x = self->x;
    for (int k = 0; k < len; k++) { /* ask the memory for every child's slot at once */
        int code = self->codes[start + k], kind = self->mine.kind[code];
        if (kind == PLAYING || (kind == STANDING && !they_stand)) {
            Level *table = live_table(self, context, code, opp);
            POSITION_PREFETCH(self, table, position_key(slot, they_stand ? 0 : 1, code, opp));
        }
    }
    for (int k = 0; k < len; k++) {
        int code = self->codes[start + k]; /* (read again: the codes may move as lists are added) */
        int kind = self->mine.kind[code];
        double cv, cd;
        if (kind == PLAYING && they_stand)
            status = my_before(self, context, slot, code, opp, deck, &cv, &cd);
        else if (kind <= STANDING && !they_stand)
            status = opp_before(self, context, slot, code, opp, deck, &cv, &cd);
        else
            status = turn_ended(self, context, slot, ME, code, opp, deck, &cv, &cd);
        if (status < 0) break;
        if (seen) { /* a line in the value tried: compared where it is, every one seen */
            seen[2 * nseen] = cv;
            seen[2 * nseen + 1] = cd;
            nseen++;
            double at = cv + cd * x;
            if (at > best_at) {
                best = cv;
                best_slope = cd;
                best_at = at;
            }
        } else if (cv > best) {
            best = cv;
            best_slope = cd;
            if (best >= 1.0) break;
        }
    }
    if (status == 0) {
        self->solved++;
        if (seen) {
            narrow(self, best, best_slope, seen, nseen);
            status = live_store(self, live, key, best, best_slope, self->low, self->high);
            live_end(self, outer);
        } else {
            status = memo_store(self, key, best, best_slope);
        }
    }
    if (seen && seen != stack_seen) free(seen);
    *bv = best;
    *bd = best_slope;
    return status;
}

/* I (side `me`, playing) am about to draw against the rule's side `opp` (my_before_draw). */
static int my_before(Core *self, int context, int slot, int me, int opp, int deck, double *v, double *d) {
    Level *live = live_table(self, context, me, opp);
    uint64_t key = position_key(slot, 0, me, opp);
    if (memo_lookup(self, live, key, v, d)) return 0;
    if (count_position(self) < 0) return -1;
    Outer outer = live_begin(self, live);
    Draws draws;
    if (draws_of(self, context, deck, &draws) < 0) return -1;
    int lists[10], children[10];
    for (int i = 0; i < draws.ndraws; i++) { /* the choices' keys, their slots asked for at once */
        int drawn = draws.value[i], rest = draws.rest[i];
        int list = self->mine.after[me * 11 + drawn];
        if (list < 0) {
            list = call_expand(self->expand, me, drawn, &self->nlists);
            if (list < 0) return -1;
            self->mine.after[me * 11 + drawn] = list;
        }
        int child = rest == deck ? slot : slot_of(self, context, rest);
        if (child < 0) return -1;
        lists[i] = list;
        children[i] = child;
        POSITION_PREFETCH(self, live, position_key(child, 2, list, opp));
    }
    double value = 0.0, slope = 0.0;
    for (int i = 0; i < draws.ndraws; i++) {
        double bv, bd;
        if (my_choice(self, context, children[i], lists[i], opp, draws.rest[i], live, &bv, &bd) < 0)
            return -1;
        value += draws.p[i] * bv;
        slope += draws.p[i] * bd;
    }
    *v = value;
    *d = slope;
    return position_solved(self, live, key, value, slope, outer);
}

/* The rule (side `opp`, playing) is about to draw against my side `me` (opp_before_draw). */
static int opp_before(Core *self, int context, int slot, int me, int opp, int deck, double *v, double *d) {
    Level *live = live_table(self, context, me, opp);
    uint64_t key = position_key(slot, 1, me, opp);
    if (memo_lookup(self, live, key, v, d)) return 0;
    if (count_position(self) < 0) return -1;
    Outer outer = live_begin(self, live);
    Draws draws;
    if (draws_of(self, context, deck, &draws) < 0) return -1;
    int codes[11];
    if (replies(self, opp, self->mine.total[me], self->mine.kind[me] == STANDING, self->ctx_sets[context],
                codes) < 0)
        return -1;
    int i_stand = self->mine.kind[me] == STANDING, children[10];
    for (int i = 0; i < draws.ndraws; i++) { /* the children's slots asked for at once */
        int rest = draws.rest[i], code = codes[draws.value[i]], kind = self->theirs.kind[code];
        int child = rest == deck ? slot : slot_of(self, context, rest);
        if (child < 0) return -1;
        children[i] = child;
        if (kind == PLAYING || (kind == STANDING && !i_stand)) {
            Level *table = live_table(self, context, me, code);
            POSITION_PREFETCH(self, table, position_key(child, i_stand ? 1 : 0, me, code));
        }
    }
    double value = 0.0, slope = 0.0;
    for (int i = 0; i < draws.ndraws; i++) {
        double cv, cd;
        if (turn_ended(self, context, children[i], OPP, me, codes[draws.value[i]], draws.rest[i], &cv, &cd) < 0)
            return -1;
        value += draws.p[i] * cv;
        slope += draws.p[i] * cd;
    }
    *v = value;
    *d = slope;
    return position_solved(self, live, key, value, slope, outer);
}

/* -- the set's odds along the line chosen (KotorMatchSolver._odds_ended, _odds_before, _choice) -- */

static int odds_before(Core *self, int context, int slot, int mover, int me, int opp, int deck, double *win,
                       double *tie);

/* (P(I win the set), P(tie)) once it is decided: `winner` (-1: a tie). */
static inline void judged(int winner, double *win, double *tie) {
    *win = winner == ME ? 1.0 : 0.0;
    *tie = winner < 0 ? 1.0 : 0.0;
}

/* The set's odds once `mover`'s turn ended, both then playing on (I for the match, the rule by
 * its choice), in the order turn_ended says. */
static int odds_ended(Core *self, int context, int slot, int mover, int me, int opp, int deck, double *win,
                      double *tie) {
    int kind = mover == ME ? self->mine.kind[me] : self->theirs.kind[opp];
    int other_stands = mover == ME ? self->theirs.kind[opp] == STANDING : self->mine.kind[me] == STANDING;
    if (kind == PLAYING || (kind == STANDING && !other_stands)) {
        int drawer = kind == PLAYING && other_stands ? mover : 1 - mover;
        return odds_before(self, context, slot, drawer, me, opp, deck, win, tie);
    }
    if (kind == STANDING)
        judged(winner_of(self, me, opp), win, tie);
    else
        judged(kind == BUST ? 1 - mover : mover, win, tie);
    return 0;
}

/* My match-best turn end among list `list` (the first of the highest match values; among those
 * within the tolerance of the best, the first that keeps the most set equity): its code, or -1
 * with an exception set. */
static int odds_choice(Core *self, int context, int slot, int list, int opp, int deck) {
    int start = self->list_start[list], len = self->list_len[list];
    double best = 0.0, v, d;
    for (int k = 0; k < len; k++) { /* the best match value */
        if (turn_ended(self, context, slot, ME, self->codes[start + k], opp, deck, &v, &d) < 0) return -1;
        if (k == 0 || v > best) best = v;
    }
    int near = 0, first = -1; /* the ends near it (their values read again: all memoised) */
    for (int k = 0; k < len; k++) {
        int code = self->codes[start + k];
        if (turn_ended(self, context, slot, ME, code, opp, deck, &v, &d) < 0) return -1;
        if (v >= best - self->tolerance && !near++) first = code;
    }
    if (near == 1) return first;
    int chosen = -1;
    double most = 0.0;
    for (int k = 0; k < len; k++) { /* the first of those that keeps the most set equity */
        int code = self->codes[start + k];
        if (turn_ended(self, context, slot, ME, code, opp, deck, &v, &d) < 0) return -1;
        if (v < best - self->tolerance) continue;
        double win, tie;
        if (odds_ended(self, context, slot, ME, code, opp, deck, &win, &tie) < 0) return -1;
        double equity = 2.0 * win + tie - 1.0;
        if (chosen < 0 || equity > most) {
            most = equity;
            chosen = code;
        }
    }
    return chosen;
}

static int odds_before(Core *self, int context, int slot, int mover, int me, int opp, int deck, double *win,
                       double *tie) {
    uint64_t key = position_key(slot, mover, me, opp);
    if (memo_read(&self->odds, key, win, tie)) return 0;
    Draws draws;
    if (draws_of(self, context, deck, &draws) < 0) return -1;
    int codes[11];
    if (mover == OPP && replies(self, opp, self->mine.total[me], self->mine.kind[me] == STANDING,
                                self->ctx_sets[context], codes) < 0)
        return -1;
    double w = 0.0, t = 0.0;
    for (int i = 0; i < draws.ndraws; i++) {
        int drawn = draws.value[i], rest = draws.rest[i];
        int child = rest == deck ? slot : slot_of(self, context, rest);
        if (child < 0) return -1;
        double cw, ct;
        if (mover == OPP) {
            if (odds_ended(self, context, child, OPP, me, codes[drawn], rest, &cw, &ct) < 0) return -1;
        } else {
            int list = self->mine.after[me * 11 + drawn];
            if (list < 0) {
                list = call_expand(self->expand, me, drawn, &self->nlists);
                if (list < 0) return -1;
                self->mine.after[me * 11 + drawn] = list;
            }
            int code = odds_choice(self, context, child, list, opp, rest);
            if (code < 0 || odds_ended(self, context, child, ME, code, opp, rest, &cw, &ct) < 0) return -1;
        }
        w += draws.p[i] * cw;
        t += draws.p[i] * ct;
    }
    *win = w;
    *tie = t;
    return keep(&self->odds, key, w, t);
}

/* -- the entries from Python ------------------------------------------------------------------- */

static int check_position(Core *self, int context, int mover, int me, int opp, int deck) {
    if (context < 0 || context >= self->ncontexts || (mover != ME && mover != OPP) || me < 0 ||
        me >= self->mine.n || opp < 0 || opp >= self->theirs.n || deck < 0)
        return fail_status(PyExc_IndexError, "no such context, mover, side or deck");
    return 0;
}

PyDoc_STRVAR(core_before_doc,
             "before(context, mover, me, opp, deck) -> (value, slope): mover 0, I am about to draw "
             "(my_before_draw); 1, the rule is (opp_before_draw)");
static PyObject *core_before(Core *self, PyObject *args) {
    int context, mover, me, opp, deck;
    if (!PyArg_ParseTuple(args, "iiiii", &context, &mover, &me, &opp, &deck)) return NULL;
    if (check_position(self, context, mover, me, opp, deck) < 0) return NULL;
    if ((mover == ME ? self->mine.kind[me] : self->theirs.kind[opp]) != PLAYING)
        return fail(PyExc_ValueError, "the side to draw does not play");
    int slot = slot_of(self, context, deck);
    if (slot < 0) return NULL;
    double v = 0.0, d = 0.0;
    int status = mover == ME ? my_before(self, context, slot, me, opp, deck, &v, &d)
                             : opp_before(self, context, slot, me, opp, deck, &v, &d);
    if (status < 0) return NULL;
    return Py_BuildValue("(dd)", v, d);
}

PyDoc_STRVAR(core_turn_ended_doc,
             "turn_ended(context, mover, me, opp, deck) -> (value, slope) once mover's turn ended "
             "(_turn_ended)");
static PyObject *core_turn_ended(Core *self, PyObject *args) {
    int context, mover, me, opp, deck;
    if (!PyArg_ParseTuple(args, "iiiii", &context, &mover, &me, &opp, &deck)) return NULL;
    if (check_position(self, context, mover, me, opp, deck) < 0) return NULL;
    int slot = slot_of(self, context, deck);
    if (slot < 0) return NULL;
    double v = 0.0, d = 0.0;
    if (turn_ended(self, context, slot, mover, me, opp, deck, &v, &d) < 0) return NULL;
    return Py_BuildValue("(dd)", v, d);
}

PyDoc_STRVAR(core_odds_ended_doc,
             "odds_ended(context, mover, me, opp, deck, tolerance) -> (P(I win the set), P(tie)) once "
             "mover's turn ended, both playing on as the match values choose (_odds_ended)");
static PyObject *core_odds_ended(Core *self, PyObject *args) {
    int context, mover, me, opp, deck;
    double tolerance;
    if (!PyArg_ParseTuple(args, "iiiiid", &context, &mover, &me, &opp, &deck, &tolerance)) return NULL;
    if (check_position(self, context, mover, me, opp, deck) < 0) return NULL;
    int slot = slot_of(self, context, deck);
    if (slot < 0) return NULL;
    self->tolerance = tolerance;
    double win = 0.0, tie = 0.0;
    if (odds_ended(self, context, slot, mover, me, opp, deck, &win, &tie) < 0) return NULL;
    return Py_BuildValue("(dd)", win, tie);
}

PyDoc_STRVAR(core_replies_doc,
             "replies(opp, mine, i_stand, sets) -> the rule's turn-end codes after each draw 1..10 "
             "(a tuple of 11, index 0 unused): RuleSeat.replies, for the tests");
static PyObject *core_replies(Core *self, PyObject *args) {
    int opp, mine, i_stand, sets;
    if (!PyArg_ParseTuple(args, "iipi", &opp, &mine, &i_stand, &sets)) return NULL;
    if (opp < 0 || opp >= self->theirs.n || self->theirs.kind[opp] != PLAYING)
        return fail(PyExc_IndexError, "no such playing side of the rule");
    int codes[11];
    if (replies(self, opp, mine, i_stand, sets, codes) < 0) return NULL;
    PyObject *row = PyTuple_New(11);
    if (!row) return NULL;
    for (int i = 0; i < 11; i++) PyTuple_SET_ITEM(row, i, PyLong_FromLong(codes[i]));
    return row;
}

PyDoc_STRVAR(core_push_live_doc,
             "push_live(contexts, my_hand, its_hand): the match state whose fixed point is iterated "
             "now (one or two contexts); its positions go to a scratch table until pop_live");
static PyObject *core_push_live(Core *self, PyObject *args) {
    PyObject *items;
    int my_hand, its_hand, keep_lines = 0;
    if (!PyArg_ParseTuple(args, "Oii|p", &items, &my_hand, &its_hand, &keep_lines)) return NULL;
    if (self->nlevels >= MAX_LEVELS) return fail(self->too_large, "match states nested too deep for the C solver");
    PyObject *seq = PySequence_Fast(items, "contexts must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 2) return fail_releasing(seq, PyExc_ValueError, "one or two contexts");
    Level *level = &self->levels[self->nlevels];
    for (Py_ssize_t i = 0; i < n; i++) {
        long context;
        if (item_int(seq, i, &context) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
        level->contexts[i] = (int)context;
    }
    Py_DECREF(seq);
    level->ncontexts = (int)n;
    level->my_hand = my_hand;
    level->its_hand = its_hand;
    level->keep = keep_lines;
    level->epoch = 1;
    /* (a level's table is kept for the next state iterated at that depth: fresh memory costs a
     * page fault and its zeroing on every first write) */
    if (!level->scratch.slots && lines_grow(&level->scratch) < 0) return NULL;
    lines_clear(&level->scratch);
    self->nlevels++;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_pop_live_doc, "pop_live(): the match state iterated is done (its scratch table dropped)");
static PyObject *core_pop_live(Core *self, PyObject *unused) {
    (void)unused;
    if (!self->nlevels) return fail(PyExc_RuntimeError, "no match state is iterated");
    lines_clear(&self->levels[--self->nlevels].scratch);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_forget_doc,
             "forget(): a new value is tried for the match state iterated: its positions are read "
             "again only where their choices stand at it (never under the alternating openers), "
             "and stay counted (_forget)");
static PyObject *core_forget(Core *self, PyObject *unused) {
    (void)unused;
    if (!self->nlevels) Py_RETURN_NONE;
    Level *level = &self->levels[self->nlevels - 1];
    if (level->keep) {
        if (++level->epoch == 0) { /* (wrapped: no line may seem read in this try) */
            lines_clear(&level->scratch);
            level->epoch = 1;
        }
    } else {
        lines_clear(&level->scratch);
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_settle_doc,
             "settle(): the value iterated is known; drop its positions, counted as solved (a later "
             "read solves them again from the value found: values stay pure functions of their "
             "keys; _settle)");
static PyObject *core_settle(Core *self, PyObject *unused) {
    (void)unused;
    if (self->nlevels) lines_clear(&self->levels[self->nlevels - 1].scratch);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_clear_volatile_doc,
             "clear_volatile(): what Python iterates changed: forget the set ends that read it");
static PyObject *core_clear_volatile(Core *self, PyObject *unused) {
    (void)unused;
    memo_clear(&self->volatile_overs);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_own_tables_doc,
             "own_tables(huge): the main table of positions copied into memory of its own, in huge "
             "pages from now on where huge (a long search; a forked copy's: the pages it shared with "
             "the parent are then not copied and split a page at a time as either process writes)");
static PyObject *core_own_tables(Core *self, PyObject *args) {
    int huge;
    if (!PyArg_ParseTuple(args, "p", &huge)) return NULL;
    Values *t = &self->memo;
    t->huge = huge;
    int mapped;
    Value *own = values_alloc(t->cap, huge, &mapped);
    if (!own) return PyErr_NoMemory();
    memcpy(own, t->slots, t->cap * sizeof(Value));
    values_release(t->slots, t->cap, t->mapped);
    t->slots = own;
    t->mapped = mapped;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_clear_memo_doc,
             "clear_memo(): forget every position (between searches: bound_memo), keeping the sides, "
             "lists, turns, replies and the set ends' final values");
static PyObject *core_clear_memo(Core *self, PyObject *unused) {
    (void)unused;
    if (self->nlevels) return fail(PyExc_RuntimeError, "a match state is being iterated");
    values_clear(&self->memo);
    memo_clear(&self->sloped);
    memo_clear(&self->odds);
    memo_clear(&self->slot_of);
    self->nslots = 0;
    for (int i = 0; i < self->ncontexts; i++) self->ctx_slot[i] = -1;
    Py_RETURN_NONE;
}

/* -- attributes -------------------------------------------------------------------------------- */

static PyObject *core_get_solved(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->solved);
}

static int core_set_solved(Core *self, PyObject *value, void *closure) {
    (void)closure;
    if (!value) return fail_status(PyExc_TypeError, "solved cannot be deleted");
    unsigned long long solved = PyLong_AsUnsignedLongLong(value);
    if (solved == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    self->solved = solved;
    return 0;
}

static PyObject *core_get_main_bound(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->memo.max_cap);
}

/* A new bound on the main table's slots (the largest power of two within it, at least 1024):
 * a larger one lets the table grow on; a smaller one makes it forget at its size now. */
static int core_set_main_bound(Core *self, PyObject *value, void *closure) {
    (void)closure;
    if (!value) return fail_status(PyExc_TypeError, "main_bound cannot be deleted");
    Py_ssize_t slots = PyLong_AsSsize_t(value);
    if (slots == -1 && PyErr_Occurred()) return -1;
    size_t max_cap = 1 << 10;
    while (max_cap * 2 <= (size_t)slots) max_cap *= 2;
    self->memo.max_cap = max_cap;
    self->sloped.max_cap = max_cap;
    return 0;
}

static PyObject *core_get_interval(Core *self, void *closure) {
    (void)closure;
    return Py_BuildValue("(dd)", self->low, self->high);
}

static int core_set_interval(Core *self, PyObject *value, void *closure) {
    (void)closure;
    if (!value) return fail_status(PyExc_TypeError, "interval cannot be deleted");
    return PyArg_ParseTuple(value, "dd", &self->low, &self->high) ? 0 : -1;
}

static PyObject *core_get_x(Core *self, void *closure) {
    (void)closure;
    return PyFloat_FromDouble(self->x);
}

static int core_set_x(Core *self, PyObject *value, void *closure) {
    (void)closure;
    if (!value) return fail_status(PyExc_TypeError, "x cannot be deleted");
    double x = PyFloat_AsDouble(value);
    if (x == -1.0 && PyErr_Occurred()) return -1;
    self->x = x;
    return 0;
}

static PyObject *core_get_held(Core *self, void *closure) {
    (void)closure;
    size_t held = self->memo.size + self->sloped.size;
    for (int i = 0; i < self->nlevels; i++) held += self->levels[i].scratch.size;
    return PyLong_FromSize_t(held);
}

static PyObject *core_get_replaced(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->memo.replaced + self->sloped.replaced);
}

static PyObject *core_get_sloped_held(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->sloped.size + self->sloped.replaced);
}

static PyObject *core_get_memo_bytes(Core *self, void *closure) {
    (void)closure;
    size_t bytes = self->sloped.cap + self->odds.cap + self->overs.cap + self->volatile_overs.cap +
                   self->slot_of.cap + self->row_of.cap;
    size_t lines = 0;
    for (int i = 0; i < self->nlevels; i++) lines += self->levels[i].scratch.cap;
    return PyLong_FromSize_t(bytes * sizeof(Entry) + self->memo.cap * sizeof(Value) + lines * sizeof(Line));
}

static PyObject *core_get_huge_pages(Core *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(self->memo.huge);
}

static PyObject *core_get_main_slots(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->memo.cap);
}

static PyGetSetDef core_getset[] = {
    ATTRIBUTE(solved, "positions solved (before a draw and my choices after one), as Python counts them"),
    BUDGET_ATTRIBUTE("a search raises the too-large error once solved reaches this (None: no budget)"),
    ATTRIBUTE(main_bound, "the slots the main table of positions may grow to (a power of two)"),
    FLAG_FIELD(main_evicts, memo.evicts, "whether the main table at its bound gives a new position its home's slot (else it forgets every entry)"),
    ATTRIBUTE(interval, "(low, high): the values tried over which every choice made stands"),
    ATTRIBUTE(x, "the value tried for the match state iterated (its card-free tie's line is (0, 1))"),
    FLAG_ATTRIBUTE(read_unknown, "whether a set's end read the value iterated since this was last cleared"),
    GETTER(held, "positions held in the tables now"),
    GETTER(replaced, "positions forgotten to bound the main table"),
    GETTER(sloped_held, "positions outside a scratch table with a slope not +0.0, held or forgotten (none expected)"),
    GETTER(memo_bytes, "bytes the tables of positions and set ends take now"),
    GETTER(main_slots, "slots of the main table of positions now"),
    GETTER(huge_pages, "whether the main table of positions is in huge pages (own_tables)"),
    COUNT(mine_sides, mine.n, "the advised player's sides added"),
    COUNT(their_sides, theirs.n, "the rule's sides numbered (added by Python or built here)"),
    COUNT(their_hands, their_hands.count, "the rule's hands added"),
    COUNT(lists, nlists, "candidate lists added"),
    COUNT(contexts, ncontexts, "contexts added"),
    PROGRESS_ATTRIBUTE("progress(solved) is called every so many positions in a long search (or None)"),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef core_methods[] = {
    METHOD(add_sides, VARARGS),     METHOD(add_list, VARARGS),  METHOD(add_context, VARARGS),
    METHOD(before, VARARGS),        METHOD(turn_ended, VARARGS), METHOD(replies, VARARGS),
    METHOD(odds_ended, VARARGS),   METHOD(set_sides_rules, VARARGS), METHOD(add_their_hands, VARARGS),
    METHOD(add_their_sides, VARARGS), METHOD(their_sides_from, VARARGS), METHOD(turn, VARARGS),
    METHOD(push_live, VARARGS),     METHOD(pop_live, NOARGS),   METHOD(forget, NOARGS),
    METHOD(settle, NOARGS),         METHOD(clear_volatile, NOARGS), METHOD(clear_memo, NOARGS),
    METHOD(own_tables, VARARGS),
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType =
    CORE_TYPE("pazaak_cli.solve._fastkotormatch.Core",
              "The memoised best reply over a match to a fixed rule (see match_kotor.py).");

static struct PyModuleDef module = CORE_MODULE(
    "_fastkotormatch",
    "The optional C inner loop of pazaak_cli.solve.match_kotor (pure Python is used without it).");

PyMODINIT_FUNC PyInit__fastkotormatch(void) {
    PyObject *m = core_module(&module, &CoreType);
    if (m && (PyModule_AddIntConstant(m, "MAX_IDS", (long)MAX_ID) < 0 ||
              PyModule_AddIntConstant(m, "RULE_KOTOR", RULE_KOTOR) < 0 ||
              PyModule_AddIntConstant(m, "RULE_HEURISTIC", RULE_HEURISTIC) < 0))
        Py_CLEAR(m);
    return m;
}
