/* What the C inner loops of the exact solvers share: _fastsolve.c (the set solver's),
 * _fastreply.c (the set reply to a rule), _fastmatch.c (the match solver's) and _fastkotormatch.c
 * (the match reply to a rule) each include this header once.
 *
 * It holds the memo (an open-addressing hash table of positions, and its memory), the count of
 * positions solved with its Ctrl-C check and progress callback, what both cores ask of Python
 * (the `expand` callback, a deck's ten probabilities, a candidate list's codes, a sequence
 * argument; errors raised), and the boilerplate of their Python type and module.
 *
 * A header of static functions and macros, not a .c of its own: each extension is a shared
 * object built from one translation unit, so a shared .c would be compiled into both anyway;
 * and the memo's lookups and inserts, on the hot path of both recursions, must inline into
 * their callers (static inline, at the same -O2), which a function in another object file would
 * not without link-time optimisation. What is not hot (growing a table, the progress report) is
 * plain static, as it was in each file. Every function here is marked as possibly unused: an
 * extension needs only part of them.
 *
 * The two memos differ, and each includer says how before including this header:
 *   MEMO_KEY_BITS         an entry's tag holds its key in these low bits and, above them, the
 *                         work it cost to compute (default 64: the whole tag is the key);
 *   MEMO_WINDOW           a key lies within this many slots of its home; a full window gives
 *                         its cheapest entry's slot to a new key (default 0: no window, a key
 *                         probes on until it finds its slot or an empty one);
 *   MEMO_ROUND_BITS       (with a window) the tag also holds, between the key and the work, the
 *                         round of searches in which the entry was stored, modulo 2 ** these
 *                         bits; a full window gives first the slot of an entry of an earlier
 *                         round (the cheapest of them), and only then of this round's
 *                         (default 0: no rounds, the cheapest entry's). Tried and not kept:
 *                         an entry made this round's again when read, as a cache of recent
 *                         use does (kotor2-hard's 113 hands solved 219.1 M positions against
 *                         222.2 M without, for a compare on every read);
 *   MEMO_HUGE_PAGES       1: a large table is mapped from the system at once, in huge pages
 *                         where Linux has them, or for a short search (a table's
 *                         `small_pages`) in small pages made at once (default 0: calloc);
 * and after it defines two functions: memo_mix(key), the 64-bit mix of a key whose low bits
 * are its home slot, and memo_released(bytes), told of the memory of each table freed.
 */
#ifndef PAZAAK_CORE_H
#define PAZAAK_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#ifndef MEMO_KEY_BITS
#define MEMO_KEY_BITS 64
#endif
#ifndef MEMO_WINDOW
#define MEMO_WINDOW 0
#endif
#ifndef MEMO_ROUND_BITS
#define MEMO_ROUND_BITS 0
#endif
#if MEMO_ROUND_BITS && (!MEMO_WINDOW || MEMO_KEY_BITS + MEMO_ROUND_BITS >= 64)
#error "rounds need a window and room in the tag beside the key"
#endif
#ifndef MEMO_HUGE_PAGES
#define MEMO_HUGE_PAGES 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CORE_UNUSED __attribute__((unused))
#else
#define CORE_UNUSED
#endif
/* A function of this header: static, and no warning where an extension does not call it. */
#define SHARED static CORE_UNUSED
#define SHARED_INLINE static inline CORE_UNUSED

/* Ask the memory for an address ahead of its read: a position's reads lie at random in the
 * memo, and asked for together they overlap instead of following one another. (A macro: GCC
 * drops a call to a function that only prefetches, as a call without effect.) */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif

/* -- errors ------------------------------------------------------------------------------------ */

/* Raise `type` with `message`: fail gives NULL, for a function that returns an object, and
 * fail_status -1, for one that returns a status. */
SHARED PyObject *fail(PyObject *type, const char *message) {
    PyErr_SetString(type, message);
    return NULL;
}

SHARED int fail_status(PyObject *type, const char *message) {
    PyErr_SetString(type, message);
    return -1;
}

/* The same, once the reference `held` (the failing function's) is released. */
SHARED PyObject *fail_releasing(PyObject *held, PyObject *type, const char *message) {
    Py_DECREF(held);
    return fail(type, message);
}

SHARED int fail_status_releasing(PyObject *held, PyObject *type, const char *message) {
    Py_DECREF(held);
    return fail_status(type, message);
}

/* -- the memo ---------------------------------------------------------------------------------- */

/* Keys are stored plus one, so that a zeroed slot is empty: calloc'ed tables cost memory only
 * where they are written. */
#define EMPTY 0
/* A table doubles before it is more than half full (unless it is at its largest). */
#define MEMO_LOAD_NUM 5
#define MEMO_LOAD_DEN 10

/* A position's key (plus one) and its two values: the set solver's (equity, p_win), the match
 * solver's (value, slope), or whatever else a table of a core maps a key to. */
typedef struct {
    uint64_t tag; /* key | round << MEMO_KEY_BITS | work << (MEMO_KEY_BITS + MEMO_ROUND_BITS) */
    double v, d;
} Entry;

typedef struct {
    Entry *slots;
    size_t cap, size;
    size_t max_cap;  /* the largest it may grow to (0: no bound); there it is a cache */
    size_t replaced; /* entries forgotten to make room (a window full) */
    uint64_t round;  /* this round's bits in a tag (memo_next_round; 0 without rounds) */
    const int *small_pages; /* (MEMO_HUGE_PAGES) its core's flag, where it has one: while set
                               (a short search), its large slots are made in small pages at
                               once, not in huge pages (see slots_alloc); NULL: never */
    size_t room;            /* (MEMO_IN_PLACE) slots of address space mapped for it at `slots`,
                               where it grows without moving; 0: its slots are exactly `cap` */
} Map;

#if MEMO_KEY_BITS < 64
#define MEMO_KEY_MASK ((((uint64_t)1) << MEMO_KEY_BITS) - 1)
#define MEMO_WORK_SHIFT (MEMO_KEY_BITS + MEMO_ROUND_BITS)
#define MEMO_WORK_MAX ((((uint64_t)1) << (64 - MEMO_WORK_SHIFT)) - 1)
#define MEMO_ROUND_MASK (((((uint64_t)1) << MEMO_ROUND_BITS) - 1) << MEMO_KEY_BITS)

SHARED_INLINE uint64_t entry_key(const Entry *slot) {
    return slot->tag & MEMO_KEY_MASK;
}

/* What forgetting the entry would cost (the positions solved to compute it, counted up to
 * MEMO_WORK_MAX, past which every entry is as dear). */
SHARED_INLINE uint64_t entry_work(const Entry *slot) {
    return slot->tag >> MEMO_WORK_SHIFT;
}

SHARED_INLINE uint64_t work_bits(uint64_t work) {
    return (work < MEMO_WORK_MAX ? work : MEMO_WORK_MAX) << MEMO_WORK_SHIFT;
}
#else
SHARED_INLINE uint64_t entry_key(const Entry *slot) {
    return slot->tag;
}

SHARED_INLINE uint64_t entry_work(const Entry *slot) {
    (void)slot;
    return 0;
}

SHARED_INLINE uint64_t work_bits(uint64_t work) {
    (void)work;
    return 0;
}
#endif

/* The including file's: told of the bytes of each table freed (with calloc'ed tables, the heap
 * may then hold much that is free). */
static inline void memo_released(size_t bytes);

/* A large table's memory is asked of the system directly (zeroed, mapped when first written),
 * in huge pages where Linux offers them: the search reads it at random, and with 4 kB pages
 * nearly every read also misses the address cache (TLB). Not for a short search (a table's
 * `small_pages`, a budgeted answer's): on a virtual machine whose host takes freed memory back,
 * a huge page first written cost 2.4 to 3.5 s a GB against 0.5 to 0.7 in small pages, measured
 * (docs/benchmarks.md, "fresh memory"), which a search of a second or two does not earn back;
 * there its pages are made at once, in one call rather than a fault for each. */
#define HUGE_BYTES ((size_t)1 << 22)
#if MEMO_HUGE_PAGES && defined(__linux__) && defined(MADV_HUGEPAGE)
#define MEMO_MAPS 1
#else
#define MEMO_MAPS 0
#endif
/* (a table with a window grows where it is: memo_grow_in_place) */
#define MEMO_IN_PLACE (MEMO_MAPS && MEMO_WINDOW > 0)

/* Ask the pages of `bytes` at `p` (a mapping's, page-aligned) as the table's `small_pages` says:
 * huge pages, made as they are first written, or small ones made at once. */
SHARED void pages_advised(void *p, size_t bytes, int small_pages) {
#if MEMO_MAPS
    if (!small_pages) {
        madvise(p, bytes, MADV_HUGEPAGE);
    } else {
        madvise(p, bytes, MADV_NOHUGEPAGE);
#ifdef MADV_POPULATE_WRITE
        madvise(p, bytes, MADV_POPULATE_WRITE);
#endif
    }
#else
    (void)p;
    (void)bytes;
    (void)small_pages;
#endif
}

SHARED Entry *slots_alloc(size_t cap, int small_pages) {
#if MEMO_MAPS
    size_t bytes = cap * sizeof(Entry);
    if (bytes >= HUGE_BYTES) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        pages_advised(p, bytes, small_pages);
        return p;
    }
#else
    (void)small_pages;
#endif
    return calloc(cap, sizeof(Entry));
}

SHARED void slots_free(Entry *slots, size_t cap) {
    if (!slots) return;
#if MEMO_MAPS
    if (cap * sizeof(Entry) >= HUGE_BYTES) {
        munmap(slots, cap * sizeof(Entry));
        return;
    }
#endif
    free(slots);
    memo_released(cap * sizeof(Entry));
}

/* An empty table of `cap` slots (a power of two; at most max_cap, 0: no bound), its pages as
 * its core's `small_pages` flag says now (a Map's `small_pages` is its core's to set: a new one
 * zeroed, or given). */
SHARED int memo_init(Map *m, size_t cap, size_t max_cap) {
    if (max_cap && cap > max_cap) cap = max_cap;
    m->slots = slots_alloc(cap, m->small_pages && *m->small_pages);
    m->room = 0;
    if (!m->slots) return -1;
    m->cap = cap;
    m->max_cap = max_cap;
    m->size = 0;
    m->replaced = 0;
    m->round = 0;
    return 0;
}

SHARED void memo_free(Map *m) {
#if MEMO_IN_PLACE
    if (m->room) {
        munmap(m->slots, m->room * sizeof(Entry));
        m->room = 0;
    } else
#endif
        slots_free(m->slots, m->cap);
    m->slots = NULL;
    m->cap = m->size = 0;
}

/* The mix of a key's bits whose low bits are its home slot: the including file's. */
static inline uint64_t memo_mix(uint64_t key);

/* A full 64-bit mix (MurmurHash3's finaliser), for an includer's memo_mix whose keys' fields sit
 * in separate bit ranges. */
SHARED_INLINE uint64_t mix64(uint64_t key) {
    key ^= key >> 33;
    key *= 0xFF51AFD7ED558CCDULL;
    key ^= key >> 33;
    key *= 0xC4CEB9FE1A85EC53ULL;
    key ^= key >> 33;
    return key;
}

/* Where `key`'s window starts. */
SHARED_INLINE size_t memo_index(const Map *m, uint64_t key) {
    return (size_t)memo_mix(key) & (m->cap - 1);
}

/* Ask ahead for both cache lines the home slot of `key` may lie across (24 bytes: one entry in
 * four crosses a line). A macro, as PREFETCH. */
#define MEMO_PREFETCH(m, key)                                                                  \
    do {                                                                                       \
        const Entry *home_ = &(m)->slots[memo_index((m), (key))];                              \
        PREFETCH(home_);                                                                       \
        PREFETCH((const char *)home_ + sizeof(Entry) - 1);                                     \
    } while (0)

/* The slot of `key` (already plus one), or the empty slot where it would go, or NULL when its
 * window is full of other keys (never without a window). */
SHARED_INLINE Entry *memo_find(const Map *m, uint64_t key) {
    size_t i = memo_index(m, key);
    for (int n = 0; MEMO_WINDOW == 0 || n < MEMO_WINDOW; n++) {
        Entry *slot = &m->slots[i];
        uint64_t found = entry_key(slot);
        if (found == key || found == EMPTY) return slot;
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

/* The entry of `key` (plus one), or NULL. */
SHARED_INLINE Entry *memo_get(const Map *m, uint64_t key) {
    if (!m->cap) return NULL;
    Entry *slot = memo_find(m, key);
    return slot && entry_key(slot) == key ? slot : NULL;
}

/* Whether `key` is held: its two values then in *v and *d. */
SHARED_INLINE int memo_read(const Map *m, uint64_t key, double *v, double *d) {
    const Entry *found = memo_get(m, key);
    if (!found) return 0;
    *v = found->v;
    *d = found->d;
    return 1;
}

/* Begin a new round of searches: what the memo holds from earlier rounds goes first when a
 * window is full (a no-op without rounds). */
SHARED_INLINE void memo_next_round(Map *m) {
#if MEMO_ROUND_BITS
    m->round = (m->round + ((uint64_t)1 << MEMO_KEY_BITS)) & MEMO_ROUND_MASK;
#else
    (void)m;
#endif
}

/* Whether the entry was stored in an earlier round than the table's (never without rounds). */
SHARED_INLINE int entry_stale(const Map *m, const Entry *slot) {
#if MEMO_ROUND_BITS
    return (slot->tag & MEMO_ROUND_MASK) != m->round;
#else
    (void)m;
    (void)slot;
    return 0;
#endif
}

/* Where `key` goes: its slot, an empty one, or the cheapest entry of its window (replaced),
 * with rounds the cheapest of an earlier round if there is one. */
SHARED_INLINE Entry *memo_place(Map *m, uint64_t key) {
    Entry *slot = memo_find(m, key);
    if (slot) {
        if (entry_key(slot) == EMPTY) m->size++;
        return slot;
    }
    size_t i = memo_index(m, key);
    Entry *cheapest = &m->slots[i];
    int stale = entry_stale(m, cheapest);
    for (int n = 1; n < MEMO_WINDOW; n++) {
        Entry *other = &m->slots[(i + n) & (m->cap - 1)];
        int other_stale = entry_stale(m, other);
        if (other_stale > stale ||
            (other_stale == stale && entry_work(other) < entry_work(cheapest))) {
            cheapest = other;
            stale = other_stale;
        }
    }
    m->replaced++;
    return cheapest;
}

/* Put the entry `old` (not held) into `m`: where its window is full, the first to go against it
 * (the staler, else the cheaper, stays out). */
SHARED_INLINE void memo_move_in(Map *m, const Entry *old) {
    Entry *slot = memo_place(m, entry_key(old));
    if (entry_key(slot) != EMPTY) {
        int staler = entry_stale(m, slot) - entry_stale(m, old);
        if (staler < 0 || (staler == 0 && entry_work(slot) >= entry_work(old))) return;
    }
    *slot = *old;
}

#if MEMO_IN_PLACE
/* A large table with a bound grows without moving: the address space for its bound is mapped
 * once (MAP_NORESERVE: pages are made only where written), and each doubling rehashes the
 * entries where they are, so that only the new half is fresh memory. Moved to a new table
 * each time, every doubling had the system zero (and the host of a virtual machine back) the
 * whole new table while the old one was still held: a quarter of a large set answer's time
 * was the kernel zeroing pages (docs/benchmarks.md, "a memo that grows where it is"). */
#define MEMO_ROOM_MAX ((size_t)1 << 36) /* (bytes of address space a table may map ahead) */

/* The address space for `slots` entries, or NULL where the system refuses it. */
SHARED Entry *room_map(size_t slots) {
    void *p = mmap(NULL, slots * sizeof(Entry), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Grow `m`, which has its room, to `cap` slots (a power of two, within the room) in place.
 * A key's home in the larger table is its old home or past the old end (the low bits are the
 * same); the entries are taken out and put back in the order of their slots, from an empty
 * slot on, so that a probe only ever passes slots already put back or new ones: an entry whose
 * home is its old one lands at or before its old slot (emptied as it is taken), one whose home
 * is past the old end lands there, in slots never emptied. The one exception, a probe from the
 * new end wrapping to the start, passes at most the window's first slots: the entries of the
 * table's first run up to an empty slot past those are taken out first and put back last. */
SHARED int memo_grow_in_place(Map *m, size_t cap) {
    size_t old = m->cap, first = MEMO_WINDOW - 1;
    Entry *slots = m->slots;
    while (first < old && entry_key(&slots[first]) != EMPTY) first++;
    if (first == old) return 1; /* (no empty slot: the caller moves it) */
    Entry *start = malloc((first ? first : 1) * sizeof(Entry));
    if (!start) return -1;
    size_t started = 0;
    for (size_t i = 0; i < first; i++) {
        if (entry_key(&slots[i]) == EMPTY) continue;
        start[started++] = slots[i];
        memset(&slots[i], 0, sizeof(Entry));
    }
    pages_advised(slots + old, (cap - old) * sizeof(Entry), m->small_pages && *m->small_pages);
    m->cap = cap;
    m->size = 0;
    for (size_t i = first; i < old; i++) {
        if (entry_key(&slots[i]) == EMPTY) continue;
        Entry moved = slots[i];
        memset(&slots[i], 0, sizeof(Entry));
        memo_move_in(m, &moved);
    }
    for (size_t i = 0; i < started; i++) memo_move_in(m, &start[i]);
    free(start);
    return 0;
}
#endif

/* Move every entry into a table of `cap` slots (at most max_cap). */
SHARED int memo_resize(Map *m, size_t cap) {
    Map bigger = {.small_pages = m->small_pages};
#if MEMO_IN_PLACE
    if (m->room >= cap) {
        int grown = memo_grow_in_place(m, cap);
        if (grown <= 0) return grown;
    }
    if (m->max_cap >= cap && cap * sizeof(Entry) >= HUGE_BYTES &&
        m->max_cap <= MEMO_ROOM_MAX / (2 * sizeof(Entry)) &&
        (bigger.slots = room_map(2 * m->max_cap)) != NULL) {
        pages_advised(bigger.slots, cap * sizeof(Entry), m->small_pages && *m->small_pages);
        bigger.cap = cap;
        bigger.max_cap = m->max_cap;
        bigger.room = 2 * m->max_cap; /* (a bound may double once: the set core's rebalance) */
    } else
#endif
        if (memo_init(&bigger, cap, m->max_cap) < 0)
        return -1;
    bigger.replaced = m->replaced;
    bigger.round = m->round;
    for (size_t i = 0; i < m->cap; i++)
        if (entry_key(&m->slots[i]) != EMPTY) memo_move_in(&bigger, &m->slots[i]);
    memo_free(m);
    *m = bigger;
    return 0;
}

/* Store a value; the slot may move when the table grows (from 1024 slots, if it has none), so
 * look it up again. A table at its largest replaces the cheapest entry of the key's window when
 * that window is full. */
SHARED_INLINE int memo_put(Map *m, uint64_t key, double v, double d, uint64_t work) {
    if ((m->size + 1) * MEMO_LOAD_DEN > m->cap * MEMO_LOAD_NUM &&
        (!m->max_cap || m->cap < m->max_cap) && memo_resize(m, m->cap ? m->cap * 2 : 1024) < 0)
        return -1;
    Entry *slot = memo_place(m, key);
    slot->tag = key | m->round | work_bits(work);
    slot->v = v;
    slot->d = d;
    return 0;
}

/* memo_put, with Python's MemoryError set when it fails (-1). */
SHARED_INLINE int memo_keep(Map *m, uint64_t key, double v, double d, uint64_t work) {
    if (memo_put(m, key, v, d, work) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* Make room at once for `entries` keys (within the table's bound): a search known to be large
 * then skips the doublings on the way, each of which moves every entry into fresh memory the
 * system must zero. */
SHARED int memo_reserve(Map *m, size_t entries) {
    size_t cap = m->cap;
    while ((!m->max_cap || cap < m->max_cap) && cap * MEMO_LOAD_NUM < entries * MEMO_LOAD_DEN)
        cap *= 2;
    return cap > m->cap ? memo_resize(m, cap) : 0;
}

/* Forget every entry, keeping the table's size. */
SHARED void memo_clear(Map *m) {
    if (m->slots && m->size) memset(m->slots, 0, m->cap * sizeof(Entry));
    m->size = 0;
}

/* -- decks drawn exactly, and their positions ------------------------------------------------ */

/* The draws from one deck: each value with its probability and the id of the deck after it (a
 * deck drawn with fixed odds depletes nothing: its id stays). */
typedef struct {
    int ndraws; /* a deck always has a draw: an empty one is renewed */
    int value[10];
    double p[10];
    int rest[10];
} Draws;

/* A deck drawn exactly is named by its code: the counts of the values 1..10 left (each 0 to
 * COPIES, the full deck's), as the digits of a number in base COPIES + 1, value v's the digit of
 * (COPIES + 1)^(v - 1). The positions need no numbering of the decks met (which Python made, a
 * callback and about 1.3 kB a deck) and fit their keys in 24 bits. Python's DeckCodes names them
 * alike. */
#define DECK_COPIES 4
#define DECK_RADIX (DECK_COPIES + 1)
#define FULL_DECK_CODE 9765624 /* every value's count 4: 5^10 - 1 */
static const int DECK_DIGIT[10] CORE_UNUSED = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125};

/* The draws from the exact deck `code` (0: the deck has run out and is renewed whole), in the
 * values' order, each count over the cards left: the bits Python's DeckCodes.make gives. */
SHARED void exact_draws(int code, Draws *out) {
    if (code == 0) code = FULL_DECK_CODE;
    int counts[10], total = 0, rest = code;
    for (int i = 0; i < 10; i++) {
        counts[i] = rest % DECK_RADIX;
        rest /= DECK_RADIX;
        total += counts[i];
    }
    out->ndraws = 0;
    for (int i = 0; i < 10; i++) {
        if (!counts[i]) continue;
        out->value[out->ndraws] = i + 1;
        out->p[out->ndraws] = (double)counts[i] / (double)total;
        out->rest[out->ndraws++] = code - DECK_DIGIT[i];
    }
}

/* The draws a position before a draw reads: on an exact deck those of the deck's code (made
 * into `made`), else a core's fixed odds (`n` values with their probabilities), every draw
 * leaving deck 0. */
typedef struct {
    int n;
    const int *value, *rest;
    const double *p;
} DrawList;

static const int SAME_DECK[10] CORE_UNUSED; /* (fixed odds: each draw leaves deck 0) */

SHARED_INLINE DrawList draw_list(int exact, int deck, int n, const int *value, const double *p,
                                 Draws *made) {
    if (!exact) return (DrawList){n, value, SAME_DECK, p};
    exact_draws(deck, made);
    return (DrawList){made->ndraws, made->value, made->rest, made->p};
}

/* Positions drawn exactly: a table that doubles while it is at most half full, up to a bound
 * (`max_cap`, which the including core sets); at the bound each key is in a window of
 * EXACT_WINDOW slots from its home (exact_window) and a full window gives its cheapest entry
 * (the fewest positions solved to compute it) to the new one. A set on its exact deck may need
 * hundreds of millions of positions (more than 123.8 M for the match answer with four cards
 * against four), and a table
 * that holds them all took 9.6 GB for three against three: bounded, a forgotten position is
 * solved again, to the same bits. The key is wider than 64 bits (the deck's code beside the
 * position): `place` holds the deck (and the match core's context), plus one (0: an empty slot),
 * `pos` the position's own key in its low EXACT_POS_BITS (the set core's pair of sides, the
 * match core's mover and sides) and the work above. */
#define EXACT_WINDOW 8
#define EXACT_POS_BITS 48
#define EXACT_POS_MASK ((((uint64_t)1) << EXACT_POS_BITS) - 1)
#define EXACT_WORK_MAX ((((uint64_t)1) << (64 - EXACT_POS_BITS)) - 1)

typedef struct {
    uint64_t pos, place;
    double v, d;
} ExactEntry;

typedef struct {
    ExactEntry *slots;
    size_t cap;      /* a power of two (0: none yet) */
    size_t max_cap;  /* the bound */
    size_t size;     /* slots in use */
    size_t stored;   /* positions stored since cleared (the searches' count, for a budget) */
    size_t replaced; /* entries given up to make room */
} ExactTable;

/* A position's key: `key` for the 64-bit tables; `place` nonzero for one drawn exactly (the
 * pair (key's low EXACT_POS_BITS, place) is its key in an ExactTable). */
typedef struct {
    uint64_t key, place;
} PosKey;

SHARED_INLINE size_t exact_home(const ExactTable *t, PosKey k) {
    return (size_t)mix64(k.key ^ (k.place * 0x9E3779B97F4A7C15ULL)) & (t->cap - 1);
}

/* How far from its home a key may be: the window at the bound; below it, anywhere up to the
 * first empty slot (the table grows at half full, so there is one near). A table that grew for
 * a full window of EXACT_WINDOW below its bound, as it once did, grew 4 times larger than its
 * load asked (the set reply's 3.5 M positions in 2^25 slots, 1 GiB, where 2^23 hold them under
 * half full: in random keys a window of 8 is full from a quarter full on); one that gave up an
 * entry instead would solve some positions twice, and count them so, where Python counts each
 * once (its budget then stops at another point). */
SHARED_INLINE size_t exact_window(const ExactTable *t) {
    return t->cap < t->max_cap ? t->cap : EXACT_WINDOW;
}

/* The entry of `k`, or NULL. */
SHARED_INLINE ExactEntry *exact_get(const ExactTable *t, PosKey k) {
    if (!t->slots) return NULL;
    size_t i = exact_home(t, k), window = exact_window(t);
    for (size_t n = 0; n < window; n++) {
        ExactEntry *e = &t->slots[(i + n) & (t->cap - 1)];
        if (e->place == k.place && (e->pos & EXACT_POS_MASK) == k.key) return e;
        if (e->place == 0) return NULL; /* (entries are replaced, never removed) */
    }
    return NULL;
}

/* A table's slots: a large one asked of the system directly, its pages made at once (calloc'ed,
 * each doubling of a table of millions of positions faulted in its fresh pages one by one at
 * random, each read first, then written: two faults a page, 40 % of a search's time in the
 * kernel; made at once: 0.72 of the time of a set's search of 2.9 M positions, no change for one
 * that fills 1 GiB. In huge pages it took 1.55 times as long: the kernel zeroes 2 MB at a
 * page's first write; asking ahead for the slots a position reads gained nothing). */
SHARED ExactEntry *exact_slots(size_t cap) {
#if defined(__linux__) && defined(MAP_POPULATE)
    size_t bytes = cap * sizeof(ExactEntry);
    if (bytes >= HUGE_BYTES) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED) return NULL;
        return p;
    }
#endif
    return calloc(cap, sizeof(ExactEntry));
}

SHARED void exact_slots_free(ExactEntry *slots, size_t cap) {
    if (!slots) return;
#if defined(__linux__) && defined(MAP_POPULATE)
    if (cap * sizeof(ExactEntry) >= HUGE_BYTES) {
        munmap(slots, cap * sizeof(ExactEntry));
        return;
    }
#endif
    free(slots);
    memo_released(cap * sizeof(ExactEntry));
}

SHARED void exact_free(ExactTable *t) {
    exact_slots_free(t->slots, t->cap);
    t->slots = NULL;
    t->cap = t->size = t->stored = 0;
}

/* Forget every entry (the slots stay, zeroed: a search that refills them does not grow again). */
SHARED void exact_clear(ExactTable *t) {
    if (t->slots && t->size) memset(t->slots, 0, t->cap * sizeof(ExactEntry));
    t->size = t->stored = 0;
}

/* Where `k` goes: its slot, or an empty one; or (the window full, at the bound) the cheapest of
 * its window. */
SHARED ExactEntry *exact_place(ExactTable *t, PosKey k) {
    size_t i = exact_home(t, k), window = exact_window(t);
    ExactEntry *cheapest = NULL;
    for (size_t n = 0; n < window; n++) {
        ExactEntry *e = &t->slots[(i + n) & (t->cap - 1)];
        if (e->place == 0) {
            t->size++;
            return e;
        }
        if (e->place == k.place && (e->pos & EXACT_POS_MASK) == k.key) return e;
        if (!cheapest || e->pos >> EXACT_POS_BITS < cheapest->pos >> EXACT_POS_BITS) cheapest = e;
    }
    t->replaced++;
    return cheapest;
}

/* The size a table grows to (none yet: 4096 slots, within the bound). */
SHARED_INLINE size_t exact_grown(const ExactTable *t) {
    size_t cap = t->cap ? t->cap * 2 : 4096;
    return cap < t->max_cap ? cap : t->max_cap;
}

/* Move every entry into a table of `cap` slots. -1: no memory (set). */
SHARED int exact_resize(ExactTable *t, size_t cap) {
    ExactTable bigger = *t;
    bigger.slots = exact_slots(cap);
    if (!bigger.slots) {
        PyErr_NoMemory();
        return -1;
    }
    bigger.cap = cap;
    bigger.size = 0;
    for (size_t i = 0; i < t->cap; i++) {
        const ExactEntry *old = &t->slots[i];
        if (old->place == 0) continue;
        PosKey k = {old->pos & EXACT_POS_MASK, old->place};
        ExactEntry *slot = exact_place(&bigger, k);
        if (slot->place && slot->pos >> EXACT_POS_BITS >= old->pos >> EXACT_POS_BITS)
            continue; /* (a full window keeps its dearer entry) */
        *slot = *old;
    }
    exact_slots_free(t->slots, t->cap);
    *t = bigger;
    return 0;
}

/* Store `k`'s values, `work` the positions solved to compute them. -1: no memory (set). */
SHARED int exact_put(ExactTable *t, PosKey k, double v, double d, uint64_t work) {
    if ((t->size + 1) * 2 > t->cap && t->cap < t->max_cap && exact_resize(t, exact_grown(t)) < 0)
        return -1;
    ExactEntry *slot = exact_place(t, k);
    slot->pos = k.key | (work < EXACT_WORK_MAX ? work : EXACT_WORK_MAX) << EXACT_POS_BITS;
    slot->place = k.place;
    slot->v = v;
    slot->d = d;
    t->stored++;
    return 0;
}

/* -- the search's progress --------------------------------------------------------------------- */

/* How often a long search checks for Ctrl-C and reports its progress (a few times a second). */
#define PROGRESS_EVERY 0x20000

/* Ctrl-C in a long search, and `progress(solved)` (progress NULL: none). -1: an exception. */
SHARED int progress_report(PyObject *progress, uint64_t solved) {
    if (PyErr_CheckSignals() < 0) return -1;
    if (progress) {
        PyObject *result = PyObject_CallFunction(progress, "K", (unsigned long long)solved);
        if (!result) return -1;
        Py_DECREF(result);
    }
    return 0;
}

/* Count one more position solved; once PROGRESS_EVERY more than at the last report (*reported),
 * progress_report. A core counts other positions too (after a draw) without reporting, so a
 * report is due on passing the mark, not on landing on a multiple of it: one that landed there
 * only when a position before a draw hit it exactly reported a third as often, at random, and a
 * deadline watch fired up to 0.9 s late (the 2 s answer about `kotor2-average` ended at 2.8 s). */
SHARED_INLINE int count_solved(uint64_t *solved, uint64_t *reported, PyObject *progress) {
    if (++*solved - *reported < PROGRESS_EVERY) return 0;
    *reported = *solved;
    return progress_report(progress, *solved);
}

/* The `progress` attribute of a core: its callback or None; `closure` is the field's offset. */
SHARED PyObject *progress_get(PyObject *self, void *closure) {
    PyObject *progress = *(PyObject **)((char *)self + (Py_ssize_t)closure);
    if (!progress) Py_RETURN_NONE;
    Py_INCREF(progress);
    return progress;
}

SHARED int progress_set(PyObject *self, PyObject *value, void *closure) {
    if (value == Py_None) value = NULL;
    if (value && !PyCallable_Check(value))
        return fail_status(PyExc_TypeError, "progress must be callable or None");
    Py_XINCREF(value);
    Py_XSETREF(*(PyObject **)((char *)self + (Py_ssize_t)closure), value);
    return 0;
}

#define PROGRESS_ATTRIBUTE(doc)                                                                \
    {"progress", progress_get, progress_set, doc, (void *)offsetof(Core, progress)}

/* The `budget` attribute of a core: a long long field, -1 for none (None in Python; a negative
 * budget is read as 0); `closure` is the field's offset. */
SHARED PyObject *budget_get(PyObject *self, void *closure) {
    long long budget = *(long long *)((char *)self + (Py_ssize_t)closure);
    if (budget < 0) Py_RETURN_NONE;
    return PyLong_FromLongLong(budget);
}

SHARED int budget_set(PyObject *self, PyObject *value, void *closure) {
    long long *field = (long long *)((char *)self + (Py_ssize_t)closure);
    if (!value || value == Py_None) {
        *field = -1;
        return 0;
    }
    long long budget = PyLong_AsLongLong(value);
    if (budget == -1 && PyErr_Occurred()) return -1;
    *field = budget < 0 ? 0 : budget;
    return 0;
}

#define BUDGET_ATTRIBUTE(doc) {"budget", budget_get, budget_set, doc, (void *)offsetof(Core, budget)}

/* An int field of a core read and set as a bool; `closure` is the field's offset. */
SHARED PyObject *flag_get(PyObject *self, void *closure) {
    return PyBool_FromLong(*(int *)((char *)self + (Py_ssize_t)closure));
}

SHARED int flag_set(PyObject *self, PyObject *value, void *closure) {
    int truth = value ? PyObject_IsTrue(value) : 0;
    if (truth < 0) return -1;
    *(int *)((char *)self + (Py_ssize_t)closure) = truth;
    return 0;
}

#define FLAG_ATTRIBUTE(name, doc) {#name, flag_get, flag_set, doc, (void *)offsetof(Core, name)}
/* The same for an int flag `field` elsewhere in the core (a member of one of its structs). */
#define FLAG_FIELD(name, field, doc) {#name, flag_get, flag_set, doc, (void *)offsetof(Core, field)}

/* -- what both cores ask of Python ------------------------------------------------------------- */

/* Free every array named (any of them may be NULL). */
#define FREE_ALL(...)                                                                          \
    free_all((void *[]){__VA_ARGS__}, sizeof((void *[]){__VA_ARGS__}) / sizeof(void *))

SHARED void free_all(void *arrays[], size_t count) {
    for (size_t i = 0; i < count; i++) free(arrays[i]);
}

/* Make an array hold `count` items of `item` bytes (-1: no memory, the array unchanged). */
SHARED int grow(void **array, int count, size_t item) {
    void *bigger = realloc(*array, (size_t)count * item);
    if (!bigger) return -1;
    *array = bigger;
    return 0;
}

/* The candidate list after `side` draws `value`, asked of Python's `expand` the first time
 * (which adds it, so `nlists` is read after the call). -1: an exception is set. */
SHARED int call_expand(PyObject *expand, int side, int value, const int *nlists) {
    PyObject *result = PyObject_CallFunction(expand, "ii", side, value);
    if (!result) return -1;
    long list = PyLong_AsLong(result);
    Py_DECREF(result);
    if (list < 0 || list >= *nlists) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "expand returned no list");
        return -1;
    }
    return (int)list;
}

/* A deck drawn with fixed probabilities: `probabilities` gives one for each value 1..10; the
 * values of those above 0, in order, go to value[] and p[], their count to *ndraws. -1: an
 * exception is set. */
SHARED int read_probabilities(PyObject *probabilities, int *ndraws, int value[10], double p[10]) {
    PyObject *seq = PySequence_Fast(probabilities, "probabilities must be a sequence");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 10)
        return fail_status_releasing(seq, PyExc_ValueError,
                                     "ten probabilities, one per value 1..10");
    *ndraws = 0;
    for (int i = 0; i < 10; i++) {
        double probability = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (probability == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (probability > 0) {
            value[*ndraws] = i + 1;
            p[(*ndraws)++] = probability;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* Room in the codes array (`*capcodes` of them, doubled from 8192) for `n` more after `ncodes`.
 * -1: no memory (an exception is set). */
SHARED int codes_room(int **codes, int ncodes, int *capcodes, Py_ssize_t n) {
    while (ncodes + n > *capcodes) {
        int cap = *capcodes ? *capcodes * 2 : 8192;
        if (grow((void **)codes, cap, sizeof(int)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        *capcodes = cap;
    }
    return 0;
}

/* Append the ints of `seq` (a PySequence_Fast, room made) to codes, counting them in *ncodes as
 * they are read; each names a side below `nsides` (else an IndexError), or anything if nsides
 * is negative. -1: an exception is set. */
SHARED int codes_read(PyObject *seq, int *codes, int *ncodes, int nsides) {
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        long code = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (code == -1 && PyErr_Occurred()) return -1;
        if (nsides >= 0 && (code < 0 || code >= nsides)) {
            PyErr_SetString(PyExc_IndexError, "a candidate names no side");
            return -1;
        }
        codes[(*ncodes)++] = (int)code;
    }
    return 0;
}

/* A tuple of the ints codes[0..n) (NULL: an exception is set). */
SHARED PyObject *codes_tuple(const int *codes, int n) {
    PyObject *tuple = PyTuple_New(n);
    if (!tuple) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *code = PyLong_FromLong(codes[i]);
        if (!code) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, code);
    }
    return tuple;
}

/* The one argument of a method that takes a sequence, as a PySequence_Fast (NULL: an exception
 * is set; `message` if it is no sequence). */
SHARED PyObject *sequence_argument(PyObject *args, const char *message) {
    PyObject *items;
    if (!PyArg_ParseTuple(args, "O", &items)) return NULL;
    return PySequence_Fast(items, message);
}

/* A core's candidate lists (the distinct ways a turn can end after a draw, as codes): the fields
 * CANDIDATE_LISTS puts in its Core, and the method CORE_ADD_LIST defines over them,
 * `add_list(codes) -> list id` (any code: a side or a move). */
#define CANDIDATE_LISTS                                                                        \
    int nlists, caplists;                                                                      \
    int *list_start, *list_len;                                                                \
    int ncodes, capcodes;                                                                      \
    int *codes;

#define CORE_ADD_LIST(max_lists)                                                               \
    PyDoc_STRVAR(core_add_list_doc, "add_list(codes) -> the next candidate list id");          \
    static PyObject *core_add_list(Core *self, PyObject *args) {                               \
        PyObject *seq = sequence_argument(args, "codes must be a sequence");                   \
        if (!seq) return NULL;                                                                 \
        if (self->nlists >= (int)(max_lists))                                                  \
            return fail_releasing(seq, PyExc_OverflowError,                                    \
                                  "more candidate lists than the C core's keys can hold");     \
        Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);                                          \
        if (self->nlists == self->caplists) {                                                  \
            int cap = self->caplists ? self->caplists * 2 : 1024;                              \
            if (grow((void **)&self->list_start, cap, sizeof(int)) < 0 ||                     \
                grow((void **)&self->list_len, cap, sizeof(int)) < 0) {                        \
                Py_DECREF(seq);                                                                \
                return PyErr_NoMemory();                                                       \
            }                                                                                  \
            self->caplists = cap;                                                              \
        }                                                                                      \
        if (codes_room(&self->codes, self->ncodes, &self->capcodes, n) < 0) {                  \
            Py_DECREF(seq);                                                                    \
            return NULL;                                                                       \
        }                                                                                      \
        int start = self->ncodes;                                                              \
        int read = codes_read(seq, self->codes, &self->ncodes, -1);                            \
        Py_DECREF(seq);                                                                        \
        if (read < 0) {                                                                        \
            self->ncodes = start;                                                              \
            return NULL;                                                                       \
        }                                                                                      \
        int id = self->nlists++;                                                               \
        self->list_start[id] = start;                                                          \
        self->list_len[id] = (int)n;                                                           \
        return PyLong_FromLong(id);                                                            \
    }

/* -- the Python type and module ---------------------------------------------------------------- */

/* The rows of a core's tables of methods and attributes: a method `name` is the function
 * core_name (flags VARARGS or NOARGS), its doc core_name_doc (a PyDoc_STRVAR beside it); an
 * attribute's getter core_get_name, its setter (if it has one) core_set_name; a COUNT reads the
 * int `field` of the core. */
#define METHOD(name, flags) {#name, (PyCFunction)core_##name, METH_##flags, core_##name##_doc}
#define GETTER(name, doc) {#name, (getter)core_get_##name, NULL, doc, NULL}
#define ATTRIBUTE(name, doc) {#name, (getter)core_get_##name, (setter)core_set_##name, doc, NULL}
#define COUNT(name, field, doc)                                                                \
    {#name, count_get, NULL, doc, (void *)offsetof(Core, field)}

/* A COUNT's getter: the int at offset `closure` of the core. */
SHARED PyObject *count_get(PyObject *self, void *closure) {
    return PyLong_FromLong(*(int *)((char *)self + (Py_ssize_t)closure));
}

/* The Python objects a core holds (its callbacks), listed as CALLBACKS(X): X(name) for each.
 * The solver that owns a core also owns them: a reference cycle the garbage collector must be
 * able to break, with the core_traverse and core_clear this defines. */
#define CORE_GC(CALLBACKS)                                                                     \
    static int core_traverse(Core *self, visitproc visit, void *arg) {                         \
        CALLBACKS(CORE_VISIT)                                                                  \
        return 0;                                                                              \
    }                                                                                          \
    static int core_clear(Core *self) {                                                        \
        CALLBACKS(CORE_CLEAR)                                                                  \
        return 0;                                                                              \
    }
#define CORE_VISIT(name) Py_VISIT(self->name);
#define CORE_CLEAR(name) Py_CLEAR(self->name);

/* A core's type: the functions core_traverse ... core_dealloc and the tables core_methods and
 * core_getset of the including file. */
#define CORE_TYPE(qualified_name, doc)                                                         \
    {                                                                                          \
        PyVarObject_HEAD_INIT(NULL, 0).tp_name = qualified_name, .tp_doc = doc,                \
        .tp_basicsize = sizeof(Core), .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,     \
        .tp_traverse = (traverseproc)core_traverse, .tp_clear = (inquiry)core_clear,           \
        .tp_new = PyType_GenericNew, .tp_init = (initproc)core_init,                           \
        .tp_dealloc = (destructor)core_dealloc, .tp_methods = core_methods,                    \
        .tp_getset = core_getset,                                                              \
    }

/* A core's module: its name and doc. */
#define CORE_MODULE(name, doc) {PyModuleDef_HEAD_INIT, .m_name = name, .m_doc = doc, .m_size = -1}

/* The module of `definition`, holding `type` as Core (NULL: an exception is set). */
SHARED PyObject *core_module(PyModuleDef *definition, PyTypeObject *type) {
    if (PyType_Ready(type) < 0) return NULL;
    PyObject *module = PyModule_Create(definition);
    if (!module) return NULL;
    Py_INCREF(type);
    if (PyModule_AddObject(module, "Core", (PyObject *)type) < 0) {
        Py_DECREF(type);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}

#endif /* PAZAAK_CORE_H */
