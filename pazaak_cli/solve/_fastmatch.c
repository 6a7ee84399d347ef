/* The inner loop of pazaak_cli.solve.match_solver.MatchSolver, in C.
 *
 * Python keeps every rule: it interns the sides (kind, hand id, total, tiebreak flag), the
 * candidate lists, the contexts (score, opener, deck model) and the match entries, and mirrors
 * them here. This module runs MatchSolver.value_before_draw / _value_after_draw / _end /
 * _set_over for every context: those whose deck model draws with fixed probabilities (one vector
 * per model id), and a set in progress drawn exactly without replacement (a model whose draws
 * depend on the deck: its positions carry the deck's code, see exact_draws, and live in a
 * bounded cache, see ExactTable). It calls back into Python
 * the first time a side draws a value (`expand(side, value) -> list id`) and the first time a
 * set ends in a match state whose value it does not hold (`entry(s0, s1, h0, h1, spec) ->
 * float`, which may solve that state, re-entering this core).
 *
 * Values are pairs (value, slope): P(seat 0 wins the match) and its derivative in the value of
 * the match state whose fixed point Python is iterating (the `iterating` values it sets here).
 *
 * Positions of an iterated match state (same score, same two hands, deck model 0, any opener)
 * that read an iterated value live in a scratch table of their own while Python iterates:
 * `forget` empties it for each Newton evaluation, `settle` moves it into the main table with
 * slope 0 once the value converged, `drop_level` discards it when the solve failed (or when
 * the value converged and Python wants every value independent of the order it solves them in:
 * MatchSolver.values_order_free). A position
 * whose computation read no iterated value is final and goes to the main table at once.
 *
 * The groups of the score Python is solving have dense tables instead (see Dense below): their
 * positions are indexed, not hashed; `forget` resets them, `settle` moves them along their
 * slopes to the fixed point and drops the slopes.
 */
#include "_core.h"
#include "_sides.h"

#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <unistd.h>
#endif

enum { PLAYING, STANDING, BUST, NINE_WIN };
enum { PLAYER1, RANDOM, ALTERNATE, LOSER }; /* first-player rules */
#define SPEC_RANDOM 2
#define MAX_ITERATING 32
/* Position keys pack (context, after-draw flag, mover, x, y) in 64 bits: 18 + 1 + 1 + 22 + 22. */
#define ID_BITS 22
#define MAX_ID ((1 << ID_BITS) - 1)
#define MAX_CONTEXTS ((1 << 18) - 2)
#define HAND_BITS 22
#define MAX_HAND ((1 << HAND_BITS) - 1)

/* The memo (see _core.h): whole 64-bit keys, no window (a table grows, at most half full), its
 * memory from the heap. A full 64-bit mix: the keys' fields sit in separate bit ranges. */
static inline uint64_t memo_mix(uint64_t key) {
    return mix64(key);
}

/* The process's memory is bounded without giving back what it will ask for again. glibc keeps
 * what is freed in its heap for later allocations; but a question's tables are freed and made
 * again in other sizes, and the space stays in the process in pieces: a `match-lite` run in
 * kotor2 held 1.3 GB after 8 matches where its tables and memo held 0.2 GB, and its resident
 * memory kept growing (1.8 GB within 30 matches, never trimmed). Giving the free pages back
 * (malloc_trim) bounds it, but each page given back and used again costs a page fault and its
 * zeroing: trimmed whenever a few hundred MB were free, such runs spent up to a third of their
 * time in the kernel. So every CHECK_AFTER_BYTES freed, the heap is trimmed only if it holds more
 * than KEEP_FREE_BYTES free and the process's resident memory is past TRIM_ABOVE_BYTES.
 * Measured over the same 120 kotor2-average matches: trimmed at 384 MB free, 11.3 s of CPU a
 * match (1.6 s of it system time) and a peak of 1.68 GB; past 1.25 GB resident, 10.1 s (0.6 s)
 * and 1.74 GB; past 1.5 GB, 9.9 s (0.2 s) and 1.95 GB, too near the 2 GB bound. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define CAN_TRIM_HEAP 1
#include <stdio.h>
#endif
#define CHECK_AFTER_BYTES ((size_t)64 << 20)
#define KEEP_FREE_BYTES ((size_t)384 << 20)
#define TRIM_ABOVE_BYTES ((size_t)1280 << 20)
static size_t freed_unchecked;

#ifdef CAN_TRIM_HEAP
/* The process's resident memory in bytes (SIZE_MAX when it cannot be read: trim as if large). */
static size_t resident_bytes(void) {
    FILE *statm = fopen("/proc/self/statm", "r");
    if (!statm) return SIZE_MAX;
    unsigned long pages, resident;
    int read = fscanf(statm, "%lu %lu", &pages, &resident);
    fclose(statm);
    long page = sysconf(_SC_PAGESIZE);
    return read == 2 && page > 0 ? (size_t)resident * (size_t)page : SIZE_MAX;
}
#endif

static void heap_released(size_t bytes) {
#ifdef CAN_TRIM_HEAP
    freed_unchecked += bytes;
    if (freed_unchecked >= CHECK_AFTER_BYTES) {
        freed_unchecked = 0;
        if (mallinfo2().fordblks > KEEP_FREE_BYTES && resident_bytes() > TRIM_ABOVE_BYTES)
            malloc_trim(0);
    }
#else
    (void)bytes;
#endif
}

/* The memo's tables freed count too. */
static inline void memo_released(size_t bytes) {
    heap_released(bytes);
}

typedef struct {
    int s0, s1, h0, h1, spec;
    double v, d;
} Iterating;

/* A match state being iterated and the scratch table of its positions. */
typedef struct {
    int s0, s1, h0, h1;
    Map scratch;
} Level;

/* The bound of the cache of positions drawn exactly unless Python sets `exact_entries` (32 bytes
 * a slot: 0.5 GiB), and the share of it the odds get. */
#define EXACT_ENTRIES ((size_t)1 << 24)
#define EXACT_ODDS_SHARE 16

typedef struct {
    Draws fixed; /* a fixed model's draws (deck 0 stays deck 0) */
    int defined;
    int exact; /* drawn without replacement: each deck's draws made from its code (exact_draws) */
} Model;

/* A dense table holds each value negated, so that zero bits mean "not computed yet": a fresh
 * table is calloc'ed memory, whose pages the system maps only when first written (a set in
 * progress reads a small part of its tables). A value of the match solver is a probability,
 * stored in [-1, -0.0]; were one ever -0.0 it would only be computed again. */
static inline int dense_known(const double *slot) {
    uint64_t bits;
    memcpy(&bits, slot, sizeof bits);
    return bits != 0;
}

/* A lazy table marks the pages it writes, a byte for each 2^PAGE_SHIFT values: when it is
 * dropped its array is kept for a later question's table of the same size (a player's next
 * decisions ask about the same hands; see LAZY_SPARE_BYTES), for which those pages are stale:
 * read as unknown, and zeroed when that question first writes one. New memory costs the system
 * a fault for every page written: a third of the match expert's time went to them. */
#define PAGE_SHIFT 9 /* 512 doubles: 4 kB */
enum { PAGE_ZERO, PAGE_WRITTEN, PAGE_STALE }; /* a lazy table's page: its `dirty` byte */

static inline size_t dirty_pages(size_t nv) {
    return ((nv + 1) >> PAGE_SHIFT) + 1; /* (a table holds nv + 1 values) */
}

/* The memory lazy arrays kept for later questions may hold (written pages): a question's tables
 * are of the sizes of its pairs of sub-hands, a new pair's array would be new memory, zeroed
 * whole by the heap, and the pairs of a set's questions come back (the hands sampled again). */
#define LAZY_SPARE_BYTES ((size_t)128 << 20)

/* A value array kept for the next table of its size (see dense_spare). */
typedef struct {
    double *v;
    size_t nv;
    unsigned char *dirty; /* a lazy table's pages written (NULL: not lazy) */
    size_t held;          /* a lazy array's memory: its pages written since it was made */
} Spare;

typedef struct {
    Spare *items;
    int n, cap;
} Spares;

/* The dense table of a group (context, hand of seat 0, hand of seat 1): its before-draw positions
 * indexed by the local numbers of the two sides (each side's rank among the sides of its hand, in
 * the order `rank` gave, see before_index), then its after-draw positions by the other side's
 * rank and the candidate list's, each negated (see dense_known); the slopes beside them only
 * while the group's match state is iterated (NULL: every slope is 0). The groups of the set in
 * progress get one too when its deck model draws with fixed probabilities. Python asks for one
 * (`densify`) once it has interned every side a score level can reach: n0 and n1 are the sides of
 * each hand then (a side interned later is held in the hash tables, as every position is without
 * a dense table). */
typedef struct {
    int context, h0, h1, n0, n1;
    int p0, p1;    /* the sides of each hand ranked first: the playing ones (see before_index) */
    int q0, q1;    /* the sides of each hand that may be about to draw: p0, p1 where the playing
                      ones are ranked first, else all (n0, n1) */
    int lazy;      /* values made when first read (densify's lazy; see PAGE_SHIFT) */
    int l0, l1;    /* candidate lists of each hand (after-draw positions, as for the sides) */
    size_t first;  /* where the after-draw positions begin: q0 n1 + q1 n0 */
    size_t nv;     /* before-draw positions, then after-draw ones */
    size_t cap;    /* the values v holds room for (nv, or more: a larger table's array kept) */
    double *v, *d;
    size_t dcap;          /* the slopes' array holds this many (it may be a larger group's) */
    unsigned char *dirty; /* a lazy table's pages written (see PAGE_SHIFT) */
    unsigned char *pick;  /* a set in progress's after-draw positions (from `first` on): the end
                             of turn the odds take (see PICK_AMBIGUOUS), made when first
                             written; NULL: none */
    size_t filled;
} Dense;

/* What `pick` holds of an after-draw position: 0 unknown, PICK_AMBIGUOUS when more than one
 * end of turn is within the tolerance of the best (the odds then weigh their set equities:
 * `choice`), else 1 + the index in the candidate list of the end `choice` takes. Written as the
 * values are (best_end sees every candidate's value), so that the odds along the match-optimal
 * line need not evaluate each candidate again: that was most of their time. */
#define PICK_AMBIGUOUS 255

/* How many dense tables the core keeps at hand (a power of two): see found_dense. */
#define DENSE_FOUND 64

/* The match-state values set_over read last, by a hash of their key (0: none): the entries
 * table holds tens of thousands, most outside the cache, and the ends of a set's positions read
 * a few of them over and over (a third of set_over's time was that table's missed lookups).
 * set_over alone writes that table, a value once and for good: the cache never goes stale. */
#define RECENT_BITS 10
#define RECENT_ENTRIES (1 << RECENT_BITS)
typedef struct {
    uint64_t key;
    double v;
} Recent;

typedef struct {
    PyObject_HEAD
    int rule, sets_to_win;
    Model *models; /* by model id: the fixed draw probabilities, if any */
    int nmodels;
    Map tables[2]; /* final positions: of later sets (deck model 0), of sets in progress drawn
                      with fixed probabilities */
    ExactTable exact, exact_odds; /* of sets in progress drawn exactly: their values and odds */
    /* sides */
    int nsides, capsides;
    char *kind, *tiebreak;
    int *hand, *total;
    int *cards, *f24, *f36; /* a playing side's other fields (0 for the other kinds) */
    int *after; /* after[side * 11 + value]: candidate list id, or -1 */
    char *expanded; /* walk: the side's candidate lists are made, or will be in the walk */
    /* what building candidate lists here needs (set_sides_rules, add_hands): the rules, the
     * hands, the sides by their keys, the lists by a side holding its draw and by their codes
     * before the stands are pruned (MatchSolver._list_of_placed, _candidate_ids) */
    SideRules rules;
    int rules_set;
    Hands hands;
    IdMap side_ids, placed_ids;
    ListIndex list_ids;
    /* candidate lists */
    int nlists, caplists;
    int *list_start, *list_len;
    int ncodes, capcodes;
    int *codes;
    /* contexts */
    int ncontexts, capcontexts;
    int *ctx_s0, *ctx_s1, *ctx_opener, *ctx_model;
    /* match states */
    Map entries;
    Iterating iterating[MAX_ITERATING];
    int niterating;
    Level *levels;
    int nlevels, caplevels;
    uint64_t reads;  /* iterated values read so far */
    int read_unknown; /* MatchSolver._read_unknown */
    uint64_t solved;  /* positions computed (again if forgotten) */
    long long budget; /* raise too_large once the tables hold this many positions (-1: never) */
    Map odds;         /* (P(seat 0 wins the set), P(tie)) along the match-optimal line */
    double tolerance; /* match values this close are equally good (solver.BEST_TOLERANCE) */
    int blind_seat;   /* the seat whose hand the later sets take as blind_hand, or -1 */
    int blind_hand;   /* (MatchSolver.later_blind: the empty hand's id) */
    PyObject *expand, *entry, *too_large, *progress;
    /* dense tables */
    int *local;  /* local[side]: its rank among the sides of its hand */
    int *nlocal; /* nlocal[hand]: sides of that hand so far */
    int *list_local;  /* list_local[list]: its rank among the lists of the hand that drew */
    int *nlist_local; /* per hand: lists so far */
    int *nfirst;      /* per hand: its sides ranked first (the playing ones, see `rank`) */
    int *nplaying;    /* per hand: its playing sides (what `rank` puts first) */
    int caphands;
    Dense **dense;
    int ndense, capdense;
    Map dense_index;     /* (context, h0, h1) -> index into dense, in v */
    Spares spares;       /* value arrays kept for the next level (drop_dense(keep=True)) */
    Spares lazy_spares;  /* lazy tables' arrays kept for later questions' (LAZY_SPARE_BYTES) */
    size_t dense_filled; /* positions held in dense tables */
    Dense *found_dense[DENSE_FOUND]; /* the tables found last, by a hash of their group: a
                                        position reads its own group's and a few smaller ones' */
    /* While `track` is set, every choice between ends of turn narrows [tlo, thi]: the offsets t
     * from the iterated value x such that at x + t every choice made would be made again (each
     * value being linear in x, as its slope says). On that interval the iterated function is
     * linear: a Newton step that lands inside it lands on the fixed point. */
    int track;
    double tlo, thi;
    double shift; /* settle's shift, for dense_match */
    Recent recent[RECENT_ENTRIES];
    /* The slopes' array of the last group settled, for the next one iterated (a level's groups
     * are iterated one after the other): a fresh one cost its zeroing and its pages' faults
     * every time. It needs no zeroing: a slope is read only where its value was written in the
     * same evaluation. */
    double *spare_d;
    size_t spare_dcap;
    /* The draws of model 0 (the later sets'), when fixed: read in place, not copied for each
     * position (the models array may move when Python adds one). */
    Draws later_draws;
    int later_fixed;
    uint64_t reported; /* `solved` at the last progress report (see count_solved; here, not
                          beside it: the fields the recursion reads keep their places) */
} Core;

static size_t core_size(const Core *self) {
    size_t n = 0;
    n += self->tables[0].size + self->tables[1].size + self->exact.stored + self->dense_filled;
    for (int i = 0; i < self->nlevels; i++) n += self->levels[i].scratch.size;
    return n;
}

/* -- the recursion ----------------------------------------------------------------------------- */

static inline uint64_t position_key(int context, int after, int mover, int x, int y) {
    return (((uint64_t)context << 46) | ((uint64_t)after << 45) | ((uint64_t)mover << 44) |
            ((uint64_t)x << ID_BITS) | (uint64_t)y) +
           1;
}

/* How many of hand `h`'s sides (by local number) a dense table made now indexes as the side
 * about to draw (see before_index): the playing ones where they are ranked first, else all. */
static inline int drawing_sides(const Core *self, int h) {
    int first = self->nfirst[h];
    return first > 0 && first <= self->nlocal[h] ? first : self->nlocal[h];
}

static inline uint64_t dense_key(int context, int h0, int h1) {
    return (((uint64_t)context << 44) | ((uint64_t)h0 << HAND_BITS) | (uint64_t)h1) + 1;
}

/* Where a before-draw position of a dense table is: seat 0's positions first, by rows of seat
 * 1's sides, then seat 1's by rows of seat 0's. The positions one position reads (after each end
 * of the mover's turn) differ only in the mover's side, so they share a row: the other seat's if
 * it is playing (those of the first p sides, ranked first), the mover's own if the other seat
 * stands (and the mover draws again). Only a playing side draws, so the mover's side is one of
 * the first q of its hand (the playing ones, where they are ranked first: a standing mover's
 * slots were a sixth of the before-draw positions, never written). A bijection onto
 * [0, q0 n1 + q1 n0) for a mover's side below q, the other's below n, whatever p0, p1. */
static inline size_t before_index(const Dense *g, int mover, int la, int lb) {
    size_t q0 = (size_t)g->q0, q1 = (size_t)g->q1;
    if (mover == 0)
        return lb < g->p1 ? (size_t)la * g->p1 + lb
                          : q0 * g->p1 + (size_t)(lb - g->p1) * q0 + la;
    size_t base = q0 * (size_t)g->n1;
    return la < g->p0 ? base + (size_t)lb * g->p0 + la
                      : base + q1 * g->p0 + (size_t)(la - g->p0) * q1 + lb;
}

/* Whether a dense table indexes the before-draw position of `mover` with sides la, lb (local
 * numbers): sides interned after it was made, or a mover past q, are not (the hash tables
 * hold those). */
static inline int before_indexed(const Dense *g, int mover, int la, int lb) {
    return la < g->n0 && lb < g->n1 && (mover == 0 ? la < g->q0 : lb < g->q1);
}

static void dense_reset(Core *self, Dense *g) {
    free(g->pick);
    g->pick = NULL;
    /* (the whole array, a larger table's kept included: a page past nv marked unwritten must
     * hold zeros, or a later table of that size would read what was left there) */
    if (g->v) memset(g->v, 0, g->cap * sizeof(double));
    if (g->dirty) memset(g->dirty, 0, dirty_pages(g->cap));
    self->dense_filled -= g->filled;
    g->filled = 0;
}

/* A kept lazy array for a new question: the pages written before are stale. */
static void dirty_stale(Dense *g) {
    size_t pages = dirty_pages(g->cap);
    for (size_t page = 0; page < pages; page++)
        if (g->dirty[page]) g->dirty[page] = PAGE_STALE;
}

/* Whether a dense table holds the value at `index` (a stale page holds none, and a lazy
 * table's page never written is not read: reading it would map the system's zero page there,
 * and the first write a fault again; a fifth of the prepared match answer's faults). */
static inline int dense_has(const Dense *g, size_t index) {
    if (g->dirty && g->dirty[index >> PAGE_SHIFT] != PAGE_WRITTEN) return 0;
    return dense_known(&g->v[index]);
}

/* Write a computed value into a dense table (negated: see dense_known), zeroing its page first
 * if it is stale. */
static inline void dense_write(Dense *g, size_t index, double value) {
    if (g->dirty) {
        size_t page = index >> PAGE_SHIFT;
        if (g->dirty[page] == PAGE_STALE) {
            size_t first = page << PAGE_SHIFT, end = first + ((size_t)1 << PAGE_SHIFT);
            size_t values = g->nv + 1;
            memset(&g->v[first], 0, ((end < values ? end : values) - first) * sizeof(double));
        }
        g->dirty[page] = PAGE_WRITTEN;
    }
    g->v[index] = -value;
}

/* Read a value a dense table holds (dense_has), with its slope while the group's match state
 * is iterated (reading one counts as reading the iterated value). */
static inline void dense_read(Core *self, const Dense *g, size_t index, double *v, double *d) {
    *v = -g->v[index];
    *d = 0.0;
    if (g->d) {
        *d = g->d[index];
        self->reads++;
    }
}

static int spares_take(Spares *spares, size_t nv, Spare *found);

/* Map in at once the pages of a fresh array that will be written nearly whole (a score level's
 * table): the system then maps them in one call, not at a fault for each page, and a page read
 * before it is written is not mapped twice (once to the zero page, once to its own). */
static void populate(void *start, size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = ((uintptr_t)start + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)start + bytes) & ~(page - 1);
    if (end > first) (void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
#else
    (void)start;
    (void)bytes;
#endif
}

/* Give a table its values: an array kept from a table of its size if there is one (see
 * dense_spare), zeroed (only its pages written, for a lazy table), else a new one: zero, the
 * system maps its pages when first written (-1: no memory; a lazy table's positions then go to
 * the hash tables). */
static int dense_allocate(Core *self, Dense *g) {
    Spare found;
    if (spares_take(g->lazy ? &self->lazy_spares : &self->spares, g->nv, &found)) {
        g->v = found.v;
        g->cap = found.nv;
        g->dirty = found.dirty;
        if (g->dirty)
            dirty_stale(g);
        else
            dense_reset(self, g);
        return 0;
    }
    g->cap = g->nv;
    g->v = calloc(g->nv + 1, sizeof(double)); /* (zero: nothing computed) */
    if (g->v && !g->lazy) populate(g->v, (g->nv + 1) * sizeof(double));
    if (g->v && g->lazy && !(g->dirty = calloc(dirty_pages(g->nv), 1))) {
        free(g->v);
        g->v = NULL;
    }
    return g->v ? 0 : -1;
}

/* The slot of found_dense that group (context, h0, h1) is kept in once found. */
static inline Dense **found_slot(Core *self, int context, int h0, int h1) {
    return &self->found_dense[((unsigned)h0 * 37u + (unsigned)h1 * 7u + (unsigned)context) &
                              (DENSE_FOUND - 1)];
}

/* The dense table of group (context, h0, h1), or NULL. */
static inline Dense *dense_of(Core *self, int context, int h0, int h1) {
    if (!self->ndense) return NULL;
    Dense **slot = found_slot(self, context, h0, h1);
    Dense *kept = *slot;
    if (kept && kept->context == context && kept->h0 == h0 && kept->h1 == h1) return kept;
    Entry *e = memo_get(&self->dense_index, dense_key(context, h0, h1));
    if (!e) return NULL;
    Dense *g = self->dense[(int)e->v];
    if (!g->v && dense_allocate(self, g) < 0) return NULL;
    return *slot = g;
}

static void dense_free(Core *self, Dense *g) {
    self->dense_filled -= g->filled;
    size_t bytes = ((g->v ? g->cap : 0) + (g->d ? g->nv : 0) + 2) * sizeof(double);
    free(g->v);
    free(g->d);
    free(g->dirty);
    free(g->pick);
    free(g);
    heap_released(bytes);
}

static void spare_free(const Spare *kept) {
    free(kept->v);
    free(kept->dirty);
    heap_released((kept->nv + 1) * sizeof(double));
}

/* Free the arrays kept (see dense_spare). */
static void spares_empty(Spares *spares) {
    for (int i = 0; i < spares->n; i++) spare_free(&spares->items[i]);
    spares->n = 0;
}

static int spares_push(Spares *spares, Spare item) {
    if (spares->n == spares->cap) {
        int cap = spares->cap ? spares->cap * 2 : 256;
        Spare *bigger = realloc(spares->items, (size_t)cap * sizeof(Spare));
        if (!bigger) return -1;
        spares->items = bigger;
        spares->cap = cap;
    }
    spares->items[spares->n++] = item;
    return 0;
}

/* Take a kept array for nv values: one of exactly nv, the most recently kept first; else, among
 * lazy arrays (their pages written are marked: a larger one costs no zeroing of the rest), the
 * smallest of up to half as many again (0: none). The sets in progress of a hidden hand's rows
 * give each row's tables of the opponent's whole hand back (drop_groups), and the next row's
 * are of about their sizes: fresh memory would cost a fault for every page written. */
static int spares_take(Spares *spares, size_t nv, Spare *found) {
    int best = -1;
    for (int i = spares->n - 1; i >= 0; i--) {
        size_t cap = spares->items[i].nv;
        if (cap == nv) {
            best = i;
            break;
        }
        if (spares->items[i].dirty && cap > nv && cap - nv <= nv / 2 &&
            (best < 0 || cap < spares->items[best].nv))
            best = i;
    }
    if (best < 0) return 0;
    *found = spares->items[best];
    spares->items[best] = spares->items[--spares->n];
    return 1;
}

/* Keep a dense table's value array for the next tables of its size: a score level's for the
 * next level's (the same hand pairs; allocating and faulting in fresh memory for each of them
 * took about 0.4 ms a group), a lazy table's for the next question's (see PAGE_SHIFT). */
static void dense_spare(Core *self, Dense *g) {
    if (g->v) {
        Spare item = {g->v, g->cap, g->dirty, 0};
        for (size_t page = 0; g->dirty && page < dirty_pages(g->cap); page++)
            if (g->dirty[page]) item.held += (size_t)1 << (PAGE_SHIFT + 3);
        if (spares_push(g->lazy ? &self->lazy_spares : &self->spares, item) == 0) {
            g->v = NULL; /* (kept: not freed with the table) */
            g->dirty = NULL;
        }
    }
    dense_free(self, g);
}

/* Free the oldest kept lazy arrays past LAZY_SPARE_BYTES of memory held. */
static void spares_trim(Spares *spares) {
    size_t held = 0;
    int first = spares->n; /* the oldest kept */
    while (first > 0 && held + spares->items[first - 1].held <= LAZY_SPARE_BYTES)
        held += spares->items[--first].held;
    for (int i = 0; i < first; i++) spare_free(&spares->items[i]);
    memmove(spares->items, &spares->items[first], (size_t)(spares->n - first) * sizeof(Spare));
    spares->n -= first;
}

/* Free every dense table; `keep`: keep their value arrays for the tables to come (the level
 * arrays kept before and not taken are freed; the lazy ones within LAZY_SPARE_BYTES stay). */
static void dense_clear(Core *self, int keep) {
    spares_empty(&self->spares);
    if (!keep) spares_empty(&self->lazy_spares);
    for (int i = 0; i < self->ndense; i++) {
        if (keep)
            dense_spare(self, self->dense[i]);
        else
            dense_free(self, self->dense[i]);
    }
    if (keep) spares_trim(&self->lazy_spares);
    self->ndense = 0;
    memset(self->found_dense, 0, sizeof self->found_dense);
    memo_free(&self->dense_index);
}

/* The table of final positions of a context not drawn exactly: later sets', or the sets in
 * progress'. */
static inline Map *final_table(Core *self, int context) {
    return &self->tables[self->ctx_model[context] != 0];
}

static inline int drawn_exactly(const Core *self, int context) {
    return self->models[self->ctx_model[context]].exact;
}

/* The key of a position of `context` on deck `deck` (which only an exact model reads: the
 * context and the deck's code are then its `place`). */
static inline PosKey key_of(const Core *self, int context, int deck, int after, int mover, int x,
                            int y) {
    PosKey k;
    if (!drawn_exactly(self, context)) {
        k.key = position_key(context, after, mover, x, y);
        k.place = 0;
    } else {
        k.key = position_key(0, after, mover, x, y) - 1;
        k.place = ((uint64_t)deck << 18 | (uint64_t)context) + 1;
    }
    return k;
}

/* The draws of `context`'s deck model from deck `deck`: a fixed model's own, an exact model's
 * made from the deck's code. */
static inline void draws_of(const Core *self, int context, int deck, Draws *out) {
    const Model *model = &self->models[self->ctx_model[context]];
    if (model->exact)
        exact_draws(deck, out);
    else
        *out = model->fixed;
}

/* Forget every position drawn exactly, and their odds. */
static void clear_exact(Core *self) {
    exact_free(&self->exact);
    exact_free(&self->exact_odds);
}

static inline uint64_t match_key(int s0, int s1, int h0, int h1, int spec) {
    return (((uint64_t)s0 << 54) | ((uint64_t)s1 << 46) | ((uint64_t)h0 << 24) |
            ((uint64_t)h1 << 2) | (uint64_t)spec) +
           1;
}

/* The level whose match state the positions of `context` with hands h0, h1 belong to. */
static inline Level *level_of(Core *self, int context, int h0, int h1) {
    if (!self->nlevels || self->ctx_model[context] != 0) return NULL;
    int s0 = self->ctx_s0[context], s1 = self->ctx_s1[context];
    for (int i = self->nlevels - 1; i >= 0; i--) {
        Level *level = &self->levels[i];
        if (level->h0 == h0 && level->h1 == h1 && level->s0 == s0 && level->s1 == s1)
            return level;
    }
    return NULL;
}

static int find(Core *self, int context, int h0, int h1, PosKey key, double *v, double *d) {
    if (key.place) {
        const ExactEntry *e = exact_get(&self->exact, key);
        if (!e) return 0;
        *v = e->v;
        *d = e->d;
        return 1;
    }
    Level *level = level_of(self, context, h0, h1);
    if (level && memo_read(&level->scratch, key.key, v, d)) {
        self->reads++; /* it read an iterated value: so does every position that reads it */
        return 1;
    }
    return memo_read(final_table(self, context), key.key, v, d);
}

/* Keep a computed value: in the scratch table of its level if it read an iterated value, else
 * in the final table of its deck model (the tables may have moved: look them up again); one
 * drawn exactly in their cache, with the `work` it took. */
static int keep(Core *self, int context, int h0, int h1, PosKey key, int read, double v,
                double d, uint64_t work) {
    if (key.place) return exact_put(&self->exact, key, v, d, work);
    Level *level = read ? level_of(self, context, h0, h1) : NULL;
    return memo_keep(level ? &level->scratch : final_table(self, context), key.key, v, d, 0);
}

/* The candidate list after `side` draws `drawn`, from Python the first time (-1: an error). */
static int expand(Core *self, int side, int drawn) {
    int list = call_expand(self->expand, side, drawn, &self->nlists);
    if (list >= 0) self->after[side * 11 + drawn] = list; /* (the array may have moved meanwhile) */
    return list;
}

static int before_draw(Core *self, int context, int mover, int a, int b, int deck, double *v,
                       double *d);
static int compute_before(Core *self, int context, int mover, int a, int b, int deck, Dense *g,
                          size_t index, PosKey key, double *v, double *d);

static inline Recent *recent_slot(Core *self, uint64_t key) {
    return &self->recent[(key * 0x9E3779B97F4A7C15ull) >> (64 - RECENT_BITS)];
}

static int set_over(Core *self, int context, int winner, int h0, int h1, double *v, double *d) {
    int s0 = self->ctx_s0[context], s1 = self->ctx_s1[context], opener = self->ctx_opener[context];
    *d = 0.0;
    if (winner == 0 && ++s0 >= self->sets_to_win) {
        *v = 1.0;
        return 0;
    }
    if (winner == 1 && ++s1 >= self->sets_to_win) {
        *v = 0.0;
        return 0;
    }
    int spec;
    switch (self->rule) {
    case PLAYER1: spec = 0; break;
    case RANDOM: spec = SPEC_RANDOM; break;
    case ALTERNATE: spec = 1 - opener; break;
    default: spec = winner < 0 ? opener : 1 - winner; /* the loser opens */
    }
    if (self->blind_seat == 0) h0 = self->blind_hand;
    else if (self->blind_seat == 1) h1 = self->blind_hand;
    for (int i = 0; i < self->niterating; i++) {
        Iterating *it = &self->iterating[i];
        if (it->s0 == s0 && it->s1 == s1 && it->h0 == h0 && it->h1 == h1 && it->spec == spec) {
            self->reads++;
            self->read_unknown = 1;
            *v = it->v;
            *d = it->d;
            return 0;
        }
    }
    uint64_t key = match_key(s0, s1, h0, h1, spec);
    Recent *recent = recent_slot(self, key);
    if (recent->key == key) {
        *v = recent->v;
        return 0;
    }
    Entry *found = memo_get(&self->entries, key);
    if (found) {
        recent->key = key;
        *v = recent->v = found->v;
        return 0;
    }
    PyObject *result = PyObject_CallFunction(self->entry, "iiiii", s0, s1, h0, h1, spec);
    if (!result) return -1;
    double value = PyFloat_AsDouble(result);
    Py_DECREF(result);
    if (value == -1.0 && PyErr_Occurred()) return -1;
    if (memo_keep(&self->entries, key, value, 0.0, 0) < 0) return -1;
    recent->key = key; /* (the slot lies in the core: the callback moved nothing) */
    *v = recent->v = value;
    return 0;
}

/* Whether the set goes on once seat `mover` ends its turn as side `code` against `other`: then
 * the sides of seats 0 and 1 in *a and *b, and the seat that draws next in *next. */
static inline int set_goes_on(const Core *self, int mover, int code, int other, int *a, int *b,
                              int *next) {
    int kind = self->kind[code];
    int other_stands = self->kind[other] == STANDING;
    if (kind != PLAYING && (kind != STANDING || other_stands)) return 0;
    *a = mover == 0 ? code : other;
    *b = mover == 0 ? other : code;
    *next = other_stands ? mover : 1 - mover;
    return 1;
}

/* The winner (seat 0 or 1; -1: a tie) of the set that ends once seat `mover` ends its turn as
 * side `code` against `other` (when it does not go on: see set_goes_on). */
static inline int set_winner(const Core *self, int mover, int code, int other) {
    int kind = self->kind[code];
    if (kind == BUST) return 1 - mover;
    if (kind == NINE_WIN) return mover;
    if (self->total[code] != self->total[other])
        return self->total[code] > self->total[other] ? mover : 1 - mover;
    if (self->tiebreak[code] != self->tiebreak[other])
        return self->tiebreak[code] ? mover : 1 - mover;
    return -1;
}

/* MatchSolver._end: seat `mover` ends its turn as side `code`, the other seat is `other`. */
static int end_turn(Core *self, int context, int mover, int code, int other, int deck,
                    double *v, double *d) {
    int a, b, next;
    if (set_goes_on(self, mover, code, other, &a, &b, &next))
        return before_draw(self, context, next, a, b, deck, v, d);
    int h0 = self->hand[mover == 0 ? code : other], h1 = self->hand[mover == 0 ? other : code];
    return set_over(self, context, set_winner(self, mover, code, other), h0, h1, v, d);
}

/* At most this many candidates are kept for the interval of a choice (more: no interval). */
#define MAX_TRACKED 64

/* The mover's best end of turn in candidate list `list` against `other` (the first of equal
 * values, in the list's order): MatchSolver._value_after_draw without its memo. Each
 * candidate's place in a dense table found lately is looked up once: its read is asked for
 * ahead (the reads of a list go to a few tables, far apart), and a value already computed is
 * read there without the call that would find it again. */
static int best_end(Core *self, int context, int mover, int list, int other, int deck,
                    double *v, double *d, unsigned char *pick) {
    int start = self->list_start[list], len = self->list_len[list];
    double best = mover == 0 ? -1.0 : 2.0, slope = 0.0;
    double values[MAX_TRACKED], slopes[MAX_TRACKED];
    Dense *places[MAX_TRACKED];
    size_t at[MAX_TRACKED];
    int seen = 0;
    int other_stands = self->kind[other] == STANDING;
    int next = other_stands ? mover : 1 - mover;
    int known = len <= MAX_TRACKED ? len : 0; /* candidates whose places were looked up */
    int other_hand = self->hand[other], other_local = self->local[other], last_hand = -1;
    Dense *last = NULL; /* the table of last_hand's candidates (their hand and the other's) */
    for (int i = 0; i < known; i++) {
        int code = self->codes[start + i], kind = self->kind[code];
        places[i] = NULL;
        if (kind != PLAYING && (kind != STANDING || other_stands)) continue;
        int hand = self->hand[code];
        if (hand != last_hand) { /* (the table found lately: once for one hand's candidates) */
            int h0 = mover == 0 ? hand : other_hand, h1 = mover == 0 ? other_hand : hand;
            last_hand = hand;
            last = *found_slot(self, context, h0, h1);
            if (last && (last->context != context || last->h0 != h0 || last->h1 != h1))
                last = NULL;
        }
        if (!last) continue;
        int mine = self->local[code];
        int la = mover == 0 ? mine : other_local, lb = mover == 0 ? other_local : mine;
        if (!before_indexed(last, next, la, lb)) continue;
        places[i] = last;
        at[i] = before_index(last, next, la, lb);
        PREFETCH(&last->v[at[i]]);
    }
    for (int i = 0; i < len; i++) {
        double cv, cd;
        Dense *g = i < known ? places[i] : NULL;
        if (g && dense_has(g, at[i])) {
            dense_read(self, g, at[i], &cv, &cd);
        } else {
            double ev, ed; /* (cv and cd stay in registers) */
            int code = self->codes[start + i];
            if (g) { /* (end_turn's before_draw, its place found) */
                int a = mover == 0 ? code : other, b = mover == 0 ? other : code;
                PosKey none = {0, 0};
                if (compute_before(self, context, next, a, b, deck, g, at[i], none, &ev, &ed) < 0)
                    return -1;
            } else if (end_turn(self, context, mover, code, other, deck, &ev, &ed) < 0) {
                return -1;
            }
            cv = ev;
            cd = ed;
        }
        if (seen < MAX_TRACKED) {
            values[seen] = cv;
            slopes[seen] = cd;
        }
        seen++;
        if (mover == 0 ? cv > best : cv < best) {
            best = cv;
            slope = cd;
            if (mover == 0 ? best >= 1.0 : best <= 0.0) break; /* (nothing beats a sure thing) */
        }
    }
    if (pick) { /* (choice's: the first end within the tolerance of the best, if alone) */
        *pick = PICK_AMBIGUOUS;
        if (seen == len && len <= MAX_TRACKED && len < PICK_AMBIGUOUS) {
            double sign = mover == 0 ? 1.0 : -1.0, top = sign * best;
            int near = 0, first = -1;
            for (int j = 0; j < seen; j++) {
                if (sign * values[j] >= top - self->tolerance) {
                    near++;
                    if (first < 0) first = j;
                }
            }
            if (near == 1) *pick = (unsigned char)(first + 1);
        }
    }
    if (self->track) {
        if (seen > MAX_TRACKED) {
            self->tlo = self->thi = 0.0;
        } else {
            double sign = mover == 0 ? 1.0 : -1.0;
            for (int j = 0; j < seen; j++) {
                /* the choice stands at x + t while sign * (best - value_j) >= gain * t */
                double ahead = sign * (best - values[j]), gain = sign * (slopes[j] - slope);
                if (gain > 0.0) {
                    if (ahead / gain < self->thi) self->thi = ahead / gain;
                } else if (gain < 0.0) {
                    if (ahead / gain > self->tlo) self->tlo = ahead / gain;
                }
            }
        }
    }
    *v = best;
    *d = slope;
    return 0;
}

/* MatchSolver._value_after_draw: the mover's best end of turn in candidate list `list` (the
 * first of equal values, in the list's order); a, b: the sides before the draw. On an exact deck
 * it is not kept (as in the set core: the positions before the next draw are; 0.64 of the time
 * of three cards a side). */
static int after_draw(Core *self, int context, int mover, int list, int a, int b, int deck,
                      double *v, double *d) {
    int other = mover == 0 ? b : a;
    int h0 = self->hand[a], h1 = self->hand[b];
    PosKey key = key_of(self, context, deck, 1, mover, list, other);
    if (!key.place && find(self, context, h0, h1, key, v, d)) return 0;
    uint64_t reads = self->reads, solved = self->solved++;
    double best, slope;
    if (best_end(self, context, mover, list, other, deck, &best, &slope, NULL) < 0) return -1;
    if (!key.place && keep(self, context, h0, h1, key, self->reads != reads, best, slope,
                           self->solved - solved) < 0)
        return -1;
    *v = best;
    *d = slope;
    return 0;
}

/* MatchSolver.value_before_draw: seat `mover` is about to draw; a, b: the sides of seats 0, 1. */
static int before_draw(Core *self, int context, int mover, int a, int b, int deck, double *v,
                       double *d) {
    int h0 = self->hand[a], h1 = self->hand[b];
    Dense *g = dense_of(self, context, h0, h1);
    size_t index = 0;
    PosKey key = {0, 0};
    if (g) {
        int la = self->local[a], lb = self->local[b];
        if (before_indexed(g, mover, la, lb)) {
            index = before_index(g, mover, la, lb);
            if (dense_has(g, index)) {
                dense_read(self, g, index, v, d);
                return 0;
            }
        } else {
            g = NULL;
        }
    }
    if (!g) {
        key = key_of(self, context, deck, 0, mover, a, b);
        if (find(self, context, h0, h1, key, v, d)) return 0;
    }
    return compute_before(self, context, mover, a, b, deck, g, index, key, v, d);
}

/* Compute before-draw position (mover, a, b), not held: at `index` of dense table `g`, or (g
 * NULL) under `key` in the hash tables. */
static int compute_before(Core *self, int context, int mover, int a, int b, int deck, Dense *g,
                          size_t index, PosKey key, double *v, double *d) {
    if (self->budget >= 0 && (long long)core_size(self) >= self->budget)
        return fail_status(self->too_large, "the exact solve exceeds its state budget");
    uint64_t solved = self->solved;
    if (count_solved(&self->solved, &self->reported, self->progress) < 0) return -1; /* (Ctrl-C in a long search) */
    uint64_t reads = self->reads;
    Draws copied;
    const Draws *model = &self->later_draws; /* (the later sets' model: most positions) */
    if (self->ctx_model[context] != 0 || !self->later_fixed) {
        draws_of(self, context, deck, &copied);
        model = &copied;
    }
    int side = mover == 0 ? a : b;
    double value = 0.0, slope = 0.0;
    if (g) {
        /* the after-draw positions (list, other side): many draws lead to each; by rows of the
         * other seat's side, the lists the mover's draws lead to sit in one row (near each
         * other once `rank` has ordered them) */
        size_t n1 = (size_t)g->n1, row;
        int lists;
        if (mover == 0) {
            row = g->first + (size_t)self->local[b] * (size_t)g->l0;
            lists = g->l0;
        } else {
            row = g->first + (size_t)g->l0 * n1 + (size_t)self->local[a] * (size_t)g->l1;
            lists = g->l1;
        }
        /* a set in progress's after-draw positions keep the end the odds take (PICK_AMBIGUOUS),
         * final values only (no match state being iterated) */
        int picks = self->ctx_model[context] != 0 && self->niterating == 0;
        /* (what a call below may move, in locals: read again after one) */
        const int *after = self->after + (size_t)side * 11, *list_local = self->list_local;
        const double *gv = g->v, *gd = g->d;
        const unsigned char *dirty = g->dirty;
        for (int i = 0; i < model->ndraws; i++) {
            int list = after[model->value[i]];
            if (list < 0) {
                if ((list = expand(self, side, model->value[i])) < 0) return -1;
                after = self->after + (size_t)side * 11;
                list_local = self->list_local;
            }
            int ll = list_local[list];
            size_t at = row + (size_t)ll;
            double av, ad = 0.0;
            if (ll < lists && !(dirty && dirty[at >> PAGE_SHIFT] != PAGE_WRITTEN) &&
                dense_known(&gv[at])) { /* (dense_has) */
                av = -gv[at];
                if (gd) {
                    ad = gd[at];
                    self->reads++;
                }
            } else {
                double bv, bd; /* (av and ad stay in registers) */
                unsigned char pick = 0;
                if (best_end(self, context, mover, list, mover == 0 ? b : a, model->rest[i], &bv,
                             &bd, picks && ll < lists ? &pick : NULL) < 0)
                    return -1;
                av = bv;
                ad = bd;
                if (ll < lists) {
                    dense_write(g, at, av);
                    if (g->d) g->d[at] = ad;
                    if (picks) { /* (after the before-draw positions: see PICK_AMBIGUOUS) */
                        size_t first = g->first;
                        if (!g->pick) g->pick = calloc(g->nv - first + 1, 1);
                        if (g->pick) g->pick[at - first] = pick;
                    }
                    g->filled++;
                    self->dense_filled++;
                }
                after = self->after + (size_t)side * 11;
                list_local = self->list_local;
                gv = g->v;
                gd = g->d;
                dirty = g->dirty;
            }
            value += model->p[i] * av;
            slope += model->p[i] * ad;
        }
    } else {
        for (int i = 0; i < model->ndraws; i++) {
            int drawn = model->value[i];
            int list = self->after[side * 11 + drawn];
            if (list < 0 && (list = expand(self, side, drawn)) < 0) return -1;
            double av, ad;
            if (after_draw(self, context, mover, list, a, b, model->rest[i], &av, &ad) < 0)
                return -1;
            value += model->p[i] * av;
            slope += model->p[i] * ad;
        }
    }
    if (g) {
        dense_write(g, index, value);
        if (g->d) g->d[index] = slope;
        g->filled++;
        self->dense_filled++;
    } else if (keep(self, context, self->hand[a], self->hand[b], key, self->reads != reads, value,
                    slope, self->solved - solved) < 0) {
        return -1;
    }
    *v = value;
    *d = slope;
    return 0;
}

/* -- the set's odds along the match-optimal line (MatchSolver._odds_end / _odds_before /
 * _choice); asked only outside an iteration, when every value is final. */

static int odds_before(Core *self, int context, int mover, int a, int b, int deck, double *win,
                       double *tie);

static int odds_end(Core *self, int context, int mover, int code, int other, int deck,
                    double *win, double *tie) {
    int a, b, next;
    if (set_goes_on(self, mover, code, other, &a, &b, &next))
        return odds_before(self, context, next, a, b, deck, win, tie);
    int winner = set_winner(self, mover, code, other);
    *win = winner == 0 ? 1.0 : 0.0;
    *tie = winner < 0 ? 1.0 : 0.0;
    return 0;
}

/* The match-optimal end of the mover's turn in `list`; among ends of equal match value (within
 * the tolerance), the first that keeps the most set equity for the mover. */
static int choice(Core *self, int context, int mover, int list, int other, int deck,
                  int *chosen) {
    int start = self->list_start[list], len = self->list_len[list];
    double sign = mover == 0 ? 1.0 : -1.0, best = 0.0;
    double scored[64];
    double *values = len <= 64 ? scored : malloc((size_t)len * sizeof(double));
    if (!values) {
        PyErr_NoMemory();
        return -1;
    }
    int result = -1;
    for (int i = 0; i < len; i++) {
        double d;
        if (end_turn(self, context, mover, self->codes[start + i], other, deck, &values[i], &d) <
            0)
            goto done;
        if (i == 0 || sign * values[i] > best) best = sign * values[i];
    }
    int near = 0, first = -1;
    for (int i = 0; i < len; i++) {
        if (sign * values[i] >= best - self->tolerance) {
            near++;
            if (first < 0) first = i;
        }
    }
    *chosen = self->codes[start + first];
    if (near > 1) {
        double top = 0.0;
        int found = 0;
        for (int i = first; i < len; i++) {
            if (!(sign * values[i] >= best - self->tolerance)) continue;
            double win, tie;
            int code = self->codes[start + i];
            if (odds_end(self, context, mover, code, other, deck, &win, &tie) < 0) goto done;
            double loss = 1.0 - win - tie;
            double equity = sign * (win - loss);
            if (!found || equity > top) {
                top = equity;
                *chosen = code;
                found = 1;
            }
        }
    }
    result = 0;
done:
    if (values != scored) free(values);
    return result;
}

static int odds_before(Core *self, int context, int mover, int a, int b, int deck, double *win,
                       double *tie) {
    PosKey key = key_of(self, context, deck, 0, mover, a, b);
    if (key.place) {
        const ExactEntry *e = exact_get(&self->exact_odds, key);
        if (e) {
            *win = e->v;
            *tie = e->d;
            return 0;
        }
    } else if (memo_read(&self->odds, key.key, win, tie)) {
        return 0;
    }
    uint64_t solved = self->solved;
    if (count_solved(&self->solved, &self->reported, NULL) < 0) return -1; /* (Ctrl-C only: no progress report) */
    Draws model;
    draws_of(self, context, deck, &model);
    int side = mover == 0 ? a : b, other = mover == 0 ? b : a;
    /* the after-draw positions' picks, where the values left them (see PICK_AMBIGUOUS): the
     * row of compute_before's dense branch */
    const Dense *g = dense_of(self, context, self->hand[a], self->hand[b]);
    size_t row = 0, first = 0; /* (the after-draw positions' row, and where they begin) */
    int lists = 0;
    if (g && self->local[a] < g->n0 && self->local[b] < g->n1) {
        size_t n1 = (size_t)g->n1;
        first = g->first;
        row = mover == 0 ? first + (size_t)self->local[b] * (size_t)g->l0
                         : first + (size_t)g->l0 * n1 + (size_t)self->local[a] * (size_t)g->l1;
        lists = mover == 0 ? g->l0 : g->l1;
    }
    double w = 0.0, t = 0.0;
    for (int i = 0; i < model.ndraws; i++) {
        int drawn = model.value[i];
        int list = self->after[side * 11 + drawn];
        if (list < 0 && (list = expand(self, side, drawn)) < 0) return -1;
        int code, ll = self->list_local[list];
        double cw, ct;
        unsigned char pick = 0;
        if (g && g->pick && ll < lists && dense_has(g, row + (size_t)ll))
            pick = g->pick[row + (size_t)ll - first];
        if (pick && pick != PICK_AMBIGUOUS) {
            code = self->codes[self->list_start[list] + pick - 1];
        } else if (choice(self, context, mover, list, other, model.rest[i], &code) < 0) {
            return -1;
        }
        if (odds_end(self, context, mover, code, other, model.rest[i], &cw, &ct) < 0)
            return -1;
        w += model.p[i] * cw;
        t += model.p[i] * ct;
    }
    if (key.place ? exact_put(&self->exact_odds, key, w, t, self->solved - solved) < 0
                  : memo_keep(&self->odds, key.key, w, t, 0) < 0)
        return -1;
    *win = w;
    *tie = t;
    return 0;
}

/* -- the Python interface ------------------------------------------------------------------------ */

#define CALLBACKS(X) X(expand) X(entry) X(too_large) X(progress)
CORE_GC(CALLBACKS)

static void drop_levels(Core *self) {
    for (int i = 0; i < self->nlevels; i++) memo_free(&self->levels[i].scratch);
    self->nlevels = 0;
}

static void core_dealloc(Core *self) {
    PyObject_GC_UnTrack(self);
    core_clear(self);
    dense_clear(self, 0);
    clear_exact(self);
    drop_levels(self);
    memo_free(&self->tables[0]);
    memo_free(&self->tables[1]);
    memo_free(&self->entries);
    memo_free(&self->odds);
    hands_free(&self->hands);
    idmap_free(&self->side_ids);
    idmap_free(&self->placed_ids);
    listindex_free(&self->list_ids);
    FREE_ALL(self->cards, self->f24, self->f36, self->expanded);
    FREE_ALL(self->kind, self->tiebreak, self->hand, self->total, self->local, self->nlocal,
             self->list_local, self->nlist_local, self->nfirst, self->nplaying, self->dense,
             self->spares.items, self->lazy_spares.items, self->after, self->list_start,
             self->list_len, self->codes, self->ctx_s0, self->ctx_s1, self->ctx_opener,
             self->ctx_model, self->models, self->levels, self->spare_d);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyDoc_STRVAR(core_set_blind_doc, "set_blind(seat, hand): the later sets take that seat's hand as `hand` (seat -1: none)");
static PyObject *core_set_blind(Core *self, PyObject *args) {
    int seat, hand;
    if (!PyArg_ParseTuple(args, "ii", &seat, &hand)) return NULL;
    if (seat < -1 || seat > 1 || hand < 0)
        return fail(PyExc_ValueError, "set_blind(seat -1..1, hand id)");
    self->blind_seat = seat;
    self->blind_hand = hand;
    Py_RETURN_NONE;
}

static int core_init(Core *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    int rule, sets_to_win;
    PyObject *expand, *entry, *too_large;
    double tolerance = 1e-9;
    if (!PyArg_ParseTuple(args, "iiOOO|d", &rule, &sets_to_win, &expand, &entry, &too_large,
                          &tolerance))
        return -1;
    if (rule < PLAYER1 || rule > LOSER || sets_to_win < 1 || sets_to_win > 100)
        return fail_status(PyExc_ValueError, "a first-player rule 0..3 and sets to win 1..100");
    if (!PyCallable_Check(expand) || !PyCallable_Check(entry) ||
        !PyExceptionClass_Check(too_large)) {
        PyErr_SetString(PyExc_TypeError, "expand, entry: callables; too_large: an exception");
        return -1;
    }
    if (self->expand) return fail_status(PyExc_RuntimeError, "a core is initialised once");
    self->rule = rule;
    self->sets_to_win = sets_to_win;
    self->budget = -1;
    self->tolerance = tolerance;
    self->blind_seat = -1;
    Py_INCREF(expand);
    Py_INCREF(entry);
    Py_INCREF(too_large);
    self->expand = expand;
    self->entry = entry;
    self->too_large = too_large;
    self->exact.max_cap = EXACT_ENTRIES;
    self->exact_odds.max_cap = EXACT_ENTRIES / EXACT_ODDS_SHARE;
    return 0;
}

/* A side's key in side_ids: a playing side's playing_key; another kind's its kind in bits 58
 * and 59, its hand, total and tiebreak. */
static inline uint64_t match_side_key(int kind, const Playing *side) {
    if (kind == PLAYING) return playing_key(side);
    return (uint64_t)1 << 63 | (uint64_t)kind << 58 | (uint64_t)side->hand << 29 |
           (uint64_t)(uint8_t)side->total | (uint64_t)(side->tiebreak != 0) << 8;
}

/* Add the next side (not held). -1: an exception is set. */
static int new_side(Core *self, int kind, const Playing *side) {
    int hand = side->hand;
    if (self->nsides >= MAX_ID) return fail_status(PyExc_OverflowError, "too many sides for the C core");
    if (self->nsides == self->capsides) {
        int cap = self->capsides ? self->capsides * 2 : 1024;
        if (grow((void **)&self->kind, cap, 1) < 0 || grow((void **)&self->tiebreak, cap, 1) < 0 ||
            grow((void **)&self->hand, cap, sizeof(int)) < 0 ||
            grow((void **)&self->total, cap, sizeof(int)) < 0 ||
            grow((void **)&self->cards, cap, sizeof(int)) < 0 ||
            grow((void **)&self->f24, cap, sizeof(int)) < 0 ||
            grow((void **)&self->f36, cap, sizeof(int)) < 0 ||
            grow((void **)&self->expanded, cap, 1) < 0 ||
            grow((void **)&self->local, cap, sizeof(int)) < 0 ||
            grow((void **)&self->after, cap * 11, sizeof(int)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        self->capsides = cap;
    }
    if (hand >= self->caphands) {
        int cap = self->caphands ? self->caphands : 256;
        while (cap <= hand) cap *= 2;
        if (grow((void **)&self->nlocal, cap, sizeof(int)) < 0 ||
            grow((void **)&self->nlist_local, cap, sizeof(int)) < 0 ||
            grow((void **)&self->nfirst, cap, sizeof(int)) < 0 ||
            grow((void **)&self->nplaying, cap, sizeof(int)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        memset(&self->nlocal[self->caphands], 0, (size_t)(cap - self->caphands) * sizeof(int));
        memset(&self->nfirst[self->caphands], 0, (size_t)(cap - self->caphands) * sizeof(int));
        memset(&self->nplaying[self->caphands], 0, (size_t)(cap - self->caphands) * sizeof(int));
        memset(&self->nlist_local[self->caphands], 0,
               (size_t)(cap - self->caphands) * sizeof(int));
        self->caphands = cap;
    }
    int id = self->nsides;
    if (idmap_put(&self->side_ids, match_side_key(kind, side), id) < 0) return -1;
    self->nsides++;
    self->local[id] = self->nlocal[hand]++;
    if (kind == PLAYING) {
        self->nplaying[hand]++;
        if (self->local[id] >= self->nfirst[hand])
            self->nfirst[hand] = 0; /* (its playing sides are no longer all ranked first) */
    }
    self->kind[id] = (char)kind;
    self->tiebreak[id] = (char)(side->tiebreak != 0);
    self->hand[id] = hand;
    self->total[id] = side->total;
    self->cards[id] = kind == PLAYING ? side->cards : 0;
    self->f24[id] = kind == PLAYING ? side->f24 : 0;
    self->f36[id] = kind == PLAYING ? side->f36 : 0;
    self->expanded[id] = 0;
    for (int v = 0; v < 11; v++) self->after[id * 11 + v] = -1;
    return id;
}

PyDoc_STRVAR(core_add_side_doc, "add_side(kind, hand, total, tiebreak, cards=0, f24=0, f36=0) -> side id (ids are given in order)");
static PyObject *core_add_side(Core *self, PyObject *args) {
    int kind;
    Playing side = {0, 0, 0, 0, 0, 0};
    if (!PyArg_ParseTuple(args, "iiip|iii", &kind, &side.hand, &side.total, &side.tiebreak,
                          &side.cards, &side.f24, &side.f36))
        return NULL;
    if (kind < PLAYING || kind > NINE_WIN || side.hand < 0 || side.hand > MAX_HAND)
        return fail(PyExc_ValueError, "a side kind 0..3 and a hand id in range");
    if (side.total < -128 || side.total > 127 || side.f24 < -128 || side.f24 > 127 ||
        side.f36 < -128 || side.f36 > 127 || side.cards < 0 || side.cards > 15)
        return fail(PyExc_ValueError, "a side's total, count and flip sums in the C core's range");
    if (idmap_get(&self->side_ids, match_side_key(kind, &side)) >= 0)
        return fail(PyExc_ValueError, "that side is held already");
    int id = new_side(self, kind, &side);
    return id < 0 ? NULL : PyLong_FromLong(id);
}

/* Add the next list: its codes, and the codes it was found by (before its stands were pruned).
 * -1: an exception is set. */
static int new_list(Core *self, const int *codes, int n, const int *found_by, int m) {
    if (self->nlists >= MAX_ID || n > INT_MAX - self->ncodes)
        return fail_status(PyExc_OverflowError, "too many candidate lists for the C core");
    if (self->list_ids.count != self->nlists)
        return fail_status(PyExc_RuntimeError, "every list is added with the codes it was found by");
    if (self->nlists == self->caplists) {
        int cap = self->caplists ? self->caplists * 2 : 1024;
        if (grow((void **)&self->list_start, cap, sizeof(int)) < 0 ||
            grow((void **)&self->list_local, cap, sizeof(int)) < 0 ||
            grow((void **)&self->list_len, cap, sizeof(int)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        self->caplists = cap;
    }
    if (codes_room(&self->codes, self->ncodes, &self->capcodes, n) < 0 ||
        listindex_add(&self->list_ids, found_by, m) < 0)
        return -1;
    int id = self->nlists++;
    memcpy(&self->codes[self->ncodes], codes, (size_t)n * sizeof(int));
    /* its first code ends the turn with no hand card played: the drawing side's hand */
    self->list_local[id] = n ? self->nlist_local[self->hand[codes[0]]]++ : INT_MAX;
    self->list_start[id] = self->ncodes;
    self->list_len[id] = n;
    self->ncodes += n;
    return id;
}

/* A sequence of side ids read into a malloc'ed array (*n of them). NULL: an exception is set. */
static int *sides_read(Core *self, PyObject *items, Py_ssize_t *n) {
    PyObject *seq = PySequence_Fast(items, "codes must be a sequence");
    if (!seq) return NULL;
    *n = PySequence_Fast_GET_SIZE(seq);
    int *codes = malloc((size_t)(*n ? *n : 1) * sizeof(int)), read = 0;
    if (!codes) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    if (codes_read(seq, codes, &read, self->nsides) < 0) {
        free(codes);
        codes = NULL;
    }
    Py_DECREF(seq);
    return codes;
}

PyDoc_STRVAR(core_add_list_doc, "add_list(codes, found_by) -> list id (found_by: the codes before the stands were pruned)");
static PyObject *core_add_list(Core *self, PyObject *args) {
    PyObject *codes_arg, *found_arg;
    if (!PyArg_ParseTuple(args, "OO", &codes_arg, &found_arg)) return NULL;
    Py_ssize_t n, m;
    int *codes = sides_read(self, codes_arg, &n);
    if (!codes) return NULL;
    int *found_by = sides_read(self, found_arg, &m);
    int id = -1;
    if (found_by) {
        if (listindex_get(&self->list_ids, found_by, (int)m) >= 0)
            PyErr_SetString(PyExc_ValueError, "a list found by those codes is held already");
        else
            id = new_list(self, codes, (int)n, found_by, (int)m);
    }
    FREE_ALL(codes, found_by);
    return id < 0 ? NULL : PyLong_FromLong(id);
}

/* -- candidate lists built here (MatchSolver._intern_later_sides, walk) ----------------------- */

/* The most codes a list gathers before its repeats go: two ends for each play and the draw. */
#define MAX_ENDS 256

/* The id of a side of `kind` (a bust's or a ninth-card win's reads only its hand; a stand's its
 * total, tiebreak and hand), added if new. -1: an exception is set. */
static int intern_match_side(Core *self, int kind, const Playing *side) {
    Playing key = *side;
    if (kind == BUST || kind == NINE_WIN) key.total = key.tiebreak = 0;
    int found = idmap_get(&self->side_ids, match_side_key(kind, &key));
    return found >= 0 ? found : new_side(self, kind, &key);
}

/* match_solver.end_codes: append to codes[*n] the sides a turn can end in once `side` holds its
 * last card of the turn (`full`: its table's last slot), interned in the same order. -1: an
 * exception is set. */
static int match_end_codes(Core *self, const Playing *side, int tiebreaker_last, int full,
                           int *codes, int *n) {
    if (*n + 2 > MAX_ENDS) return fail_status(PyExc_OverflowError, "a hand with too many plays");
    Playing stand = *side;
    stand.tiebreak = side->tiebreak || (tiebreaker_last && !self->rules.any_tiebreak);
    int kind = turn_end(&self->rules, side->total, full), code;
    if (kind == FREE_END) { /* (the side itself first: the ids follow Python's order) */
        if ((code = intern_match_side(self, PLAYING, side)) < 0) return -1;
        codes[(*n)++] = code;
        code = intern_match_side(self, STANDING, &stand);
    } else if (kind == BUST_END || kind == NINTH_BUST_END) {
        code = intern_match_side(self, BUST, side);
    } else if (kind == NINTH_WIN_END) {
        code = intern_match_side(self, NINE_WIN, side);
    } else {
        code = intern_match_side(self, STANDING, &stand);
    }
    if (code < 0) return -1;
    codes[(*n)++] = code;
    return 0;
}

/* MatchSolver._undominated: codes[0..n) less every stand another stand of theirs dominates (as
 * high a total, with a Tiebreaker if this one has it, keeping every card this one keeps), into
 * kept; their number returned. */
static int match_undominated(const Core *self, const int *codes, int n, int *kept) {
    int stands = 0, k = 0;
    for (int i = 0; i < n; i++) stands += self->kind[codes[i]] == STANDING;
    for (int i = 0; i < n; i++) {
        int code = codes[i], dominated = 0;
        if (stands >= 2 && self->kind[code] == STANDING)
            for (int j = 0; j < n && !dominated; j++) {
                int other = codes[j];
                dominated = other != code && self->kind[other] == STANDING &&
                            (self->total[other] > self->total[code] ||
                             (self->total[other] == self->total[code] &&
                              self->tiebreak[other] >= self->tiebreak[code])) &&
                            keeps_all(&self->hands, self->hand[other], self->hand[code]);
            }
        if (!dominated) kept[k++] = code;
    }
    return k;
}

/* SetSolver._placed_list with the match's ends: the list of a side holding the card it just
 * drew (`drawn`), found by its codes before the stands are pruned. -1: an exception is set. */
static int match_placed_list(Core *self, const Playing *placed, int drawn) {
    int codes[MAX_ENDS], kept[MAX_ENDS], n = 0;
    int size = self->rules.table_size;
    const Hands *hands = &self->hands;
    if (match_end_codes(self, placed, 0, placed->cards >= size, codes, &n) < 0) return -1;
    if (placed->cards < size && placed->total != self->rules.target) {
        int start = hands->plays_start[placed->hand], count = hands->plays_len[placed->hand];
        for (int i = 0; i < count; i++) {
            const Play *play = &hands->plays[start + i];
            Playing after = play_card(hands, &self->rules, *placed, drawn, play);
            if (match_end_codes(self, &after, play->kind == TIEBREAKER, after.cards >= size, codes,
                                &n) < 0)
                return -1;
        }
    }
    n = unique_codes(codes, n);
    int found = listindex_get(&self->list_ids, codes, n);
    if (found >= 0) return found;
    return new_list(self, kept, match_undominated(self, codes, n, kept), codes, n);
}

/* The candidate list after the playing side `side` draws `drawn`, made here the first time
 * (SetSolver._candidate_list). -1: an exception is set. */
static int build_after(Core *self, int side, int drawn) {
    Playing here = {self->total[side], self->cards[side], self->hand[side],
                    self->f24[side],   self->f36[side],   self->tiebreak[side]};
    Playing placed = place_card(&self->hands, &self->rules, here, drawn, here.hand);
    uint64_t key = placed_key(&self->hands, &placed, drawn);
    int list = idmap_get(&self->placed_ids, key);
    if (list < 0) {
        if ((list = match_placed_list(self, &placed, drawn)) < 0) return -1;
        if (idmap_put(&self->placed_ids, key, list) < 0) return -1;
    }
    self->after[side * 11 + drawn] = list;
    return list;
}

PyDoc_STRVAR(core_set_sides_rules_doc, "set_sides_rules(target, table_size, nine_win, any_tiebreak, flip_all): the rules walk builds candidate lists by");
static PyObject *core_set_sides_rules(Core *self, PyObject *args) {
    SideRules *r = &self->rules;
    if (!PyArg_ParseTuple(args, "iippp", &r->target, &r->table_size, &r->nine_win,
                          &r->any_tiebreak, &r->flip_all))
        return NULL;
    self->rules_set = 1;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_add_hands_doc, "add_hands(hands): the next hands by id, as SetSolver's C core takes them");
static PyObject *core_add_hands(Core *self, PyObject *args) {
    if (hands_add(&self->hands, args, MAX_HAND) < 0) return NULL;
    Py_RETURN_NONE;
}

/* walk(starts, draws): MatchSolver._intern_later_sides from these start sides, here: every
 * playing side reachable, drawing the values of `draws`, gets its candidate list after each,
 * in the order Python's walk takes (the sides and lists it adds get the ids Python's would; a
 * side walked before is not walked again). */
PyDoc_STRVAR(core_walk_doc, "walk(starts, draws): intern every side reachable from the start sides and its candidate lists (MatchSolver._intern_later_sides)");
static PyObject *core_walk(Core *self, PyObject *args) {
    PyObject *starts_arg, *draws_arg;
    if (!PyArg_ParseTuple(args, "OO", &starts_arg, &draws_arg)) return NULL;
    if (!self->rules_set) return fail(PyExc_RuntimeError, "set_sides_rules first");
    Py_ssize_t nstarts, ndraws;
    int *starts = sides_read(self, starts_arg, &nstarts);
    if (!starts) return NULL;
    PyObject *seq = PySequence_Fast(draws_arg, "draws must be a sequence");
    int draws[10], *stack = NULL, top = 0, cap = 0, ok = 0;
    if (!seq) goto done;
    ndraws = PySequence_Fast_GET_SIZE(seq);
    if (ndraws > 10) {
        PyErr_SetString(PyExc_ValueError, "at most ten values drawn");
        goto done;
    }
    for (Py_ssize_t i = 0; i < ndraws; i++) {
        long value = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (value < 1 || value > 10) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a value drawn is 1..10");
            goto done;
        }
        draws[i] = (int)value;
    }
    for (Py_ssize_t i = 0; i < nstarts; i++) {
        int side = starts[i];
        if (self->kind[side] != PLAYING || self->hand[side] >= self->hands.count) {
            PyErr_SetString(PyExc_ValueError, "a start is a playing side of a hand added");
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < nstarts; i++) { /* (Python: the starts not seen, then all seen) */
        if (self->expanded[starts[i]]) continue;
        if (room_for((void **)&stack, top, &cap, 1, sizeof(int)) < 0) goto done;
        stack[top++] = starts[i];
    }
    for (int i = 0; i < top; i++) self->expanded[stack[i]] = 1;
    while (top) {
        int side = stack[--top];
        for (Py_ssize_t d = 0; d < ndraws; d++) {
            int list = self->after[side * 11 + draws[d]];
            if (list < 0 && (list = build_after(self, side, draws[d])) < 0) goto done;
            int start = self->list_start[list], len = self->list_len[list];
            for (int i = 0; i < len; i++) {
                int code = self->codes[start + i];
                if (self->expanded[code]) continue;
                self->expanded[code] = 1;
                if (self->kind[code] != PLAYING) continue;
                if (room_for((void **)&stack, top, &cap, 1, sizeof(int)) < 0) goto done;
                stack[top++] = code;
            }
        }
    }
    ok = 1;
done:
    Py_XDECREF(seq);
    FREE_ALL(starts, stack);
    if (!ok) return NULL;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(core_sides_from_doc, "sides_from(start) -> (sides, kinds, hands) of the sides from id start on, each as Python interns it: (total, cards, hand, f24, f36, tiebreak), ('S', total, tiebreak, hand), ('B', hand) or ('W', hand)");
static PyObject *core_sides_from(Core *self, PyObject *args) {
    int start;
    if (!PyArg_ParseTuple(args, "i", &start)) return NULL;
    if (start < 0 || start > self->nsides) return fail(PyExc_IndexError, "no such side");
    int n = self->nsides - start;
    PyObject *sides = PyList_New(n), *kinds = PyList_New(n), *hands = PyList_New(n);
    if (!sides || !kinds || !hands) goto failed;
    for (int i = 0; i < n; i++) {
        int id = start + i, kind = self->kind[id], hand = self->hand[id];
        PyObject *side;
        if (kind == PLAYING)
            side = Py_BuildValue("(iiiiiN)", self->total[id], self->cards[id], hand,
                                 self->f24[id], self->f36[id], PyBool_FromLong(self->tiebreak[id]));
        else if (kind == STANDING)
            side = Py_BuildValue("(siNi)", "S", self->total[id],
                                 PyBool_FromLong(self->tiebreak[id]), hand);
        else
            side = Py_BuildValue("(si)", kind == BUST ? "B" : "W", hand);
        if (!side) goto failed;
        PyList_SET_ITEM(sides, i, side);
        PyObject *k = PyLong_FromLong(kind), *h = PyLong_FromLong(hand);
        if (!k || !h) {
            Py_XDECREF(k);
            Py_XDECREF(h);
            goto failed;
        }
        PyList_SET_ITEM(kinds, i, k);
        PyList_SET_ITEM(hands, i, h);
    }
    return Py_BuildValue("(NNN)", sides, kinds, hands);
failed:
    Py_XDECREF(sides);
    Py_XDECREF(kinds);
    Py_XDECREF(hands);
    return NULL;
}

PyDoc_STRVAR(core_lists_from_doc, "lists_from(start) -> (codes, found_by) of the lists from id start on: each list's codes and the codes it was found by, as tuples");
static PyObject *core_lists_from(Core *self, PyObject *args) {
    int start;
    if (!PyArg_ParseTuple(args, "i", &start)) return NULL;
    if (start < 0 || start > self->nlists) return fail(PyExc_IndexError, "no such list");
    int n = self->nlists - start;
    PyObject *codes = PyList_New(n), *found = PyList_New(n);
    if (!codes || !found) goto failed;
    const ListIndex *ix = &self->list_ids;
    for (int i = 0; i < n; i++) {
        int id = start + i;
        PyObject *kept = codes_tuple(&self->codes[self->list_start[id]], self->list_len[id]);
        if (!kept) goto failed;
        PyList_SET_ITEM(codes, i, kept);
        PyObject *by = codes_tuple(&ix->codes[ix->start[id]], ix->len[id]);
        if (!by) goto failed;
        PyList_SET_ITEM(found, i, by);
    }
    return Py_BuildValue("(NN)", codes, found);
failed:
    Py_XDECREF(codes);
    Py_XDECREF(found);
    return NULL;
}

PyDoc_STRVAR(core_add_context_doc, "add_context(s0, s1, opener, model) -> context id (opener -1: not read)");
static PyObject *core_add_context(Core *self, PyObject *args) {
    int s0, s1, opener, model;
    if (!PyArg_ParseTuple(args, "iiii", &s0, &s1, &opener, &model)) return NULL;
    if (s0 < 0 || s1 < 0 || s0 >= self->sets_to_win || s1 >= self->sets_to_win || opener < -1 ||
        opener > 1 || model < 0)
        return fail(PyExc_ValueError, "no such score, opener or deck model");
    if (self->ncontexts >= MAX_CONTEXTS)
        return fail(PyExc_OverflowError, "too many contexts for the C core");
    if (self->ncontexts == self->capcontexts) {
        int cap = self->capcontexts ? self->capcontexts * 2 : 64;
        if (grow((void **)&self->ctx_s0, cap, sizeof(int)) < 0 ||
            grow((void **)&self->ctx_s1, cap, sizeof(int)) < 0 ||
            grow((void **)&self->ctx_opener, cap, sizeof(int)) < 0 ||
            grow((void **)&self->ctx_model, cap, sizeof(int)) < 0)
            return PyErr_NoMemory();
        self->capcontexts = cap;
    }
    int id = self->ncontexts++;
    self->ctx_s0[id] = s0;
    self->ctx_s1[id] = s1;
    self->ctx_opener[id] = opener;
    self->ctx_model[id] = model;
    return PyLong_FromLong(id);
}

/* set_model(model, probabilities or None, exact=False): the fixed draw probabilities of a deck
 * model, or (exact) a model drawn without replacement, each deck's draws made from its code
 * (exact_draws; None and not exact: not solved here). Redefining a model forgets every position of
 * the sets in progress of its kind. */
PyDoc_STRVAR(core_set_model_doc, "set_model(model, probabilities or None, exact=False): fixed draw probabilities of values 1..10, or (exact) draws without replacement, each deck's made from its code");
static PyObject *core_set_model(Core *self, PyObject *args) {
    int model, exact = 0;
    PyObject *probabilities;
    if (!PyArg_ParseTuple(args, "iO|p", &model, &probabilities, &exact)) return NULL;
    if (model < 0 || model >= MAX_CONTEXTS) return fail(PyExc_ValueError, "no such deck model");
    Model fresh = {0};
    if (exact && probabilities != Py_None)
        return fail(PyExc_ValueError, "an exact model's draws depend on the deck");
    fresh.exact = exact;
    fresh.defined = exact;
    if (probabilities != Py_None) {
        if (read_probabilities(probabilities, &fresh.fixed.ndraws, fresh.fixed.value,
                               fresh.fixed.p) < 0)
            return NULL;
        fresh.defined = 1;
    }
    if (model >= self->nmodels) {
        int count = model + 1 > 2 * self->nmodels ? model + 1 : 2 * self->nmodels;
        if (grow((void **)&self->models, count, sizeof(Model)) < 0) return PyErr_NoMemory();
        memset(&self->models[self->nmodels], 0, (size_t)(count - self->nmodels) * sizeof(Model));
        self->nmodels = count;
    } else {
        Model *old = &self->models[model];
        if ((old->defined && !old->exact) || model == 0) {
            memo_clear(&self->tables[model != 0]);
            memo_clear(&self->odds);
            /* their arrays serve the next tables: after clear_positions every model id is
             * given again, and freeing them here made a match-lite player that changes seats
             * every match (a clear each time) 15 % slower, their pages faulted in again */
            dense_clear(self, 1);
        }
        if (old->exact) clear_exact(self);
    }
    self->models[model] = fresh;
    if (model == 0) {
        self->later_draws = fresh.fixed;
        self->later_fixed = !fresh.exact && fresh.defined;
    }
    Py_RETURN_NONE;
}

static int check_context(Core *self, int context) {
    if (context < 0 || context >= self->ncontexts)
        return fail_status(PyExc_IndexError, "no such context");
    int model = self->ctx_model[context];
    if (model >= self->nmodels || !self->models[model].defined)
        return fail_status(PyExc_ValueError, "the context's deck model is not defined");
    return 0;
}

static int check_sides(Core *self, int x, int y) {
    if (x < 0 || x >= self->nsides || y < 0 || y >= self->nsides)
        return fail_status(PyExc_IndexError, "no such side");
    return 0;
}

static int check_deck(Core *self, int context, int deck) {
    if (deck < 0 || deck > FULL_DECK_CODE ||
        (deck != 0 && !self->models[self->ctx_model[context]].exact))
        return fail_status(PyExc_ValueError,
                           "no such deck (a fixed model has deck 0 only; an exact one a code)");
    return 0;
}

/* The context, the sides of seats 0 and 1 (or a side twice) and the deck a method is asked of:
 * -1 (an exception is set) unless each exists. */
static int check_position(Core *self, int context, int a, int b, int deck) {
    if (check_context(self, context) < 0 || check_sides(self, a, b) < 0 ||
        check_deck(self, context, deck) < 0)
        return -1;
    return 0;
}

static int check_mover_list(Core *self, int mover, int list) {
    if ((mover != 0 && mover != 1) || list < 0 || list >= self->nlists)
        return fail_status(PyExc_ValueError, "no such mover or candidate list");
    return 0;
}

PyDoc_STRVAR(core_before_doc, "before(context, mover, a, b, deck=0) -> (value, slope) before seat mover draws");
static PyObject *core_before(Core *self, PyObject *args) {
    int context, mover, a, b, deck = 0;
    if (!PyArg_ParseTuple(args, "iiii|i", &context, &mover, &a, &b, &deck)) return NULL;
    if (check_position(self, context, a, b, deck) < 0) return NULL;
    if ((mover != 0 && mover != 1) || self->kind[mover == 0 ? a : b] != PLAYING)
        return fail(PyExc_ValueError, "the mover is a seat whose side is playing");
    double v, d;
    if (before_draw(self, context, mover, a, b, deck, &v, &d) < 0) return NULL;
    return Py_BuildValue("(dd)", v, d);
}

PyDoc_STRVAR(core_after_doc, "after(context, mover, list, a, b, deck=0) -> (value, slope) of the mover's best candidate");
static PyObject *core_after(Core *self, PyObject *args) {
    int context, mover, list, a, b, deck = 0;
    if (!PyArg_ParseTuple(args, "iiiii|i", &context, &mover, &list, &a, &b, &deck)) return NULL;
    if (check_position(self, context, a, b, deck) < 0) return NULL;
    if (check_mover_list(self, mover, list) < 0) return NULL;
    double v, d;
    if (after_draw(self, context, mover, list, a, b, deck, &v, &d) < 0) return NULL;
    return Py_BuildValue("(dd)", v, d);
}

/* end_turn or odds_end (`of`) of the end of turn (context, mover, code, other, deck=0) the
 * arguments of end, end_value and odds_end name: its two values (-1: an exception is set). */
static int end_of(Core *self, PyObject *args,
                  int (*of)(Core *, int, int, int, int, int, double *, double *), double *x,
                  double *y) {
    int context, mover, code, other, deck = 0;
    if (!PyArg_ParseTuple(args, "iiii|i", &context, &mover, &code, &other, &deck)) return -1;
    if (check_position(self, context, code, other, deck) < 0) return -1;
    if ((mover != 0 && mover != 1) || self->kind[other] > STANDING)
        return fail_status(PyExc_ValueError, "no such mover, or the other side's set is over");
    return of(self, context, mover, code, other, deck, x, y);
}

/* end_of's two values, as a pair for Python (NULL: an exception is set). */
static PyObject *end_pair(Core *self, PyObject *args,
                          int (*of)(Core *, int, int, int, int, int, double *, double *)) {
    double x, y;
    if (end_of(self, args, of, &x, &y) < 0) return NULL;
    return Py_BuildValue("(dd)", x, y);
}

PyDoc_STRVAR(core_end_doc, "end(context, mover, code, other, deck=0) -> (value, slope) once mover ends its turn as code");
static PyObject *core_end(Core *self, PyObject *args) {
    return end_pair(self, args, end_turn);
}

PyDoc_STRVAR(core_end_value_doc, "end_value(context, mover, code, other, deck=0) -> value (end's first half)");
static PyObject *core_end_value(Core *self, PyObject *args) {
    double v, d;
    if (end_of(self, args, end_turn, &v, &d) < 0) return NULL;
    return PyFloat_FromDouble(v);
}

PyDoc_STRVAR(core_odds_end_doc, "odds_end(context, mover, code, other, deck=0) -> (P(seat 0 wins the set), P(tie)), both playing the match-optimal line");
static PyObject *core_odds_end(Core *self, PyObject *args) {
    return end_pair(self, args, odds_end);
}

PyDoc_STRVAR(core_choice_doc, "choice(context, mover, list, other, deck=0) -> the match-optimal end of turn (MatchSolver._choice)");
static PyObject *core_choice(Core *self, PyObject *args) {
    int context, mover, list, other, deck = 0;
    if (!PyArg_ParseTuple(args, "iiii|i", &context, &mover, &list, &other, &deck)) return NULL;
    if (check_position(self, context, other, other, deck) < 0) return NULL;
    if (check_mover_list(self, mover, list) < 0) return NULL;
    int code;
    if (choice(self, context, mover, list, other, deck, &code) < 0) return NULL;
    return PyLong_FromLong(code);
}

PyDoc_STRVAR(core_clear_odds_doc, "clear_odds(): forget the odds");
static PyObject *core_clear_odds(Core *self, PyObject *unused) {
    (void)unused;
    memo_clear(&self->odds);
    exact_free(&self->exact_odds);
    Py_RETURN_NONE;
}

static int check_match(const Iterating *it) {
    if (it->s0 < 0 || it->s1 < 0 || it->s0 > 255 || it->s1 > 255 || it->h0 < 0 || it->h1 < 0 ||
        it->h0 > MAX_HAND || it->h1 > MAX_HAND || it->spec < 0 || it->spec > 2)
        return fail_status(PyExc_ValueError, "no such match state");
    return 0;
}

static int parse_match(PyObject *item, Iterating *it) {
    if (!PyArg_ParseTuple(item, "iiiiidd", &it->s0, &it->s1, &it->h0, &it->h1, &it->spec, &it->v,
                          &it->d))
        return -1;
    return check_match(it);
}

/* set_iterating(items): the values being iterated, (s0, s1, h0, h1, spec, value, slope) each,
 * all of them (they replace the earlier ones). */
PyDoc_STRVAR(core_set_iterating_doc, "set_iterating([(s0, s1, h0, h1, spec, value, slope), ...]): the values iterated now");
static PyObject *core_set_iterating(Core *self, PyObject *args) {
    Iterating fresh[MAX_ITERATING]; /* (all read before they replace the earlier ones) */
    PyObject *seq = sequence_argument(args, "items must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > MAX_ITERATING)
        return fail_releasing(seq, PyExc_OverflowError, "too many values iterated at once");
    for (Py_ssize_t i = 0; i < n; i++) {
        if (parse_match(PySequence_Fast_GET_ITEM(seq, i), &fresh[i]) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
    }
    Py_DECREF(seq);
    memcpy(self->iterating, fresh, (size_t)n * sizeof(Iterating));
    self->niterating = (int)n;
    Py_RETURN_NONE;
}

static int parse_state(PyObject *args, int *s0, int *s1, int *h0, int *h1) {
    return PyArg_ParseTuple(args, "iiii", s0, s1, h0, h1) ? 0 : -1;
}

static int find_level(Core *self, int s0, int s1, int h0, int h1) {
    for (int i = 0; i < self->nlevels; i++) {
        Level *level = &self->levels[i];
        if (level->s0 == s0 && level->s1 == s1 && level->h0 == h0 && level->h1 == h1) return i;
    }
    return -1;
}

static void remove_level(Core *self, int i) {
    memo_free(&self->levels[i].scratch);
    memmove(&self->levels[i], &self->levels[i + 1],
            (size_t)(self->nlevels - i - 1) * sizeof(Level));
    self->nlevels--;
}

/* What forget, settle and drop_level do to the dense tables of a match state (its groups in
 * every later-set context of its score). */
enum { DENSE_FORGET, DENSE_SETTLE, DENSE_DROP };

static int dense_match(Core *self, int s0, int s1, int h0, int h1, int what) {
    if (!self->ndense) return 0;
    for (int c = 0; c < self->ncontexts; c++) {
        if (self->ctx_s0[c] != s0 || self->ctx_s1[c] != s1 || self->ctx_model[c] != 0) continue;
        Entry *e = memo_get(&self->dense_index, dense_key(c, h0, h1));
        if (!e) continue;
        Dense *g = self->dense[(int)e->v];
        if (what == DENSE_FORGET) {
            if (g->filled || g->dirty) dense_reset(self, g); /* (a table written to since) */
            if (!g->d) {
                size_t need = g->nv + 1;
                if (self->spare_d && self->spare_dcap >= need) {
                    g->d = self->spare_d;
                    g->dcap = self->spare_dcap;
                    self->spare_d = NULL;
                } else if ((g->d = malloc(need * sizeof(double)))) {
                    g->dcap = need;
                } else {
                    PyErr_NoMemory();
                    return -1;
                }
            }
        } else {
            if (what == DENSE_DROP) dense_reset(self, g);
            if (what == DENSE_SETTLE && g->v && g->d && self->shift != 0.0) {
                double shift = self->shift, *v = g->v;
                const double *d = g->d;
                if (g->dirty) {
                    for (size_t i = 0; i < g->nv; i++)
                        if (dense_has(g, i)) dense_write(g, i, -v[i] + d[i] * shift);
                } else {
                    for (size_t i = 0; i < g->nv; i++) /* (dense_write, as held: negated) */
                        if (dense_known(&v[i])) v[i] = -(-v[i] + d[i] * shift);
                }
            }
            if (g->d) {
                if (!self->spare_d || g->dcap > self->spare_dcap) {
                    free(self->spare_d);
                    self->spare_d = g->d;
                    self->spare_dcap = g->dcap;
                } else {
                    free(g->d);
                }
                g->d = NULL;
            }
        }
    }
    return 0;
}

/* forget(s0, s1, h0, h1): a new evaluation of that match state: its positions that read the
 * iterated value are forgotten (the first time, it gets a scratch table). */
PyDoc_STRVAR(core_forget_doc, "forget(s0, s1, h0, h1): forget the positions that read that state's iterated value");
static PyObject *core_forget(Core *self, PyObject *args) {
    int s0, s1, h0, h1;
    if (parse_state(args, &s0, &s1, &h0, &h1) < 0) return NULL;
    if (dense_match(self, s0, s1, h0, h1, DENSE_FORGET) < 0) return NULL;
    int i = find_level(self, s0, s1, h0, h1);
    if (i >= 0) {
        memo_clear(&self->levels[i].scratch);
        Py_RETURN_NONE;
    }
    if (self->nlevels == self->caplevels) {
        int cap = self->caplevels ? self->caplevels * 2 : 4;
        if (grow((void **)&self->levels, cap, sizeof(Level)) < 0) return PyErr_NoMemory();
        self->caplevels = cap;
    }
    Level *level = &self->levels[self->nlevels];
    level->s0 = s0;
    level->s1 = s1;
    level->h0 = h0;
    level->h1 = h1;
    if (memo_init(&level->scratch, 1024, 0) < 0) return PyErr_NoMemory();
    self->nlevels++;
    Py_RETURN_NONE;
}

/* settle(s0, s1, h0, h1, shift=0): the match state's value converged: its positions become
 * final, with slope 0 (the value they depend on is no longer iterated), each moved along its
 * slope by `shift` (the fixed point lies that far from the value they were computed with, on
 * the linear piece they hold on). */
PyDoc_STRVAR(core_settle_doc, "settle(s0, s1, h0, h1, shift=0): that state converged: its positions are final (moved by shift along their slopes), slope 0");
static PyObject *core_settle(Core *self, PyObject *args) {
    int s0, s1, h0, h1;
    double shift = 0.0;
    if (!PyArg_ParseTuple(args, "iiii|d", &s0, &s1, &h0, &h1, &shift)) return NULL;
    self->shift = shift;
    dense_match(self, s0, s1, h0, h1, DENSE_SETTLE);
    int i = find_level(self, s0, s1, h0, h1);
    if (i < 0) Py_RETURN_NONE;
    Map *scratch = &self->levels[i].scratch;
    Map *main = &self->tables[0];
    for (size_t k = 0; k < scratch->cap; k++) {
        Entry *e = &scratch->slots[k];
        uint64_t key = entry_key(e);
        if (key != EMPTY && memo_put(main, key, e->v + e->d * shift, 0.0, 0) < 0) {
            remove_level(self, i);
            return PyErr_NoMemory();
        }
    }
    remove_level(self, i);
    Py_RETURN_NONE;
}

/* drop_level(s0, s1, h0, h1): a solve of that match state failed (an exception, Ctrl-C): its
 * scratch positions are discarded. */
PyDoc_STRVAR(core_drop_level_doc, "drop_level(s0, s1, h0, h1): its solve failed: discard its unsettled positions");
static PyObject *core_drop_level(Core *self, PyObject *args) {
    int s0, s1, h0, h1;
    if (parse_state(args, &s0, &s1, &h0, &h1) < 0) return NULL;
    dense_match(self, s0, s1, h0, h1, DENSE_DROP);
    int i = find_level(self, s0, s1, h0, h1);
    if (i >= 0) remove_level(self, i);
    Py_RETURN_NONE;
}

/* drop_contexts(ids): forget the final positions of these contexts (between searches: Python
 * knows it will not ask them again soon; they would be solved again, the same, if it did). */
PyDoc_STRVAR(core_drop_contexts_doc, "drop_contexts(ids): forget the final positions of these contexts (between searches)");
static PyObject *core_drop_contexts(Core *self, PyObject *args) {
    PyObject *seq = sequence_argument(args, "ids must be a sequence");
    if (!seq) return NULL;
    char *drop = calloc((size_t)self->ncontexts + 1, 1);
    if (!drop) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    int any = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long id = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (id == -1 && PyErr_Occurred()) {
            free(drop);
            Py_DECREF(seq);
            return NULL;
        }
        if (id >= 0 && id < self->ncontexts) drop[id] = any = 1;
    }
    Py_DECREF(seq);
    if (any && self->ndense) {
        int kept = 0;
        memo_clear(&self->dense_index);
        memset(self->found_dense, 0, sizeof self->found_dense);
        for (int i = 0; i < self->ndense; i++) {
            Dense *g = self->dense[i];
            if (drop[g->context]) {
                dense_free(self, g);
                continue;
            }
            self->dense[kept] = g;
            memo_put(&self->dense_index, dense_key(g->context, g->h0, g->h1), (double)kept, 0.0, 0);
            kept++;
        }
        self->ndense = kept;
    }
    for (int t = 0; any && t < 2; t++) {
        Map *table = &self->tables[t];
        Map kept = {0};
        if (memo_init(&kept, 1024, 0) < 0) {
            free(drop);
            return PyErr_NoMemory();
        }
        for (size_t k = 0; k < table->cap; k++) {
            Entry *e = &table->slots[k];
            uint64_t key = entry_key(e);
            if (key == EMPTY || drop[(key - 1) >> 46]) continue;
            if (memo_put(&kept, key, e->v, e->d, 0) < 0) {
                memo_free(&kept);
                free(drop);
                return PyErr_NoMemory();
            }
        }
        memo_free(table);
        *table = kept;
    }
    free(drop);
    Py_RETURN_NONE;
}

/* clear_positions(): forget every position (between searches); sides, lists, contexts, models
 * and match entries stay, and so do the tables' memory (emptied) and the lazy tables' arrays
 * within LAZY_SPARE_BYTES, for the next questions (a match-lite player forgets its positions
 * whenever it changes seats). */
PyDoc_STRVAR(core_clear_positions_doc, "clear_positions(): forget every position (between searches)");
static PyObject *core_clear_positions(Core *self, PyObject *unused) {
    (void)unused;
    memo_clear(&self->tables[0]);
    memo_clear(&self->tables[1]);
    memo_clear(&self->odds);
    clear_exact(self);
    drop_levels(self);
    dense_clear(self, 1);
    Py_RETURN_NONE;
}

/* clear_exact(): forget every position drawn exactly, their odds and slots (between searches:
 * a search holds slot numbers in its keys). */
PyDoc_STRVAR(core_clear_exact_doc, "clear_exact(): forget every position drawn exactly, and their slots (between searches)");
static PyObject *core_clear_exact(Core *self, PyObject *unused) {
    (void)unused;
    clear_exact(self);
    Py_RETURN_NONE;
}

/* track_interval(on): the interval starts whole; while on, every choice narrows it. */
PyDoc_STRVAR(core_track_interval_doc, "track_interval(on): the interval starts whole; while on, every choice narrows it");
static PyObject *core_track_interval(Core *self, PyObject *args) {
    int on;
    if (!PyArg_ParseTuple(args, "p", &on)) return NULL;
    self->track = on;
    self->tlo = -HUGE_VAL;
    self->thi = HUGE_VAL;
    Py_RETURN_NONE;
}

static PyObject *core_get_interval(Core *self, void *closure) {
    (void)closure;
    return Py_BuildValue("(dd)", self->tlo, self->thi);
}

static int core_set_interval(Core *self, PyObject *value, void *closure) {
    (void)closure;
    double lo, hi;
    if (!value || !PyArg_ParseTuple(value, "dd", &lo, &hi)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "an interval (low, high)");
        return -1;
    }
    self->tlo = lo;
    self->thi = hi;
    return 0;
}

/* table_sizes(pairs) -> (before, after): the doubles the dense tables of these (h0, h1) groups
 * would hold in one context, before-draw and after-draw positions, as `densify` sizes them. */
PyDoc_STRVAR(core_table_sizes_doc, "table_sizes(pairs) -> (before, after): doubles of these groups' dense tables");
static PyObject *core_table_sizes(Core *self, PyObject *args) {
    PyObject *seq = sequence_argument(args, "pairs must be a sequence");
    if (!seq) return NULL;
    unsigned long long before = 0, after = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        int h0, h1;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ii", &h0, &h1)) {
            Py_DECREF(seq);
            return NULL;
        }
        if (h0 < 0 || h1 < 0 || h0 >= self->caphands || h1 >= self->caphands) continue;
        unsigned long long n0 = self->nlocal[h0], n1 = self->nlocal[h1];
        /* (the playing sides: `rank` puts them first before the tables are made) */
        before += (unsigned long long)self->nplaying[h0] * n1 +
                  (unsigned long long)self->nplaying[h1] * n0;
        after += (unsigned long long)self->nlist_local[h0] * n1 +
                 (unsigned long long)self->nlist_local[h1] * n0;
    }
    Py_DECREF(seq);
    return Py_BuildValue("(KK)", before, after);
}

/* drop_dense(keep=False): free every dense table (their positions would be solved again, the
 * same, in the hash tables if asked); keep: their value arrays serve the next tables of the
 * same sizes, until free_spares (a lazy table's: the later questions', see LAZY_SPARE_BYTES). */
PyDoc_STRVAR(core_drop_dense_doc, "drop_dense(keep=False): free every dense table (keep: their value arrays, for tables of the same sizes to come)");
static PyObject *core_drop_dense(Core *self, PyObject *args) {
    int keep = 0;
    if (!PyArg_ParseTuple(args, "|p", &keep)) return NULL;
    dense_clear(self, keep);
    Py_RETURN_NONE;
}

/* drop_groups(context, pairs): free the dense tables of these (h0, h1) groups of `context`,
 * their value arrays kept for tables to come (a hidden hand's next row: see spares_take); a
 * position of theirs asked again is solved again, the same, in the hash tables. */
PyDoc_STRVAR(core_drop_groups_doc, "drop_groups(context, pairs): free these groups' dense tables (their arrays kept for the next tables)");
static PyObject *core_drop_groups(Core *self, PyObject *args) {
    int context;
    PyObject *pairs;
    if (!PyArg_ParseTuple(args, "iO", &context, &pairs)) return NULL;
    PyObject *seq = PySequence_Fast(pairs, "pairs must be a sequence");
    if (!seq) return NULL;
    int any = 0;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq) && self->ndense; i++) {
        int h0, h1;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ii", &h0, &h1)) {
            Py_DECREF(seq);
            return NULL;
        }
        Entry *e = memo_get(&self->dense_index, dense_key(context, h0, h1));
        if (!e) continue;
        Dense *g = self->dense[(int)e->v];
        g->h0 = -1; /* (marked: dropped below) */
        any = 1;
    }
    Py_DECREF(seq);
    if (any) {
        int kept = 0;
        memo_clear(&self->dense_index);
        memset(self->found_dense, 0, sizeof self->found_dense);
        for (int i = 0; i < self->ndense; i++) {
            Dense *g = self->dense[i];
            if (g->h0 < 0) {
                dense_spare(self, g);
                continue;
            }
            self->dense[kept] = g;
            /* (no room to index it: its positions go to the hash tables, the same values) */
            (void)memo_put(&self->dense_index, dense_key(g->context, g->h0, g->h1), (double)kept,
                           0.0, 0);
            kept++;
        }
        self->ndense = kept;
        spares_trim(&self->lazy_spares);
    }
    Py_RETURN_NONE;
}

/* free_spares(): free the value arrays kept and not taken (after a batch of densify calls; a
 * lazy table takes its array when first read: the lazy ones stay, see LAZY_SPARE_BYTES). */
PyDoc_STRVAR(core_free_spares_doc, "free_spares(): free the level arrays kept by drop_dense(True) and not taken since");
static PyObject *core_free_spares(Core *self, PyObject *unused) {
    (void)unused;
    spares_empty(&self->spares);
    Py_RETURN_NONE;
}

/* rank(sides, lists): number the sides of each hand present in `sides` anew, in the order
 * given (each hand's sides all given), and the candidate lists likewise: the order of the dense
 * tables' rows and columns, which Python chooses so that the positions one position reads sit
 * near each other. Only while no dense table exists. */
static int renumber(PyObject *ids, int count, int nhands, int *local, int *nlocal,
                    const int *hand_of) {
    PyObject *seq = PySequence_Fast(ids, "ids must be a sequence");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int *given = malloc(((size_t)n + 1) * sizeof(int));
    int *seen = calloc((size_t)count + 1, sizeof(int));
    int *next = calloc((size_t)nhands + 1, sizeof(int)); /* per hand */
    int result = -1;
    if (!given || !seen || !next) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long id = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (id == -1 && PyErr_Occurred()) goto done;
        if (id < 0 || id >= count || seen[id]) {
            PyErr_SetString(PyExc_ValueError, "rank: an id out of range or given twice");
            goto done;
        }
        seen[id] = 1;
        given[i] = (int)id;
    }
    /* every hand touched must be given whole: count its members given */
    for (Py_ssize_t i = 0; i < n; i++) next[hand_of[given[i]]]++;
    for (Py_ssize_t i = 0; i < n; i++) {
        int h = hand_of[given[i]];
        if (next[h] != nlocal[h]) {
            PyErr_SetString(PyExc_ValueError, "rank: a hand's ids are not all given");
            goto done;
        }
    }
    memset(next, 0, ((size_t)nhands + 1) * sizeof(int));
    for (Py_ssize_t i = 0; i < n; i++) local[given[i]] = next[hand_of[given[i]]]++;
    result = 0;
done:
    free(given);
    free(seen);
    free(next);
    Py_DECREF(seq);
    return result;
}

PyDoc_STRVAR(core_rank_doc, "rank(sides, lists): number each hand's sides and lists anew in this order (no dense table may exist)");
static PyObject *core_rank(Core *self, PyObject *args) {
    PyObject *sides, *lists;
    if (!PyArg_ParseTuple(args, "OO", &sides, &lists)) return NULL;
    if (self->ndense) return fail(PyExc_RuntimeError, "rank: dense tables exist");
    int *list_hand = malloc(((size_t)self->nlists + 1) * sizeof(int));
    if (!list_hand) return PyErr_NoMemory();
    for (int i = 0; i < self->nlists; i++)
        list_hand[i] = self->list_len[i] ? self->hand[self->codes[self->list_start[i]]] : 0;
    int ok = renumber(sides, self->nsides, self->caphands, self->local, self->nlocal,
                      self->hand) == 0 &&
             renumber(lists, self->nlists, self->caphands, self->list_local, self->nlist_local,
                      list_hand) == 0;
    free(list_hand);
    if (!ok) return NULL;
    /* the playing sides of each hand, if they were ranked first (else none is said to be) */
    memset(self->nfirst, 0, (size_t)self->caphands * sizeof(int));
    for (int side = 0; side < self->nsides; side++)
        if (self->kind[side] == PLAYING) self->nfirst[self->hand[side]]++;
    for (int side = 0; side < self->nsides; side++) {
        int h = self->hand[side];
        if ((self->kind[side] == PLAYING) != (self->local[side] < self->nfirst[h]))
            self->nfirst[h] = 0;
    }
    Py_RETURN_NONE;
}

/* densify(context, h0, h1, after=True, lazy=False): give that group a dense table sized for the
 * sides of its hands interned so far (nothing if it has one); `after`: for its after-draw
 * positions too (else they are computed where needed, not kept); `lazy`: its values allocated
 * when first read (a set in progress reaches few of its groups' positions; filling every table
 * at once cost a match expert a fifth of its time), not for later sets' contexts (forget and
 * settle walk their tables). */
PyDoc_STRVAR(core_densify_doc, "densify(context, h0, h1, after=True, lazy=False): a dense table for that group (its sides interned; after: with its after-draw positions; lazy: its values made when first read)");
static PyObject *core_densify(Core *self, PyObject *args) {
    int context, h0, h1, after = 1, lazy = 0;
    if (!PyArg_ParseTuple(args, "iii|pp", &context, &h0, &h1, &after, &lazy)) return NULL;
    if (check_context(self, context) < 0) return NULL;
    if (h0 < 0 || h1 < 0 || h0 >= self->caphands || h1 >= self->caphands)
        return fail(PyExc_ValueError, "two hands with sides");
    if (self->dense_index.cap && memo_get(&self->dense_index, dense_key(context, h0, h1)))
        Py_RETURN_NONE;
    if (self->ndense == self->capdense) {
        int cap = self->capdense ? self->capdense * 2 : 256;
        if (grow((void **)&self->dense, cap, sizeof(Dense *)) < 0) return PyErr_NoMemory();
        self->capdense = cap;
    }
    if (!self->dense_index.cap && memo_init(&self->dense_index, 1024, 0) < 0)
        return PyErr_NoMemory();
    Dense *g = calloc(1, sizeof(Dense));
    if (!g) return PyErr_NoMemory();
    g->context = context;
    g->h0 = h0;
    g->h1 = h1;
    g->n0 = self->nlocal[h0];
    g->n1 = self->nlocal[h1];
    g->p0 = self->nfirst[h0] < g->n0 ? self->nfirst[h0] : g->n0;
    g->p1 = self->nfirst[h1] < g->n1 ? self->nfirst[h1] : g->n1;
    g->q0 = drawing_sides(self, h0);
    g->q1 = drawing_sides(self, h1);
    g->first = (size_t)g->q0 * g->n1 + (size_t)g->q1 * g->n0;
    g->l0 = after ? self->nlist_local[h0] : 0; /* (0: no after-draw positions kept) */
    g->l1 = after ? self->nlist_local[h1] : 0;
    g->nv = g->first + (size_t)g->l0 * g->n1 + (size_t)g->l1 * g->n0;
    g->lazy = lazy;
    if (!lazy && dense_allocate(self, g) < 0) {
        free(g);
        return PyErr_NoMemory();
    }
    if (memo_put(&self->dense_index, dense_key(context, h0, h1), self->ndense, 0.0, 0) < 0) {
        free(g->v);
        free(g);
        return PyErr_NoMemory();
    }
    self->dense[self->ndense++] = g;
    Py_RETURN_NONE;
}

static PyObject *core_get_states(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(core_size(self));
}

static PyObject *core_get_exact_states(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->exact.size);
}

static PyObject *core_get_exact_replaced(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->exact.replaced);
}

static PyObject *core_get_exact_bytes(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t((self->exact.cap + self->exact_odds.cap) * sizeof(ExactEntry));
}

static PyObject *core_get_exact_entries(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->exact.max_cap);
}

/* exact_entries = n: the most slots the cache of positions drawn exactly grows to (a power of two,
 * at least 1024; a sixteenth as many for their odds), which forgets what it held (between
 * searches). */
static int core_set_exact_entries(Core *self, PyObject *value, void *closure) {
    (void)closure;
    size_t n = value ? PyLong_AsSize_t(value) : 0;
    if (n == (size_t)-1 && PyErr_Occurred()) return -1;
    if (n < 1024 || (n & (n - 1)))
        return fail_status(PyExc_ValueError, "exact_entries: a power of two, at least 1024");
    clear_exact(self);
    self->exact.max_cap = n;
    self->exact_odds.max_cap = n / EXACT_ODDS_SHARE;
    return 0;
}

static PyObject *core_get_hashed_states(Core *self, void *closure) {
    (void)closure;
    return Py_BuildValue("(nn)", (Py_ssize_t)self->tables[0].size, (Py_ssize_t)self->tables[1].size);
}

static PyObject *core_get_solved(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->solved);
}

static PyObject *core_get_max_contexts(Core *self, void *closure) {
    (void)self;
    (void)closure;
    return PyLong_FromLong(MAX_CONTEXTS);
}

static PyObject *core_get_memo_bytes(Core *self, void *closure) {
    (void)closure;
    size_t bytes = self->entries.cap * sizeof(Entry);
    bytes += (self->tables[0].cap + self->tables[1].cap + self->odds.cap) * sizeof(Entry);
    if (self->exact.slots) bytes += self->exact.cap * sizeof(ExactEntry);
    if (self->exact_odds.slots) bytes += self->exact_odds.cap * sizeof(ExactEntry);
    for (int i = 0; i < self->nlevels; i++) bytes += self->levels[i].scratch.cap * sizeof(Entry);
    bytes += self->dense_index.cap * sizeof(Entry);
    for (int i = 0; i < self->ndense; i++) {
        const Dense *g = self->dense[i];
        if (g->v) bytes += (g->cap + (g->d ? g->nv : 0)) * sizeof(double);
    }
    for (int i = 0; i < self->spares.n; i++) bytes += self->spares.items[i].nv * sizeof(double);
    /* a kept lazy array by the pages written since it was made (stale ones included) */
    for (int i = 0; i < self->lazy_spares.n; i++) bytes += self->lazy_spares.items[i].held;
    return PyLong_FromSize_t(bytes);
}

static PyMethodDef core_methods[] = {
    /* what Python mirrors here */
    METHOD(add_side, VARARGS), METHOD(add_list, VARARGS), METHOD(add_context, VARARGS),
    METHOD(set_model, VARARGS),
    /* values, the odds of a set and the match-optimal choice */
    METHOD(before, VARARGS), METHOD(after, VARARGS), METHOD(end, VARARGS),
    METHOD(end_value, VARARGS),
    METHOD(odds_end, VARARGS), METHOD(choice, VARARGS), METHOD(clear_odds, NOARGS),
    /* the match states iterated */
    METHOD(set_blind, VARARGS), METHOD(set_iterating, VARARGS), METHOD(forget, VARARGS),
    METHOD(settle, VARARGS), METHOD(drop_level, VARARGS),
    METHOD(drop_contexts, VARARGS), METHOD(track_interval, VARARGS),
    /* the dense tables */
    METHOD(densify, VARARGS), METHOD(table_sizes, VARARGS), METHOD(rank, VARARGS),
    METHOD(drop_dense, VARARGS), METHOD(drop_groups, VARARGS),
    METHOD(set_sides_rules, VARARGS), METHOD(add_hands, VARARGS), METHOD(walk, VARARGS),
    METHOD(sides_from, VARARGS), METHOD(lists_from, VARARGS),
    METHOD(free_spares, NOARGS),
    /* between searches */
    METHOD(clear_exact, NOARGS), METHOD(clear_positions, NOARGS),
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    GETTER(states, "positions held now"),
    GETTER(solved, "positions computed so far (progress)"),
    GETTER(exact_states, "positions drawn exactly held now (in their cache)"),
    GETTER(exact_replaced, "positions drawn exactly forgotten to make room in their cache"),
    ATTRIBUTE(exact_entries, "the most slots of the cache of positions drawn exactly (a power of two)"),
    GETTER(exact_bytes, "bytes the caches of positions drawn exactly and their odds take now"),
    GETTER(hashed_states, "(later sets', sets in progress') positions drawn with fixed odds held in the hash tables, not in dense tables"),
    COUNT(nsides, nsides, "sides mirrored"),
    COUNT(nlists, nlists, "lists mirrored"),
    COUNT(ncontexts, ncontexts, "contexts mirrored"),
    COUNT(levels, nlevels, "match states being iterated"),
    GETTER(max_contexts, "contexts the core can hold"),
    GETTER(memo_bytes, "bytes the tables (and the spare arrays kept) take now"),
    FLAG_ATTRIBUTE(read_unknown, "whether an iterated value was read (MatchSolver._read_unknown)"),
    COUNT(track, track, "whether choices narrow the interval now"),
    ATTRIBUTE(interval, "(low, high): offsets of the iterated value over which every choice tracked stands"),
    BUDGET_ATTRIBUTE("raise too_large once this many positions are held (None: no budget)"),
    PROGRESS_ATTRIBUTE("progress(solved) is called every so many positions of a long search (or None)"),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType =
    CORE_TYPE("pazaak_cli.solve._fastmatch.Core",
              "Core(rule, sets_to_win, expand, entry, too_large[, tolerance]): the match "
              "recursion for fixed draw probabilities (see match_solver.py).");

/* -- reading the disk cache ----------------------------------------------------------------- */

/* A hand's id: from `ids` (text -> id), else `hand_id(text)` (which checks it, raising
 * ValueError), kept in `ids`. A borrowed reference, NULL: an exception is set. */
static PyObject *cached_hand(PyObject *ids, PyObject *hand_id, PyObject *text) {
    if (!PyUnicode_CheckExact(text)) return fail(PyExc_ValueError, "a hand that is not text");
    PyObject *found = PyDict_GetItemWithError(ids, text);
    if (found || PyErr_Occurred()) return found;
    PyObject *made = PyObject_CallOneArg(hand_id, text);
    if (!made) return NULL;
    int kept = PyDict_SetItem(ids, text, made);
    Py_DECREF(made);
    return kept < 0 ? NULL : PyDict_GetItemWithError(ids, text);
}

/* A score or opener of a cache row: an int (not a bool) in [0, below). -1: an exception is set. */
static int row_count(PyObject *item, long below, const char *past) {
    if (!PyLong_CheckExact(item)) {
        fail(PyExc_ValueError, "a score or opener that is not a whole number");
        return -1;
    }
    int overflow;
    long value = PyLong_AsLongAndOverflow(item, &overflow);
    if (overflow || value < 0 || value >= below) {
        fail(PyExc_ValueError, past);
        return -1;
    }
    return 0;
}

/* cache_entries(rows, sets, ids, hand_id) -> [(((s0, s1, h0, h1), spec), value), ...]: the rows
 * of a cache file checked and keyed as MatchSolver.add_entries takes them (match_cache._checked
 * does the same in Python): each row a list of six (two scores below `sets`, two hand texts, an
 * opener 0..2, a float probability), each hand's id from `ids` or `hand_id`. ValueError at the
 * first row out of place. A prepared deck pair's file holds a hundred thousand rows, read before
 * its first answer: the Python loop took 0.05 s of it. */
PyDoc_STRVAR(module_cache_entries_doc, "cache_entries(rows, sets, ids, hand_id): a cache file's rows checked and keyed as MatchSolver.add_entries takes them");
static PyObject *module_cache_entries(PyObject *unused, PyObject *args) {
    (void)unused;
    PyObject *rows, *ids, *hand_id;
    int sets;
    if (!PyArg_ParseTuple(args, "O!iO!O", &PyList_Type, &rows, &sets, &PyDict_Type, &ids,
                          &hand_id))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(rows);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i >= PyList_GET_SIZE(rows)) { /* (`hand_id` runs Python: the list could shrink) */
            fail(PyExc_ValueError, "the rows changed while they were read");
            goto failed;
        }
        PyObject *row = PyList_GET_ITEM(rows, i);
        if (!PyList_CheckExact(row) || PyList_GET_SIZE(row) != 6) {
            fail(PyExc_ValueError, "an entry that is not six fields");
            goto failed;
        }
        PyObject *field[6]; /* (held: `hand_id` runs Python, which could change the row) */
        for (int k = 0; k < 6; k++) {
            field[k] = PyList_GET_ITEM(row, k);
            Py_INCREF(field[k]);
        }
        PyObject *entry = NULL, *h0 = NULL, *h1;
        double value = PyFloat_CheckExact(field[5]) ? PyFloat_AS_DOUBLE(field[5]) : -1.0;
        if (row_count(field[0], sets, "a score past the match") < 0 ||
            row_count(field[1], sets, "a score past the match") < 0 ||
            row_count(field[4], 3, "a score past the match") < 0) {
            /* (the error is set) */
        } else if (!(value >= 0.0 && value <= 1.0)) { /* (not a float, or NaN, fails too) */
            fail(PyExc_ValueError, "a value that is not a probability");
        } else if ((h0 = cached_hand(ids, hand_id, field[2]))) {
            Py_INCREF(h0); /* (the callback for the other hand runs Python too) */
            if ((h1 = cached_hand(ids, hand_id, field[3]))) {
                PyObject *state = PyTuple_Pack(4, field[0], field[1], h0, h1);
                PyObject *key = state ? PyTuple_Pack(2, state, field[4]) : NULL;
                entry = key ? PyTuple_Pack(2, key, field[5]) : NULL;
                Py_XDECREF(key);
                Py_XDECREF(state);
            }
            Py_DECREF(h0);
        }
        for (int k = 0; k < 6; k++) Py_DECREF(field[k]);
        if (!entry) goto failed;
        PyList_SET_ITEM(out, i, entry);
    }
    return out;
failed:
    Py_DECREF(out); /* (the items not set yet are NULL: list_dealloc skips them) */
    return NULL;
}

/* trim_heap(above): give the heap's free pages back to the system now if it holds more than
 * `above` bytes free (before a fork: pages a forked copy writes into are copied, free ones
 * too; a small heap is left alone, its pages soon used again, see heap_released). */
PyDoc_STRVAR(module_trim_heap_doc,
             "trim_heap(above): give the heap's free pages back to the system if more than "
             "`above` bytes are free");
static PyObject *module_trim_heap(PyObject *unused, PyObject *args) {
    (void)unused;
    unsigned long long above;
    if (!PyArg_ParseTuple(args, "K", &above)) return NULL;
#ifdef CAN_TRIM_HEAP
    if (mallinfo2().fordblks > above) malloc_trim(0);
#endif
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"cache_entries", module_cache_entries, METH_VARARGS, module_cache_entries_doc},
    {"trim_heap", module_trim_heap, METH_VARARGS, module_trim_heap_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_fastmatch",
    .m_doc = "The optional C inner loop of pazaak_cli.solve.match_solver (pure Python is used "
             "without it), and the disk cache's reader.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__fastmatch(void) {
    return core_module(&module, &CoreType);
}
