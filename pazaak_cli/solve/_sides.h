/* What the two cores that build their own candidate lists share: _fastsolve.c (the set
 * solver's) and _fastmatch.c (the match solver's). Include after _core.h.
 *
 * Python interns the hands (multisets of side cards, by id) and hands each core their facts
 * once (hands_add): what placing a card needs of the hand left (solver.hand_facts), its plays
 * (value, how the card acts, the hand left), and its cards as small codes (whether one hand
 * keeps every card of another). From these a core places a card on a compact side exactly as
 * solver.place_card / place_flip / SetSolver._play do, and interns what it finds in IdMaps.
 * How a turn ends, and which stands a list keeps, differ between the set and the match: each
 * core has its own.
 */
#ifndef PAZAAK_SIDES_H
#define PAZAAK_SIDES_H

/* How a hand card acts (solver.py's PLAIN ... TIEBREAKER). */
enum { PLAIN, FLIP24, FLIP36, DOUBLE, TIEBREAKER };

/* A hand's play: the value placed (0 for a flip or a Double), how it acts, the hand left. */
typedef struct {
    int value, kind, rest;
} Play;

/* A playing side as solver.py's compact tuple (total, cards, hand, f24, f36, tiebreak). */
typedef struct {
    int total, cards, hand, f24, f36, tiebreak;
} Playing;

/* The rules a candidate list follows. */
typedef struct {
    int target, table_size, nine_win, any_tiebreak, flip_all;
} SideRules;

/* The hands, by Python's ids. */
typedef struct {
    int count, cap;
    char *flip24, *flip36, *has_double;
    int *slack;                     /* solver.hand_facts' count slack */
    int *plays_start, *plays_len;   /* into plays */
    int *cards_start, *cards_len;   /* into cards: its cards' codes, sorted */
    Play *plays;
    int nplays, capplays;
    int *cards;
    int ncards, capcards;
} Hands;

SHARED void hands_free(Hands *h) {
    FREE_ALL(h->flip24, h->flip36, h->has_double, h->slack, h->plays_start, h->plays_len,
             h->cards_start, h->cards_len, h->plays, h->cards);
    memset(h, 0, sizeof *h);
}

/* Room for `n` more items of `size` bytes after `used` in *array (*cap of them). -1: no memory
 * (an exception is set). */
SHARED int room_for(void **array, int used, int *cap, Py_ssize_t n, size_t size) {
    if (used + n <= *cap) return 0;
    int bigger = *cap ? *cap : 1024;
    while (bigger < used + n) bigger *= 2;
    if (grow(array, bigger, size) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    *cap = bigger;
    return 0;
}

/* Read one hand's plays (value, kind, rest) into h->plays; a rest below `limit`. -1: an
 * exception is set. */
SHARED int hand_plays_read(Hands *h, PyObject *plays, int limit, int *doubles) {
    PyObject *items = PySequence_Fast(plays, "a hand's plays must be a sequence");
    if (!items) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    if (room_for((void **)&h->plays, h->nplays, &h->capplays, n, sizeof(Play)) < 0) {
        Py_DECREF(items);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Play *play = &h->plays[h->nplays];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(items, i), "iii", &play->value,
                              &play->kind, &play->rest)) {
            Py_DECREF(items);
            return -1;
        }
        if (play->kind < PLAIN || play->kind > TIEBREAKER || play->rest < 0 ||
            play->rest >= limit || play->value < -10 || play->value > 10)
            return fail_status_releasing(items, PyExc_ValueError,
                                         "a play names no kind, value or hand");
        *doubles |= play->kind == DOUBLE;
        h->nplays++;
    }
    Py_DECREF(items);
    return 0;
}

/* hands_add(seq): the next hands by id, each (holds a Flip 2&4, holds a Flip 3&6, count slack,
 * plays, card codes sorted), a play (value, kind, id of the hand left: any hand of the batch or
 * before). All or none of the batch is added. -1: an exception is set. */
SHARED int hands_add(Hands *h, PyObject *args, int max_hands) {
    PyObject *seq = sequence_argument(args, "hands must be a sequence");
    if (!seq) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    int first = h->count, first_play = h->nplays, first_card = h->ncards;
    if (count > (Py_ssize_t)max_hands - first)
        return fail_status_releasing(seq, PyExc_OverflowError,
                                     "more hands than the C core can number");
    int limit = first + (int)count;
    if (limit > h->cap) {
        int cap = h->cap ? h->cap : 256;
        while (cap < limit) cap *= 2;
        if (grow((void **)&h->flip24, cap, 1) < 0 || grow((void **)&h->flip36, cap, 1) < 0 ||
            grow((void **)&h->has_double, cap, 1) < 0 ||
            grow((void **)&h->slack, cap, sizeof(int)) < 0 ||
            grow((void **)&h->plays_start, cap, sizeof(int)) < 0 ||
            grow((void **)&h->plays_len, cap, sizeof(int)) < 0 ||
            grow((void **)&h->cards_start, cap, sizeof(int)) < 0 ||
            grow((void **)&h->cards_len, cap, sizeof(int)) < 0) {
            Py_DECREF(seq);
            PyErr_NoMemory();
            return -1;
        }
        h->cap = cap;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        int flip24, flip36, slack, doubles = 0, id = first + (int)i;
        PyObject *plays, *cards;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ppiOO", &flip24, &flip36,
                              &slack, &plays, &cards))
            goto failed;
        h->plays_start[id] = h->nplays;
        if (hand_plays_read(h, plays, limit, &doubles) < 0) goto failed;
        h->plays_len[id] = h->nplays - h->plays_start[id];
        PyObject *codes = PySequence_Fast(cards, "a hand's cards must be a sequence");
        if (!codes) goto failed;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(codes);
        if (room_for((void **)&h->cards, h->ncards, &h->capcards, n, sizeof(int)) < 0) {
            Py_DECREF(codes);
            goto failed;
        }
        h->cards_start[id] = h->ncards;
        int read = h->ncards;
        if (codes_read(codes, h->cards, &read, -1) < 0) {
            Py_DECREF(codes);
            goto failed;
        }
        Py_DECREF(codes);
        for (int c = h->ncards + 1; c < read; c++)
            if (h->cards[c - 1] > h->cards[c]) {
                PyErr_SetString(PyExc_ValueError, "a hand's card codes must be sorted");
                goto failed;
            }
        h->cards_len[id] = read - h->ncards;
        h->ncards = read;
        h->flip24[id] = (char)flip24;
        h->flip36[id] = (char)flip36;
        h->has_double[id] = (char)doubles;
        h->slack[id] = slack;
    }
    Py_DECREF(seq);
    h->count = limit;
    return 0;
failed:
    h->nplays = first_play;
    h->ncards = first_card;
    Py_DECREF(seq);
    return -1;
}

/* Whether hand `hand` holds every card of hand `sub` (MatchSolver._keeps_all). */
SHARED_INLINE int keeps_all(const Hands *h, int hand, int sub) {
    if (hand == sub) return 1;
    const int *mine = &h->cards[h->cards_start[hand]], *theirs = &h->cards[h->cards_start[sub]];
    int n = h->cards_len[hand], m = h->cards_len[sub], i = 0;
    if (m > n) return 0;
    for (int j = 0; j < m; j++) { /* (both sorted: a merge) */
        while (i < n && mine[i] < theirs[j]) i++;
        if (i == n || mine[i] != theirs[j]) return 0;
        i++;
    }
    return 1;
}

/* solver.place_card: `side` with a card worth `value` placed, leaving `hand`. */
SHARED_INLINE Playing place_card(const Hands *h, const SideRules *r, Playing side, int value,
                                 int hand) {
    int magnitude = value > 0 ? value : -value;
    int counts = value > 0 || r->flip_all;
    if (!h->flip24[hand])
        side.f24 = 0;
    else if (counts && (magnitude == 2 || magnitude == 4))
        side.f24 += value;
    if (!h->flip36[hand])
        side.f36 = 0;
    else if (counts && (magnitude == 3 || magnitude == 6))
        side.f36 += value;
    side.total += value;
    side.cards += 1;
    if (side.cards < side.total + h->slack[hand]) side.cards = 0; /* (see hand_facts) */
    side.hand = hand;
    return side;
}

/* solver.place_flip: `side` after a flip card (placed as 0) turned its 2s and 4s
 * (`flips_2_4`) or its 3s and 6s over, leaving `hand`. */
SHARED_INLINE Playing place_flip(const Hands *h, const SideRules *r, Playing side, int flips_2_4,
                                 int hand) {
    int turned = flips_2_4 ? side.f24 : side.f36;
    side.total -= 2 * turned;
    int after = r->flip_all ? -turned : 0; /* (all signs: the turned cards turn back) */
    if (flips_2_4)
        side.f24 = after;
    else
        side.f36 = after;
    side.cards += 1;
    if (side.cards < side.total + h->slack[hand]) side.cards = 0;
    if (!h->flip24[hand]) side.f24 = 0;
    if (!h->flip36[hand]) side.f36 = 0;
    side.hand = hand;
    return side;
}

/* SetSolver._play: `side`, which drew `drawn`, after `play`. */
SHARED_INLINE Playing play_card(const Hands *h, const SideRules *r, Playing side, int drawn,
                                const Play *play) {
    switch (play->kind) {
    case PLAIN:
        return place_card(h, r, side, play->value, play->rest);
    case DOUBLE:
        return place_card(h, r, side, drawn, play->rest);
    case TIEBREAKER:
        side = place_card(h, r, side, play->value, play->rest);
        if (r->any_tiebreak) side.tiebreak = 1;
        return side;
    default:
        return place_flip(h, r, side, play->kind == FLIP24, play->rest);
    }
}

/* How a turn ends once a side holds its last card of the turn (solver.turn_end). */
enum { FREE_END, BUST_END, NINTH_BUST_END, NINTH_WIN_END, NINTH_STAND_END, TARGET_STAND_END };

SHARED_INLINE int turn_end(const SideRules *r, int total, int full) {
    if (full) {
        if (total > r->target) return NINTH_BUST_END;
        return r->nine_win ? NINTH_WIN_END : NINTH_STAND_END;
    }
    if (total == r->target) return TARGET_STAND_END;
    return total > r->target ? BUST_END : FREE_END;
}

/* -- interning tables ---------------------------------------------------------------------------- */

/* 64-bit keys (never 0) to ids, open addressing, at most half full. */
typedef struct {
    uint64_t *keys;
    int *ids;
    size_t cap, size;
} IdMap;

SHARED void idmap_free(IdMap *map) {
    FREE_ALL(map->keys, map->ids);
    memset(map, 0, sizeof *map);
}

/* The slot of `key` in `map`, or the empty one where it goes. */
SHARED_INLINE size_t idmap_slot(const IdMap *map, uint64_t key) {
    size_t i = (size_t)mix64(key) & (map->cap - 1);
    while (map->keys[i] != key && map->keys[i] != 0) i = (i + 1) & (map->cap - 1);
    return i;
}

/* The id of `key`, or -1. */
SHARED_INLINE int idmap_get(const IdMap *map, uint64_t key) {
    if (!map->cap) return -1;
    size_t i = idmap_slot(map, key);
    return map->keys[i] ? map->ids[i] : -1;
}

/* Add `key` (not held) with `id`. -1: no memory (an exception is set). */
SHARED int idmap_put(IdMap *map, uint64_t key, int id) {
    if ((map->size + 1) * 2 > map->cap) {
        size_t cap = map->cap ? map->cap * 2 : 4096;
        IdMap bigger = {calloc(cap, sizeof(uint64_t)), malloc(cap * sizeof(int)), cap, map->size};
        if (!bigger.keys || !bigger.ids) {
            FREE_ALL(bigger.keys, bigger.ids);
            PyErr_NoMemory();
            return -1;
        }
        for (size_t i = 0; i < map->cap; i++) {
            if (!map->keys[i]) continue;
            size_t j = idmap_slot(&bigger, map->keys[i]);
            bigger.keys[j] = map->keys[i];
            bigger.ids[j] = map->ids[i];
        }
        idmap_free(map);
        *map = bigger;
    }
    size_t i = idmap_slot(map, key);
    map->keys[i] = key;
    map->ids[i] = id;
    map->size++;
    return 0;
}

/* A playing side's key: every field in its bits (totals and flip sums fit a byte, signed; the
 * count four bits; the hand 24 bits), the top bit set so that no key is 0; bits 53 to 61 are
 * free for the includer (a draw, a kind). */
SHARED_INLINE uint64_t playing_key(const Playing *side) {
    return (uint64_t)1 << 63 | (uint64_t)(uint8_t)side->total |
           (uint64_t)(side->tiebreak != 0) << 8 | (uint64_t)side->cards << 9 |
           (uint64_t)(uint8_t)side->f24 << 13 | (uint64_t)(uint8_t)side->f36 << 21 |
           (uint64_t)side->hand << 29;
}

/* The key of a side holding the card it just drew (`drawn`), by which a core finds its
 * candidate list once: many draws lead to one side (5 then 3, 6 then 2), but where its hand
 * holds a Double, which copies the draw, the draw counts too. */
SHARED_INLINE uint64_t placed_key(const Hands *h, const Playing *placed, int drawn) {
    uint64_t key = playing_key(placed);
    return h->has_double[placed->hand] ? key | (uint64_t)drawn << 53 : key;
}

/* Whether a side's fields fit playing_key (a hand below 2**24 and added). */
SHARED_INLINE int side_in_range(const Hands *h, const Playing *side) {
    return side->total >= -128 && side->total <= 127 && side->f24 >= -128 && side->f24 <= 127 &&
           side->f36 >= -128 && side->f36 <= 127 && side->cards >= 0 && side->cards <= 15 &&
           side->hand >= 0 && side->hand < h->count && side->hand < (1 << 24);
}

/* Candidate lists by a sequence of codes (the set core's: their codes; the match core's: the
 * codes before its stands are pruned, as MatchSolver._candidate_ids): id -> its key codes,
 * and a table of ids by the keys' hashes, open addressing, at most half full. */
typedef struct {
    int count, cap;
    int *start, *len;
    uint64_t *hash;
    int *codes;
    int ncodes, capcodes;
    int *slots; /* id + 1, 0: empty */
    size_t slot_cap;
} ListIndex;

SHARED void listindex_free(ListIndex *ix) {
    FREE_ALL(ix->start, ix->len, ix->hash, ix->codes, ix->slots);
    memset(ix, 0, sizeof *ix);
}

SHARED_INLINE uint64_t codes_hash(const int *codes, int n) {
    uint64_t hash = (uint64_t)n;
    for (int i = 0; i < n; i++) hash = mix64(hash ^ (uint64_t)(uint32_t)codes[i]);
    return hash;
}

/* The slot of codes[0..n) (hash `hash`): its id + 1 there, or 0 (empty). */
SHARED_INLINE size_t listindex_slot(const ListIndex *ix, const int *codes, int n, uint64_t hash) {
    size_t i = (size_t)hash & (ix->slot_cap - 1);
    for (;; i = (i + 1) & (ix->slot_cap - 1)) {
        int id = ix->slots[i] - 1;
        if (id < 0) return i;
        if (ix->hash[id] == hash && ix->len[id] == n &&
            !memcmp(&ix->codes[ix->start[id]], codes, (size_t)n * sizeof(int)))
            return i;
    }
}

/* The id of the list keyed by codes[0..n), or -1. */
SHARED_INLINE int listindex_get(const ListIndex *ix, const int *codes, int n) {
    if (!ix->slot_cap) return -1;
    return ix->slots[listindex_slot(ix, codes, n, codes_hash(codes, n))] - 1;
}

/* Key the next id (ix->count) by codes[0..n) (not held). -1: no memory (an exception is set). */
SHARED int listindex_add(ListIndex *ix, const int *codes, int n) {
    uint64_t hash = codes_hash(codes, n);
    if ((size_t)(ix->count + 1) * 2 > ix->slot_cap) {
        size_t cap = ix->slot_cap ? ix->slot_cap * 2 : 4096;
        int *slots = calloc(cap, sizeof(int));
        if (!slots) {
            PyErr_NoMemory();
            return -1;
        }
        for (int id = 0; id < ix->count; id++) {
            size_t i = (size_t)ix->hash[id] & (cap - 1);
            while (slots[i]) i = (i + 1) & (cap - 1);
            slots[i] = id + 1;
        }
        free(ix->slots);
        ix->slots = slots;
        ix->slot_cap = cap;
    }
    if (ix->count == ix->cap) {
        int cap = ix->cap ? ix->cap * 2 : 1024;
        if (grow((void **)&ix->start, cap, sizeof(int)) < 0 ||
            grow((void **)&ix->len, cap, sizeof(int)) < 0 ||
            grow((void **)&ix->hash, cap, sizeof(uint64_t)) < 0) {
            PyErr_NoMemory();
            return -1;
        }
        ix->cap = cap;
    }
    if (room_for((void **)&ix->codes, ix->ncodes, &ix->capcodes, n, sizeof(int)) < 0) return -1;
    int id = ix->count++;
    ix->start[id] = ix->ncodes;
    ix->len[id] = n;
    ix->hash[id] = hash;
    memcpy(&ix->codes[ix->ncodes], codes, (size_t)n * sizeof(int));
    ix->ncodes += n;
    ix->slots[listindex_slot(ix, codes, n, hash)] = id + 1;
    return 0;
}

/* Each code once, in the order of its first place (dict.fromkeys): codes[0..n) kept in place,
 * their number returned. */
SHARED_INLINE int unique_codes(int *codes, int n) {
    int kept = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < kept && !seen; j++) seen = codes[j] == codes[i];
        if (!seen) codes[kept++] = codes[i];
    }
    return kept;
}

#endif /* PAZAAK_SIDES_H */
