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
#define EPSILON 1e-12
#define LOSS_MOVE (-1)
#define WIN_MOVE (-2)

/* The memo (see _core.h): an entry packs its key (two ids of ID_BITS each, plus one) with the
 * work it cost, in 16 bits (positions solved to compute it, what forgetting it would cost):
 * 24 bytes, a quarter less memory to zero and to read than a key and a count apart. A key lives
 * within 8 slots of its home slot. A table that may not grow any more (its `max_cap`) is a
 * cache: a new key takes the empty slot of its window or, when there is none, the slot of the
 * entry that cost the least work to compute (values are pure functions of their keys: a
 * forgotten one is computed again, the same). The memory is then bounded by max_cap. */
#define ID_BITS 24
#define MAX_ID (((uint32_t)1 << ID_BITS) - 1)
#define MEMO_KEY_BITS (2 * ID_BITS)
#define MEMO_WINDOW 8
#define MEMO_HUGE_PAGES 1
#include "_core.h"

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
    CANDIDATE_LISTS
    Map before, after_memo;
    size_t clears;
    uint64_t solved; /* positions computed (a forgotten one computed again counts again) */
    PyObject *expand;
    PyObject *progress; /* called with `solved` every PROGRESS_EVERY positions, or NULL */
    int failed;
} Core;

#define CALLBACKS(X) X(expand) X(progress)
CORE_GC(CALLBACKS)

static void core_dealloc(Core *self) {
    PyObject_GC_UnTrack(self);
    core_clear(self);
    FREE_ALL(self->standing, self->total, self->tiebreak, self->after, self->list_start,
             self->list_len, self->codes);
    memo_free(&self->before);
    memo_free(&self->after_memo);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int core_init(Core *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    PyObject *probabilities, *expand;
    Py_ssize_t max_entries = 0; /* per memo table; 0: unbounded */
    if (!PyArg_ParseTuple(args, "OO|n", &probabilities, &expand, &max_entries)) return -1;
    size_t max_cap = (size_t)1 << 62;
    if (max_entries > 0) {
        max_cap = 1 << 10; /* the largest power of two within the bound (at least 1024) */
        while (max_cap * 2 <= (size_t)max_entries) max_cap *= 2;
    }
    if (read_probabilities(probabilities, &self->ndraws, self->draw_value, self->draw_p) < 0)
        return -1;
    if (!PyCallable_Check(expand)) return fail_status(PyExc_TypeError, "expand must be callable");
    Py_INCREF(expand);
    Py_XSETREF(self->expand, expand);
    memo_free(&self->before);
    memo_free(&self->after_memo);
    if (memo_init(&self->before, 1 << 16, max_cap) < 0 ||
        memo_init(&self->after_memo, 1 << 16, max_cap) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(core_add_side_doc, "add_side(standing, tiebreak, total) -> side id (ids are given in order)");
static PyObject *core_add_side(Core *self, PyObject *args) {
    int standing, total, tiebreak;
    if (!PyArg_ParseTuple(args, "ppi", &standing, &tiebreak, &total)) return NULL;
    if (self->nsides >= (int)MAX_ID)
        return fail(PyExc_OverflowError, "more sides than the C core's keys can hold");
    if (self->nsides == self->capsides) {
        int cap = self->capsides ? self->capsides * 2 : 1024;
        if (grow((void **)&self->standing, cap, 1) < 0 ||
            grow((void **)&self->total, cap, sizeof(int)) < 0 ||
            grow((void **)&self->tiebreak, cap, 1) < 0 ||
            grow((void **)&self->after, cap * 11, sizeof(int)) < 0)
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

CORE_ADD_LIST(MAX_ID)

PyDoc_STRVAR(core_set_after_doc, "set_after(side, value, list): the candidate list after side draws value");
static PyObject *core_set_after(Core *self, PyObject *args) {
    int side, value, list;
    if (!PyArg_ParseTuple(args, "iii", &side, &value, &list)) return NULL;
    if (side < 0 || side >= self->nsides || value < 1 || value > 10 || list < 0 ||
        list >= self->nlists)
        return fail(PyExc_IndexError, "no such side, value or list");
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
    if (memo_read(&self->after_memo, key, e, w)) return;
    uint64_t started = self->solved++;
    double be = -1.0, bw = 0.0;
    int start = self->list_start[list], len = self->list_len[list];
    int other_stands = self->standing[other];
    for (int i = 0; i < len; i++) { /* (the positions the candidates lead to, as candidate_value) */
        int code = self->codes[start + i];
        if (code < 0 || (other_stands && self->standing[code])) continue;
        uint64_t next = other_stands ? pair_key(code, other) : pair_key(other, code);
        MEMO_PREFETCH(&self->before, next);
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
    if (memo_keep(&self->after_memo, key, be, bw, self->solved - started) < 0) {
        self->failed = 1;
        return;
    }
    *e = be;
    *w = bw;
}

static void before_draw(Core *self, int mover, int other, double *e, double *w) {
    uint64_t key = pair_key(mover, other);
    if (memo_read(&self->before, key, e, w)) return;
    uint64_t started = self->solved;
    if (count_solved(&self->solved, self->progress) < 0) { /* (Ctrl-C in a long search) */
        self->failed = 1;
        return;
    }
    double equity = 0.0, p_win = 0.0;
    for (int i = 0; i < self->ndraws; i++) { /* (the after-draw positions read below) */
        int list = self->after[mover * 11 + self->draw_value[i]];
        if (list >= 0) MEMO_PREFETCH(&self->after_memo, pair_key(list, other));
    }
    for (int i = 0; i < self->ndraws; i++) {
        int value = self->draw_value[i];
        int list = self->after[mover * 11 + value];
        if (list < 0 && (list = call_expand(self->expand, mover, value, &self->nlists)) < 0) {
            self->failed = 1;
            return;
        }
        double ae = 0.0, aw = 0.0;
        after_draw(self, list, other, &ae, &aw);
        if (self->failed) return;
        equity += self->draw_p[i] * ae;
        p_win += self->draw_p[i] * aw;
    }
    if (memo_keep(&self->before, key, equity, p_win, self->solved - started) < 0) {
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
static PyObject *search(Core *self, void (*what)(Core *, int, int, double *, double *), int first,
                        int second) {
    double e = 0, w = 0;
    self->failed = 0;
    what(self, first, second, &e, &w);
    if (self->failed) return NULL;
    return Py_BuildValue("(dd)", e, w);
}

PyDoc_STRVAR(core_before_draw_doc, "before_draw(mover, other) -> (equity, p_win) for the mover");
static PyObject *core_before_draw(Core *self, PyObject *args) {
    int mover, other;
    if (!PyArg_ParseTuple(args, "ii", &mover, &other)) return NULL;
    if (check_side(self, mover) < 0 || check_side(self, other) < 0) return NULL;
    if (self->standing[mover]) return fail(PyExc_ValueError, "a standing side does not draw");
    return search(self, before_draw, mover, other);
}

PyDoc_STRVAR(core_candidate_value_doc, "candidate_value(code, other) -> (equity, p_win) for the mover");
static PyObject *core_candidate_value(Core *self, PyObject *args) {
    int code, other;
    if (!PyArg_ParseTuple(args, "ii", &code, &other)) return NULL;
    if ((code >= 0 && check_side(self, code) < 0) || check_side(self, other) < 0) return NULL;
    return search(self, candidate_value, code, other);
}

/* Empty the memo between searches (the sides and lists stay): values are recomputed on demand. */
PyDoc_STRVAR(core_clear_memo_doc, "clear_memo(): forget every value (the sides and candidate lists stay)");
static PyObject *core_clear_memo(Core *self, PyObject *unused) {
    (void)unused;
    memo_clear(&self->before);
    memo_clear(&self->after_memo);
    self->clears++;
    Py_RETURN_NONE;
}

/* Make room at once for `entries` positions in each memo table (within its bound; see
 * memo_reserve). */
PyDoc_STRVAR(core_reserve_doc, "reserve(entries): make room in each memo table for that many positions (within its bound)");
static PyObject *core_reserve(Core *self, PyObject *args) {
    Py_ssize_t entries;
    if (!PyArg_ParseTuple(args, "n", &entries)) return NULL;
    if (entries <= 0) Py_RETURN_NONE;
    if (memo_reserve(&self->before, (size_t)entries) < 0 ||
        memo_reserve(&self->after_memo, (size_t)entries) < 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *core_get_states(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(self->before.size + self->after_memo.size);
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
    return PyLong_FromSize_t(self->before.replaced + self->after_memo.replaced);
}

static PyObject *core_get_memo_bytes(Core *self, void *closure) {
    (void)closure;
    return PyLong_FromSize_t((self->before.cap + self->after_memo.cap) * sizeof(Entry));
}

static PyGetSetDef core_getset[] = {
    GETTER(states, "positions in the memo (before and after draws)"),
    GETTER(clears, "times clear_memo() emptied the memo"),
    GETTER(solved, "positions computed so far (again if forgotten)"),
    GETTER(replaced, "memo entries forgotten to bound the memory"),
    GETTER(memo_bytes, "bytes the two memo tables take now"),
    PROGRESS_ATTRIBUTE("progress(solved) is called every so many positions in a long search (or None)"),
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef core_methods[] = {
    METHOD(add_side, VARARGS), METHOD(add_list, VARARGS), METHOD(set_after, VARARGS),
    METHOD(before_draw, VARARGS), METHOD(candidate_value, VARARGS),
    METHOD(reserve, VARARGS), METHOD(clear_memo, NOARGS), {NULL, NULL, 0, NULL},
};

static PyTypeObject CoreType =
    CORE_TYPE("pazaak_cli.solve._fastsolve.Core",
              "Memoised set expectimax with fixed draw probabilities (see solver.py).");

static struct PyModuleDef module = CORE_MODULE(
    "_fastsolve",
    "The optional C inner loop of pazaak_cli.solve.solver (pure Python is used without it).");

PyMODINIT_FUNC PyInit__fastsolve(void) {
    PyObject *m = core_module(&module, &CoreType);
    if (m && PyModule_AddIntConstant(m, "MAX_IDS", (long)MAX_ID) < 0) Py_CLEAR(m);
    return m;
}
