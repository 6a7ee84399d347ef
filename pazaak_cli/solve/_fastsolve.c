/* The inner loop of pazaak_cli.solve.solver.SetSolver, in C.
 *
 * Python keeps every rule: it interns the sides (small integer ids), builds the candidate lists
 * (the distinct ways a turn can end after a draw) and hands them here. This module only runs
 * the memoised expectimax over (mover side, other side) pairs with fixed draw probabilities,
 * exactly as SetSolver.before_draw / after_draw / candidate_value do in Python, and calls back
 * into Python (`expand(side, value) -> list id`) the first time a side draws a value.
 *
 * Values are pairs (equity, p_win) for the player to move; the other side's view of (e, w) is
 * (-e, w - e). Ties between moves are broken exactly as in Python: higher equity (beyond
 * EPSILON), then higher p_win.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#define EPSILON 1e-12
#define LOSS_MOVE (-1)
#define WIN_MOVE (-2)
/* Keys are stored plus one, so that a zeroed slot is empty: calloc'ed tables cost memory only
 * where they are written. */
#define EMPTY 0
#define MAX_LOAD_NUM 5
#define MAX_LOAD_DEN 10
/* A key lives within PROBES slots of its home slot. A table that may not grow any more (its
 * `max_cap`) is a cache: a new key takes the empty slot of its window or, when there is none,
 * the slot of the entry that cost the least work to compute (values are pure functions of their
 * keys: a forgotten one is computed again, the same). The memory is then bounded by max_cap. */
#define PROBES 8

/* An entry packs its key (two ids of ID_BITS each, plus one) with the work it cost, in 16 bits
 * (positions solved to compute it, what forgetting it would cost; counted up to WORK_MAX, past
 * which every entry is as dear): 24 bytes, a quarter less memory to zero and to read than a
 * key and a count apart. */
#define ID_BITS 24
#define MAX_ID (((uint32_t)1 << ID_BITS) - 1)
#define KEY_BITS (2 * ID_BITS)
#define KEY_MASK ((((uint64_t)1) << KEY_BITS) - 1)
#define WORK_MAX 0xFFFFu

typedef struct {
    uint64_t tag; /* key | work << KEY_BITS */
    double e, w;
} Entry;

static inline uint64_t entry_key(const Entry *slot) {
    return slot->tag & KEY_MASK;
}

static inline uint64_t entry_work(const Entry *slot) {
    return slot->tag >> KEY_BITS;
}

typedef struct {
    Entry *slots;
    size_t cap, size, max_cap;
    size_t replaced; /* entries forgotten to make room */
} Map;

/* A large table's memory is asked of the system directly (zeroed, mapped when first written),
 * in huge pages where Linux offers them: the search reads it at random, and with 4 kB pages
 * nearly every read also misses the address cache (TLB). */
#define HUGE_BYTES ((size_t)1 << 22)

static Entry *slots_alloc(size_t cap) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    size_t bytes = cap * sizeof(Entry);
    if (bytes >= HUGE_BYTES) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
        madvise(p, bytes, MADV_HUGEPAGE);
        return p;
    }
#endif
    return calloc(cap, sizeof(Entry));
}

static void slots_free(Entry *slots, size_t cap) {
    if (!slots) return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (cap * sizeof(Entry) >= HUGE_BYTES) {
        munmap(slots, cap * sizeof(Entry));
        return;
    }
#endif
    free(slots);
}

static int map_init(Map *m, size_t cap, size_t max_cap) {
    if (cap > max_cap) cap = max_cap;
    m->slots = slots_alloc(cap);
    if (!m->slots) return -1;
    m->cap = cap;
    m->max_cap = max_cap;
    m->size = 0;
    m->replaced = 0;
    return 0;
}

static inline size_t map_hash(uint64_t key, size_t cap) {
    key ^= key >> 31;
    key *= 0x9E3779B97F4A7C15ULL;
    key ^= key >> 29;
    return (size_t)key & (cap - 1);
}

/* A position's key: (mover, other) before the draw, (candidate list, other) after it; plus one,
 * so that no key is EMPTY. */
static inline uint64_t pair_key(int first, int second) {
    return (((uint64_t)(uint32_t)first << ID_BITS) | (uint32_t)second) + 1;
}

/* Where `key`'s window starts. */
static inline const Entry *map_home(const Map *m, uint64_t key) {
    return &m->slots[map_hash(key, m->cap)];
}

/* Ask the memory for an address ahead of its read: a position's reads lie at random in the
 * memo, and asked for together they overlap instead of following one another. (A macro: GCC
 * drops a call to a function that only prefetches, as a call without effect.) */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)(address))
#endif

/* Both cache lines an entry may lie across (24 bytes: one entry in four crosses a line). */
#define PREFETCH_ENTRY(entry)                                                                  \
    do {                                                                                       \
        const Entry *prefetched_ = (entry);                                                    \
        PREFETCH(prefetched_);                                                                 \
        PREFETCH((const char *)prefetched_ + sizeof(Entry) - 1);                               \
    } while (0)

/* The slot of `key` (already plus one), or the empty slot where it would go, or NULL when its
 * window is full of other keys. */
static inline Entry *map_find(Map *m, uint64_t key) {
    size_t i = map_hash(key, m->cap);
    for (int n = 0; n < PROBES; n++) {
        Entry *slot = &m->slots[i];
        uint64_t found = entry_key(slot);
        if (found == key || found == EMPTY) return slot;
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

/* Where `key` goes: its slot, an empty one, or the cheapest entry of its window (replaced). */
static inline Entry *map_place(Map *m, uint64_t key) {
    Entry *slot = map_find(m, key);
    if (slot) {
        if (entry_key(slot) == EMPTY) m->size++;
        return slot;
    }
    size_t i = map_hash(key, m->cap);
    Entry *cheapest = &m->slots[i];
    for (int n = 1; n < PROBES; n++) {
        Entry *other = &m->slots[(i + n) & (m->cap - 1)];
        if (entry_work(other) < entry_work(cheapest)) cheapest = other;
    }
    m->replaced++;
    return cheapest;
}

/* Move every entry into a table of `cap` slots (at most max_cap). */
static int map_resize(Map *m, size_t cap) {
    Map bigger;
    if (map_init(&bigger, cap, m->max_cap) < 0) return -1;
    bigger.replaced = m->replaced;
    for (size_t i = 0; i < m->cap; i++) {
        uint64_t key = entry_key(&m->slots[i]);
        if (key != EMPTY) {
            Entry *slot = map_place(&bigger, key);
            if (entry_key(slot) != EMPTY && entry_work(slot) >= entry_work(&m->slots[i])) continue;
            *slot = m->slots[i];
        }
    }
    slots_free(m->slots, m->cap);
    *m = bigger;
    return 0;
}

static int map_grow(Map *m) {
    return map_resize(m, m->cap * 2);
}

/* Forget every entry, keeping the table's size. */
static void map_clear(Map *m) {
    memset(m->slots, 0, m->cap * sizeof(Entry));
    m->size = 0;
}

/* Store a value; the slot may move when the table grows, so look it up again. A table at its
 * largest replaces the cheapest entry of the key's window when that window is full. */
static int map_put(Map *m, uint64_t key, double e, double w, uint64_t work) {
    if ((m->size + 1) * MAX_LOAD_DEN > m->cap * MAX_LOAD_NUM && m->cap < m->max_cap &&
        map_grow(m) < 0)
        return -1;
    Entry *slot = map_place(m, key);
    slot->tag = key | (uint64_t)(work < WORK_MAX ? work : WORK_MAX) << KEY_BITS;
    slot->e = e;
    slot->w = w;
    return 0;
}

typedef struct {
    PyObject_HEAD
    int ndraws;
    int draw_value[10];
    double draw_p[10];
    /* sides */
    int nsides, capsides;
    char *standing;
    int *total;
    char *tiebreak;
    int *after; /* after[side * 11 + value]: candidate list id, or -1 */
    /* candidate lists */
    int nlists, caplists;
    int *list_start, *list_len;
    int ncodes, capcodes;
    int *codes;
    Map before, after_memo;
    size_t clears;
    uint64_t solved; /* positions computed (a forgotten one computed again counts again) */
    PyObject *expand;
    PyObject *progress; /* called with `solved` every PROGRESS_EVERY positions, or NULL */
    int failed;
} Core;

/* How often a long search checks for Ctrl-C and reports its progress (a few times a second). */
#define PROGRESS_EVERY 0x20000

static int grow_int(int **array, int count) {
    int *bigger = realloc(*array, (size_t)count * sizeof(int));
    if (!bigger) return -1;
    *array = bigger;
    return 0;
}

static int grow_char(char **array, int count) {
    char *bigger = realloc(*array, (size_t)count);
    if (!bigger) return -1;
    *array = bigger;
    return 0;
}

static int core_traverse(Core *self, visitproc visit, void *arg) {
    Py_VISIT(self->expand);
    Py_VISIT(self->progress);
    return 0;
}

/* The solver that owns this core is also its `expand` callback's owner: a reference cycle the
 * garbage collector must be able to break. */
static int core_clear(Core *self) {
    Py_CLEAR(self->expand);
    Py_CLEAR(self->progress);
    return 0;
}

static void core_dealloc(Core *self) {
    PyObject_GC_UnTrack(self);
    core_clear(self);
    free(self->standing);
    free(self->total);
    free(self->tiebreak);
    free(self->after);
    free(self->list_start);
    free(self->list_len);
    free(self->codes);
    slots_free(self->before.slots, self->before.cap);
    slots_free(self->after_memo.slots, self->after_memo.cap);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int core_init(Core *self, PyObject *args, PyObject *kwds) {
    PyObject *probabilities, *expand;
    Py_ssize_t max_entries = 0; /* per memo table; 0: unbounded */
    if (!PyArg_ParseTuple(args, "OO|n", &probabilities, &expand, &max_entries)) return -1;
    size_t max_cap = (size_t)1 << 62;
    if (max_entries > 0) {
        max_cap = 1 << 10; /* the largest power of two within the bound (at least 1024) */
        while (max_cap * 2 <= (size_t)max_entries) max_cap *= 2;
    }
    PyObject *seq = PySequence_Fast(probabilities, "probabilities must be a sequence");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != 10) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "ten probabilities, one per value 1..10");
        return -1;
    }
    self->ndraws = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double p = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (p == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (p > 0) {
            self->draw_value[self->ndraws] = (int)i + 1;
            self->draw_p[self->ndraws] = p;
            self->ndraws++;
        }
    }
    Py_DECREF(seq);
    if (!PyCallable_Check(expand)) {
        PyErr_SetString(PyExc_TypeError, "expand must be callable");
        return -1;
    }
    Py_INCREF(expand);
    Py_XSETREF(self->expand, expand);
    slots_free(self->before.slots, self->before.cap);
    slots_free(self->after_memo.slots, self->after_memo.cap);
    self->before.slots = self->after_memo.slots = NULL;
    if (map_init(&self->before, 1 << 16, max_cap) < 0 ||
        map_init(&self->after_memo, 1 << 16, max_cap) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static PyObject *core_add_side(Core *self, PyObject *args) {
    int standing, total, tiebreak;
    if (!PyArg_ParseTuple(args, "ppi", &standing, &tiebreak, &total)) return NULL;
    if (self->nsides >= (int)MAX_ID) {
        PyErr_SetString(PyExc_OverflowError, "more sides than the C core's keys can hold");
        return NULL;
    }
    if (self->nsides == self->capsides) {
        int cap = self->capsides ? self->capsides * 2 : 1024;
        if (grow_char(&self->standing, cap) < 0 || grow_int(&self->total, cap) < 0 ||
            grow_char(&self->tiebreak, cap) < 0 || grow_int(&self->after, cap * 11) < 0)
            return PyErr_NoMemory();
        self->capsides = cap;
    }
    int id = self->nsides++;
    self->standing[id] = (char)standing;
    self->tiebreak[id] = (char)tiebreak;
    self->total[id] = total;
    for (int v = 0; v < 11; v++) self->after[id * 11 + v] = -1;
    return PyLong_FromLong(id);
}

static PyObject *core_add_list(Core *self, PyObject *args) {
    PyObject *codes;
    if (!PyArg_ParseTuple(args, "O", &codes)) return NULL;
    if (self->nlists >= (int)MAX_ID) {
        PyErr_SetString(PyExc_OverflowError, "more candidate lists than the C core's keys can hold");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(codes, "codes must be a sequence");
    if (!seq) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (self->nlists == self->caplists) {
        int cap = self->caplists ? self->caplists * 2 : 1024;
        if (grow_int(&self->list_start, cap) < 0 || grow_int(&self->list_len, cap) < 0) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        self->caplists = cap;
    }
    while (self->ncodes + n > self->capcodes) {
        int cap = self->capcodes ? self->capcodes * 2 : 8192;
        if (grow_int(&self->codes, cap) < 0) {
            Py_DECREF(seq);
            return PyErr_NoMemory();
        }
        self->capcodes = cap;
    }
    int id = self->nlists++;
    self->list_start[id] = self->ncodes;
    self->list_len[id] = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        long code = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (code == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        self->codes[self->ncodes++] = (int)code;
    }
    Py_DECREF(seq);
    return PyLong_FromLong(id);
}

static PyObject *core_set_after(Core *self, PyObject *args) {
    int side, value, list;
    if (!PyArg_ParseTuple(args, "iii", &side, &value, &list)) return NULL;
    if (side < 0 || side >= self->nsides || value < 1 || value > 10 || list < 0 ||
        list >= self->nlists) {
        PyErr_SetString(PyExc_IndexError, "no such side, value or list");
        return NULL;
    }
    self->after[side * 11 + value] = list;
    Py_RETURN_NONE;
}

static void before_draw(Core *self, int mover, int other, double *e, double *w);

/* Value for the mover of ending its turn as `code` says, against `other`. */
static void candidate_value(Core *self, int code, int other, double *e, double *w) {
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
            before_draw(self, code, other, e, w);
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
    before_draw(self, other, code, &oe, &ow);
    *e = -oe;
    *w = ow - oe;
}

static void after_draw(Core *self, int list, int other, double *e, double *w) {
    uint64_t key = pair_key(list, other);
    Entry *slot = map_find(&self->after_memo, key);
    if (slot && entry_key(slot) == key) {
        *e = slot->e;
        *w = slot->w;
        return;
    }
    uint64_t started = self->solved++;
    double be = -1.0, bw = 0.0;
    int start = self->list_start[list], len = self->list_len[list];
    int other_stands = self->standing[other];
    for (int i = 0; i < len; i++) { /* (the positions the candidates lead to, as candidate_value) */
        int code = self->codes[start + i];
        if (code < 0 || (other_stands && self->standing[code])) continue;
        uint64_t next = other_stands ? pair_key(code, other) : pair_key(other, code);
        PREFETCH_ENTRY(map_home(&self->before, next));
    }
    for (int i = 0; i < len; i++) {
        double ce, cw;
        candidate_value(self, self->codes[start + i], other, &ce, &cw);
        if (self->failed) return;
        if (ce > be + EPSILON || (ce > be - EPSILON && cw > bw)) {
            be = ce;
            bw = cw;
            if (be >= 1.0 - EPSILON) break;
        }
    }
    if (map_put(&self->after_memo, key, be, bw, self->solved - started) < 0) {
        self->failed = 1;
        PyErr_NoMemory();
        return;
    }
    *e = be;
    *w = bw;
}

static void before_draw(Core *self, int mover, int other, double *e, double *w) {
    uint64_t key = pair_key(mover, other);
    Entry *slot = map_find(&self->before, key);
    if (slot && entry_key(slot) == key) {
        *e = slot->e;
        *w = slot->w;
        return;
    }
    uint64_t started = self->solved++;
    if ((started & (PROGRESS_EVERY - 1)) == PROGRESS_EVERY - 1) {
        if (PyErr_CheckSignals() < 0) { /* Ctrl-C in a long search */
            self->failed = 1;
            return;
        }
        if (self->progress) {
            PyObject *result = PyObject_CallFunction(self->progress, "K",
                                                     (unsigned long long)self->solved);
            if (!result) {
                self->failed = 1;
                return;
            }
            Py_DECREF(result);
        }
    }
    double equity = 0.0, p_win = 0.0;
    for (int i = 0; i < self->ndraws; i++) { /* (the after-draw positions read below) */
        int list = self->after[mover * 11 + self->draw_value[i]];
        if (list >= 0) PREFETCH_ENTRY(map_home(&self->after_memo, pair_key(list, other)));
    }
    for (int i = 0; i < self->ndraws; i++) {
        int value = self->draw_value[i];
        int list = self->after[mover * 11 + value];
        if (list < 0) {
            PyObject *result = PyObject_CallFunction(self->expand, "ii", mover, value);
            if (!result) {
                self->failed = 1;
                return;
            }
            list = (int)PyLong_AsLong(result);
            Py_DECREF(result);
            if (list < 0 || list >= self->nlists) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_RuntimeError, "expand returned no list");
                self->failed = 1;
                return;
            }
        }
        double ae = 0.0, aw = 0.0;
        after_draw(self, list, other, &ae, &aw);
        if (self->failed) return;
        equity += self->draw_p[i] * ae;
        p_win += self->draw_p[i] * aw;
    }
    if (map_put(&self->before, key, equity, p_win, self->solved - started) < 0) {
        self->failed = 1;
        PyErr_NoMemory();
        return;
    }
    *e = equity;
    *w = p_win;
}

static int check_side(Core *self, int side) {
    if (side < 0 || side >= self->nsides) {
        PyErr_SetString(PyExc_IndexError, "no such side");
        return -1;
    }
    return 0;
}

static PyObject *core_before_draw(Core *self, PyObject *args) {
    int mover, other;
    if (!PyArg_ParseTuple(args, "ii", &mover, &other)) return NULL;
    if (check_side(self, mover) < 0 || check_side(self, other) < 0) return NULL;
    if (self->standing[mover]) {
        PyErr_SetString(PyExc_ValueError, "a standing side does not draw");
        return NULL;
    }
    double e = 0, w = 0;
    self->failed = 0;
    before_draw(self, mover, other, &e, &w);
    if (self->failed) return NULL;
    return Py_BuildValue("(dd)", e, w);
}

static PyObject *core_candidate_value(Core *self, PyObject *args) {
    int code, other;
    if (!PyArg_ParseTuple(args, "ii", &code, &other)) return NULL;
    if ((code >= 0 && check_side(self, code) < 0) || check_side(self, other) < 0) return NULL;
    double e = 0, w = 0;
    self->failed = 0;
    candidate_value(self, code, other, &e, &w);
    if (self->failed) return NULL;
    return Py_BuildValue("(dd)", e, w);
}

/* Empty the memo between searches (the sides and lists stay): values are recomputed on demand. */
static PyObject *core_clear_memo(Core *self, PyObject *unused) {
    map_clear(&self->before);
    map_clear(&self->after_memo);
    self->clears++;
    Py_RETURN_NONE;
}

/* Make room at once for `entries` positions in each memo table (within its bound): a search
 * known to be large then skips the doublings on the way, each of which moves every entry into
 * fresh memory the system must zero. */
static PyObject *core_reserve(Core *self, PyObject *args) {
    Py_ssize_t entries;
    if (!PyArg_ParseTuple(args, "n", &entries)) return NULL;
    if (entries <= 0) Py_RETURN_NONE;
    Map *tables[2] = {&self->before, &self->after_memo};
    for (int t = 0; t < 2; t++) {
        Map *m = tables[t];
        size_t cap = m->cap;
        while (cap < m->max_cap && cap * MAX_LOAD_NUM < (size_t)entries * MAX_LOAD_DEN) cap *= 2;
        if (cap > m->cap && map_resize(m, cap) < 0) return PyErr_NoMemory();
    }
    Py_RETURN_NONE;
}

static PyObject *core_states(Core *self, void *closure) {
    return PyLong_FromSize_t(self->before.size + self->after_memo.size);
}

static PyObject *core_clears(Core *self, void *closure) {
    return PyLong_FromSize_t(self->clears);
}

static PyObject *core_solved(Core *self, void *closure) {
    return PyLong_FromUnsignedLongLong(self->solved);
}

static PyObject *core_replaced(Core *self, void *closure) {
    return PyLong_FromSize_t(self->before.replaced + self->after_memo.replaced);
}

static PyObject *core_memo_bytes(Core *self, void *closure) {
    return PyLong_FromSize_t((self->before.cap + self->after_memo.cap) * sizeof(Entry));
}

static PyObject *core_get_progress(Core *self, void *closure) {
    if (!self->progress) Py_RETURN_NONE;
    Py_INCREF(self->progress);
    return self->progress;
}

static int core_set_progress(Core *self, PyObject *value, void *closure) {
    if (value == Py_None) value = NULL;
    if (value && !PyCallable_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "progress must be callable or None");
        return -1;
    }
    Py_XINCREF(value);
    Py_XSETREF(self->progress, value);
    return 0;
}


static PyMethodDef core_methods[] = {
    {"add_side", (PyCFunction)core_add_side, METH_VARARGS,
     "add_side(standing, tiebreak, total) -> side id (ids are given in order)"},
    {"add_list", (PyCFunction)core_add_list, METH_VARARGS,
     "add_list(codes) -> candidate list id"},
    {"set_after", (PyCFunction)core_set_after, METH_VARARGS,
     "set_after(side, value, list): the candidate list after side draws value"},
    {"before_draw", (PyCFunction)core_before_draw, METH_VARARGS,
     "before_draw(mover, other) -> (equity, p_win) for the mover"},
    {"candidate_value", (PyCFunction)core_candidate_value, METH_VARARGS,
     "candidate_value(code, other) -> (equity, p_win) for the mover"},
    {"reserve", (PyCFunction)core_reserve, METH_VARARGS,
     "reserve(entries): make room in each memo table for that many positions (within its bound)"},
    {"clear_memo", (PyCFunction)core_clear_memo, METH_NOARGS,
     "clear_memo(): forget every value (the sides and candidate lists stay)"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef core_getset[] = {
    {"states", (getter)core_states, NULL, "positions in the memo (before and after draws)", NULL},
    {"clears", (getter)core_clears, NULL, "times clear_memo() emptied the memo", NULL},
    {"solved", (getter)core_solved, NULL, "positions computed so far (again if forgotten)", NULL},
    {"replaced", (getter)core_replaced, NULL, "memo entries forgotten to bound the memory", NULL},
    {"memo_bytes", (getter)core_memo_bytes, NULL, "bytes the two memo tables take now", NULL},
    {"progress", (getter)core_get_progress, (setter)core_set_progress,
     "progress(solved) is called every so many positions in a long search (or None)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "pazaak_cli.solve._fastsolve.Core",
    .tp_doc = "Memoised set expectimax with fixed draw probabilities (see solver.py).",
    .tp_basicsize = sizeof(Core),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)core_traverse,
    .tp_clear = (inquiry)core_clear,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)core_init,
    .tp_dealloc = (destructor)core_dealloc,
    .tp_methods = core_methods,
    .tp_getset = core_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_fastsolve",
    "The optional C inner loop of pazaak_cli.solve.solver (pure Python is used without it).", -1,
    NULL,
};

PyMODINIT_FUNC PyInit__fastsolve(void) {
    if (PyType_Ready(&CoreType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&CoreType);
    if (PyModule_AddObject(m, "Core", (PyObject *)&CoreType) < 0) {
        Py_DECREF(&CoreType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MAX_IDS", (long)MAX_ID) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
