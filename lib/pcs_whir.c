/* pcs_whir — the WHIR backend of lib/pcs.h (EZ_PCS_SCHEME_WHIR): the stacked vector S
 * of lib/pcs.h's layout committed with lib/whir.h, and the claims turned into WHIR
 * weight terms (docs/protocol-kernel-pcs.md §8).
 *
 * Claims. lib/pcs.c has absorbed the claims and drawn rho; claim k on polynomial i
 * (nv variables, point z in lib/mle.h order) is sum_x S(x) w_k(x) with w_k supported on
 * the pieces of i: on a piece of 2^b entries at offset off of S, starting at entry s of
 * the polynomial, w_k(x) = eq(z_top, s / 2^b) eq(z_low, x - off) (z_top its first nv - b
 * coordinates, z_low the last b). That is one ez_whir_term per (claim, piece) with
 * coef = rho^k eq(z_top, s / 2^b); WHIR then proves sum_x S(x) sum_k rho^k w_k(x) =
 * sum_k rho^k v_k directly ([WHIR] §5: constrained Reed–Solomon codes take any linear
 * weight), so Ligero's two batching sumchecks (§4) are not needed here.
 *
 * Parts. S is cut into consecutive PARTS of 2^EZ_PCS_WHIR_PART_LOG entries (the last one
 * shorter), each committed as its own WHIR instance over m_j = max(1, ceil(log2 len_j))
 * variables; the commitment's root is the part's root when there is one part, else
 * SHA-256("einzk/whir-parts" || u64 nparts || the parts' roots). Pieces are aligned to
 * their size, so a piece lies inside one part or covers whole parts; a term on a piece
 * of 2^b > 2^P entries becomes 2^(b-P) terms of 2^P entries, the coefficient taking
 * eq over the bits above P. An opening with several parts sends the parts' roots (the
 * verifier recomputes the root), then sigma_j = sum_x S_j(x) W_j(x) for every part j
 * that some term touches (the verifier requires sum_j sigma_j = the combined claim), all
 * absorbed, then one WHIR opening per such part with its own terms and sigma_j. Sound:
 * the roots are bound by the commitment, and if every part's opening holds then
 * sum_j sigma_j is the true combination sum_k rho^k w_k(S) (docs §8).
 *
 * Joined parts (parts_joined, docs §9c): when the parts share oracle 0's shape, the root
 * is instead that of ONE Merkle tree over the parts' leaf digests (ez_whir_join); no
 * part root is sent, every part is an instance of the batched run, and the parts share
 * one oracle-0 query draw and one set of Merkle paths. */
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mle.h"
#include "lib/pcs.h"
#include "lib/pcs_internal.h"
#include "lib/whir.h"
#include "lib/whir_internal.h"

_Static_assert(EZ_PCS_WHIR_PART_LOG <= EZ_WHIR_MAX_VARS, "a part must fit one WHIR instance");

/* A commitment's part size (lib/pcs.c's layout checked part_log). */
#define PART_LOG ((unsigned)c->part_log)
#define PART_LEN ((uint64_t)1 << c->part_log)

/* Stacked length: the end of the last piece (pieces are laid out without gaps). */
static uint64_t stacked_len(const ez_pcs_commitment *c)
{
    uint64_t t = 0;
    for (uint64_t j = 0; j < c->npieces; j++)
        t += (uint64_t)1 << c->pbits[j];
    return t;
}

static size_t nparts_of(const ez_pcs_commitment *c, uint64_t T)
{
    return T <= PART_LEN ? 1 : (size_t)((T + PART_LEN - 1) >> PART_LOG);
}

static uint64_t part_len(const ez_pcs_commitment *c, uint64_t T, size_t j)
{
    uint64_t lo = (uint64_t)j << PART_LOG;
    return T - lo < PART_LEN ? T - lo : PART_LEN;
}

/* The WHIR parameters of a part of len entries. */
static ez_status part_params(uint64_t len, ez_whir_params *par)
{
    unsigned m = ez_log2_ceil(len);
    return ez_whir_params_default(par, m < 1 ? 1 : m);
}

ez_status ez_pcs_whir_params(const ez_pcs_commitment *c, ez_whir_params *par)
{
    if (c->scheme != EZ_PCS_SCHEME_WHIR || part_params(part_len(c, stacked_len(c), 0), par) != EZ_OK ||
        c->log_cols != par->m - par->k[0])
        return EZ_ERR_INVALID;
    return EZ_OK;
}

/* The parts are JOINED (docs/protocol-kernel-pcs.md §9c) iff there are 2 to
 * EZ_WHIR_MAX_JOIN of them, all with the same oracle 0 (the last part's parameters are the
 * others'), and they fit one batched chain on their own (ez_whir_batch_params): then the
 * commitment's root is the root of ez_whir_join of the parts, every opening opens every
 * part and its parts share their oracle-0 queries and Merkle paths. Otherwise the root is
 * combine_roots of the parts' own. Decided from the layout alone (both sides). */
static bool parts_joined(const ez_pcs_commitment *c, uint64_t T)
{
    size_t np = nparts_of(c, T);
    ez_whir_params first, last;
    if (np < 2 || np > EZ_WHIR_MAX_JOIN || part_params(part_len(c, T, 0), &first) != EZ_OK ||
        part_params(part_len(c, T, np - 1), &last) != EZ_OK || !ez_whir_joinable(&first, &last))
        return false;
    const ez_whir_params *par[EZ_WHIR_MAX_JOIN];
    uint64_t lens[EZ_WHIR_MAX_JOIN];
    ez_whir_params chain;
    for (size_t j = 0; j < np; j++) {
        par[j] = j + 1 < np ? &first : &last;
        lens[j] = part_len(c, T, j);
    }
    return ez_whir_batch_params(&chain, NULL, par, lens, np) == EZ_OK;
}

/* The commitment's root from the parts' roots (one part: its root). */
static void combine_roots(uint8_t root[32], const uint8_t (*roots)[32], size_t n)
{
    if (n == 1) {
        memcpy(root, roots[0], 32);
        return;
    }
    struct sha256_ctx h;
    uint8_t nb[8];
    for (int b = 0; b < 8; b++)
        nb[b] = (uint8_t)((uint64_t)n >> (8 * b));
    sha256_init(&h);
    sha256_update(&h, 16, (const uint8_t *)"einzk/whir-parts");
    sha256_update(&h, 8, nb);
    sha256_update(&h, 32 * n, (const uint8_t *)roots);
    sha256_digest(&h, 32, root);
}

/* The prover's per-part arrays (instances and roots) for its commitment's parts: *T the
 * stacked length, *np the parts. EZ_OK or EZ_ERR_NOMEM. */
static ez_status parts_alloc(ez_pcs_prover *p, uint64_t *T, size_t *np)
{
    *T = stacked_len(&p->com);
    *np = nparts_of(&p->com, *T);
    p->whir = calloc(*np, sizeof *p->whir);
    p->wroots = ez_alloc_array(*np, sizeof *p->wroots);
    if (p->whir == NULL || p->wroots == NULL)
        return EZ_ERR_NOMEM;
    p->nwhir = *np;
    return EZ_OK;
}

/* The root of p's parts: combine_roots, or for joined parts the joined tree's (kept in
 * p->wjoin; to disk with the parts when EZ_SPILL_DIR asks). */
static ez_status root_of_parts(ez_pcs_prover *p, uint64_t T, size_t np, uint8_t root[32])
{
    if (!parts_joined(&p->com, T)) {
        combine_roots(root, (const uint8_t(*)[32])p->wroots, np);
        return EZ_OK;
    }
    ez_status st = ez_whir_join(&p->wjoin, root, (const ez_whir_prover *const *)p->whir, np);
    for (size_t j = 0; j < np; j++) /* the join read every spilled part's leaf digests */
        ez_whir_prover_release(p->whir[j]);
    if (st == EZ_OK) {
        ez_merkle_spill(p->wjoin);
        ez_merkle_release(p->wjoin); /* built in place when the parts are spilled */
    }
    return st;
}

/* A part of at least this many entries is assembled from its polys by the team. */
#define EZ_PCS_COPY_PAR_MIN (UINT64_C(1) << 16)

/* A part's vector of n entries: with EZ_SPILL_DIR on disk from the start (no copy to
 * spill it; zero-filled, *mapped), else in memory (the caller zeroes what it does not
 * write). Its pages populated: it is written in full next. NULL when out of memory. */
static ez_fe *part_vector(size_t n, bool *mapped)
{
    ez_fe *s = ez_spill_alloc(n * sizeof *s);
    *mapped = s != NULL;
    if (!*mapped && (s = ez_alloc_huge(n, sizeof *s)) == NULL)
        return NULL;
    ez_populate(s, n * sizeof *s);
    return s;
}

/* Poly i's entries (poly) that lie in [lo, hi) of the stack, into s (s[0] is entry lo).
 * Pieces are aligned, so each lies inside [lo, hi) or covers it or misses it. */
static void copy_pieces(const ez_pcs_commitment *c, size_t i, const ez_fe *poly, uint64_t lo, uint64_t hi,
                        ez_fe *s)
{
    for (uint64_t q = c->pfirst[i]; q < c->pfirst[i + 1]; q++) {
        uint64_t a = c->poff[q], b = a + ((uint64_t)1 << c->pbits[q]);
        uint64_t x0 = a > lo ? a : lo, x1 = b < hi ? b : hi;
        if (x0 < x1)
            memcpy(s + (x0 - lo), poly + c->pstart[q] + (x0 - a), (size_t)(x1 - x0) * sizeof *s);
    }
}

ez_status ez_pcs_whir_commit(ez_pcs_prover *p, const ez_fe *const *polys)
{
    const ez_pcs_commitment *c = &p->com;
    uint64_t T;
    size_t np;
    if (parts_alloc(p, &T, &np) != EZ_OK)
        return EZ_ERR_NOMEM;
    /* joined parts open paths of the joined tree only: each part keeps its leaf digests
     * (the join's input, the pk's) and its root, not its inner nodes */
    bool paths = !parts_joined(c, T);
    for (size_t j = 0; j < np; j++) {
        ez_whir_params par;
        uint64_t lo = (uint64_t)j << PART_LOG, len = part_len(c, T, j), hi = lo + len;
        ez_status st = part_params(len, &par);
        if (st != EZ_OK)
            return st;
        size_t n = (size_t)1 << par.m;
        bool mapped;
        ez_fe *s = part_vector(n, &mapped);
        if (s == NULL)
            return EZ_ERR_NOMEM;
        /* polys side by side (nanoGPT's advice: 3 ms of copies on one thread) */
#pragma omp parallel for schedule(dynamic, 4) if (len >= EZ_PCS_COPY_PAR_MIN && c->npolys > 1)
        for (size_t i = 0; i < c->npolys; i++)
            copy_pieces(c, i, polys[i], lo, hi, s);
        if (!mapped)
            memset(s + len, 0, (n - (size_t)len) * sizeof *s);
        st = mapped ? ez_whir_commit_mapped(&p->whir[j], p->wroots[j], &par, s, len, paths)
                    : ez_whir_commit_take(&p->whir[j], p->wroots[j], &par, s, len, paths);
        if (st != EZ_OK)
            return st;
        /* to disk before the next part, when EZ_SPILL_DIR asks: the parts' vectors and
         * trees are then never all resident (the openings read them back) */
        ez_whir_prover_spill(p->whir[j]);
    }
    return root_of_parts(p, T, np, p->com.root);
}

void ez_pcs_whir_prover_write(ez_writer *w, const ez_pcs_prover *p)
{
    if (p->nwhir > 1)
        ez_writer_bytes(w, p->wroots, 32 * p->nwhir);
    for (size_t j = 0; j < p->nwhir; j++) {
        ez_whir_prover_write(w, p->whir[j]);
        ez_whir_prover_release(p->whir[j]); /* a spilled part's pages, read by the write */
    }
}

/* The parts' vectors rebuilt from the polys of src, one poly at a time (one poly's
 * entries in fresh memory, never a second copy of the stack): s[j] (and mapped[j]) for
 * each of the np parts, as ez_pcs_whir_commit lays them out. */
static ez_status rebuild_parts(const ez_pcs_commitment *c, uint64_t T, size_t np, const ez_pcs_polys_src *src,
                               ez_fe **s, bool *mapped)
{
    for (size_t j = 0; j < np; j++) {
        ez_whir_params par;
        uint64_t len = part_len(c, T, j);
        if (part_params(len, &par) != EZ_OK)
            return EZ_ERR_FORMAT;
        size_t n = (size_t)1 << par.m;
        if ((s[j] = part_vector(n, &mapped[j])) == NULL)
            return EZ_ERR_NOMEM;
        if (!mapped[j])
            memset(s[j] + len, 0, (n - (size_t)len) * sizeof *s[j]);
    }
    /* one buffer for every poly, of the longest's size, in pages of its own: handed back
     * whole at the end, not left in the heap */
    uint64_t most = 0;
    for (size_t i = 0; i < c->npolys; i++)
        most = c->lens[i] > most ? c->lens[i] : most;
    ez_fe *poly = ez_alloc_pages((size_t)most * sizeof *poly);
    if (poly == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = EZ_OK;
    for (size_t i = 0; i < c->npolys && st == EZ_OK; i++) {
        if ((st = src->fill(src->ctx, i, poly, c->lens[i])) != EZ_OK)
            break;
#pragma omp parallel for schedule(dynamic, 1) if (c->lens[i] >= EZ_PCS_COPY_PAR_MIN && np > 1)
        for (size_t j = 0; j < np; j++)
            copy_pieces(c, i, poly, (uint64_t)j << PART_LOG, ((uint64_t)j << PART_LOG) + part_len(c, T, j), s[j]);
    }
    ez_free_pages(poly, (size_t)most * sizeof *poly);
    return st;
}

/* The parts' vectors not handed to a part's reader (NULL after one was). */
static void parts_vectors_free(const ez_pcs_commitment *c, uint64_t T, size_t np, ez_fe **s, const bool *mapped)
{
    for (size_t j = 0; j < np; j++) {
        ez_whir_params par;
        if (s[j] == NULL || part_params(part_len(c, T, j), &par) != EZ_OK)
            continue;
        if (mapped[j])
            ez_spill_free(s[j], ((size_t)1 << par.m) * sizeof *s[j]);
        else
            free(s[j]);
    }
}

/* Part j's tree from its digests over its rebuilt vector s (which it takes; its length
 * passed part_params in rebuild_parts already). */
static ez_status read_part(ez_reader *r, ez_pcs_prover *p, uint64_t T, size_t j, ez_fe *s, bool mapped)
{
    ez_whir_params par;
    uint64_t len = part_len(&p->com, T, j);
    if (part_params(len, &par) != EZ_OK)
        return EZ_ERR_FORMAT;
    ez_status st = ez_whir_prover_read(r, &par, p->wroots[j], s, len, mapped, &p->whir[j]);
    if (st == EZ_OK)
        ez_whir_prover_spill(p->whir[j]);
    return st == EZ_ERR_INVALID ? EZ_ERR_FORMAT : st;
}

ez_status ez_pcs_whir_prover_read(ez_reader *r, ez_pcs_prover *p, const ez_pcs_polys_src *src)
{
    const ez_pcs_commitment *c = &p->com;
    uint64_t T;
    size_t np;
    ez_fe **s = NULL;
    bool *mapped = NULL;
    ez_status st = parts_alloc(p, &T, &np);
    if (st == EZ_OK) {
        s = calloc(np, sizeof *s);
        mapped = calloc(np, sizeof *mapped);
        st = s && mapped ? EZ_OK : EZ_ERR_NOMEM;
    }
    if (st != EZ_OK)
        goto out;
    if (np == 1)
        memcpy(p->wroots[0], c->root, 32);
    else if (!ez_reader_bytes(r, p->wroots, 32 * np)) {
        st = EZ_ERR_FORMAT;
        goto out;
    }
    if ((st = rebuild_parts(c, T, np, src, s, mapped)) != EZ_OK)
        goto out;
    for (size_t j = 0; j < np; j++) {
        ez_fe *sj = s[j];
        s[j] = NULL; /* the part's reader owns it, also when it fails */
        if ((st = read_part(r, p, T, j, sj, mapped[j])) != EZ_OK)
            goto out;
    }
    if (np > 1) { /* the parts' roots (each checked by its reader) must give the commitment's */
        uint8_t root[32];
        st = root_of_parts(p, T, np, root);
        if (st == EZ_OK && memcmp(root, c->root, 32) != 0)
            st = EZ_ERR_FORMAT;
        if (st != EZ_OK && st != EZ_ERR_NOMEM)
            st = EZ_ERR_FORMAT;
    }
out:
    if (s)
        parts_vectors_free(c, T, np, s, mapped);
    free(s);
    free(mapped);
    return st;
}

/* The weight terms of the claims, split by part: one per (claim, piece) — per (claim,
 * piece, part) for a piece longer than a part — with offsets local to the part.
 * Out: *terms_out (nt entries, sorted by part: part j's are [pfirst[j], pfirst[j+1])),
 * claim[t] the claim of term t, rev (each claim's point in bit order, owned by the
 * caller with terms). */
typedef struct {
    ez_whir_term *terms;
    size_t *claim;
    size_t nt;
    size_t *pfirst; /* nparts + 1 */
    ez_fe2 *rev;
} part_terms;

static void part_terms_clear(part_terms *pt)
{
    free(pt->terms);
    free(pt->claim);
    free(pt->pfirst);
    free(pt->rev);
    memset(pt, 0, sizeof *pt);
}

static ez_status make_terms(const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                            part_terms *out)
{
    memset(out, 0, sizeof *out);
    size_t np = nparts_of(c, stacked_len(c)), nt = 0, nz = 0, npt = 0;
    ez_pcs_pterm *pt = NULL;
    ez_fe2 *zstore = NULL;
    ez_status st = ez_pcs_piece_terms(c, claims, n, rho, &pt, &npt, &zstore);
    if (st != EZ_OK)
        return st;
    for (size_t x = 0; x < npt; x++) {
        nt += pt[x].b > PART_LOG ? (size_t)1 << (pt[x].b - PART_LOG) : 1;
        nz += pt[x].b;
    }
    ez_whir_term *terms = ez_alloc_array(nt ? nt : 1, sizeof *terms), *sorted = NULL;
    size_t *owner = ez_alloc_array(nt ? nt : 1, sizeof *owner), *sowner = NULL;
    size_t *part = ez_alloc_array(nt ? nt : 1, sizeof *part), *fill = calloc(np, sizeof(size_t));
    out->pfirst = calloc(np + 1, sizeof *out->pfirst);
    out->rev = ez_alloc_array(nz ? nz : 1, sizeof *out->rev);
    sorted = ez_alloc_array(nt ? nt : 1, sizeof *sorted);
    sowner = ez_alloc_array(nt ? nt : 1, sizeof *sowner);
    if (!terms || !owner || !part || !fill || !out->pfirst || !out->rev || !sorted || !sowner) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    ez_fe2 one = ez_fe2_one();
    size_t j = 0, zo = 0;
    for (size_t x = 0; x < npt; x++) {
        unsigned b = pt[x].b;
        ez_fe2 *zr = out->rev + zo; /* the free coordinates by bit, least significant first */
        for (unsigned v = 0; v < b; v++)
            zr[v] = pt[x].zf[b - 1 - v];
        zo += b;
        uint64_t off = c->poff[pt[x].piece];
        if (b <= PART_LOG) {
            part[j] = (size_t)(off >> PART_LOG);
            owner[j] = pt[x].claim;
            terms[j++] = (ez_whir_term){.coef = pt[x].coef, .off = off & (PART_LEN - 1), .b = b, .z = zr};
            continue;
        }
        /* a piece over whole parts: sub-block u takes eq(z bits P..b-1, u) */
        for (uint64_t u = 0; u < ((uint64_t)1 << (b - PART_LOG)); u++) {
            ez_fe2 cu = pt[x].coef;
            for (unsigned bit = PART_LOG; bit < b; bit++)
                cu = ez_fe2_mul(cu, ((u >> (bit - PART_LOG)) & 1) ? zr[bit] : ez_fe2_sub(one, zr[bit]));
            part[j] = (size_t)((off >> PART_LOG) + u);
            owner[j] = pt[x].claim;
            terms[j++] = (ez_whir_term){.coef = cu, .off = 0, .b = PART_LOG, .z = zr};
        }
    }
    /* counting sort by part (stable) */
    for (size_t t = 0; t < nt; t++)
        out->pfirst[part[t] + 1]++;
    for (size_t q = 0; q < np; q++)
        out->pfirst[q + 1] += out->pfirst[q];
    for (size_t t = 0; t < nt; t++) {
        size_t d = out->pfirst[part[t]] + fill[part[t]]++;
        sorted[d] = terms[t];
        sowner[d] = owner[t];
    }
    out->terms = sorted;
    out->claim = sowner;
    out->nt = nt;
    sorted = NULL;
    sowner = NULL;
out:
    free(pt);
    free(zstore);
    free(terms);
    free(owner);
    free(part);
    free(fill);
    free(sorted);
    free(sowner);
    if (st != EZ_OK)
        part_terms_clear(out);
    return st;
}

/* sum_x s[off + x] eq(z, x) over 2^b entries, z in bit order (prover: a term's value). */
static ez_fe2 block_eval(const ez_fe *s, const ez_whir_term *w)
{
    unsigned b = w->b, lo = b < 12 ? b : 12, hi = b - lo;
    size_t nlo = (size_t)1 << lo, nhi = (size_t)1 << hi;
    ez_fe2 *elo = ez_alloc_aligned(nlo, sizeof *elo), *ehi = ez_alloc_aligned(nhi, sizeof *ehi);
    ez_fe2 acc = ez_fe2_zero();
    if (elo == NULL || ehi == NULL) {
        free(elo);
        free(ehi);
        return ez_fe2_zero(); /* only a wrong sigma: the verifier rejects */
    }
    ez_whir_eq_bits(elo, w->z, lo);
    ez_whir_eq_bits(ehi, w->z + lo, hi);
    const ez_fe *blk = s + w->off;
#pragma omp parallel if (nhi >= 64)
    {
        ez_fe2 part = ez_fe2_zero();
#pragma omp for schedule(static) nowait
        for (size_t h = 0; h < nhi; h++)
            part = ez_fe2_add(part, ez_fe2_mul(ehi[h], ez_fe2_dot_base(elo, blk + h * nlo, nlo)));
#pragma omp critical
        acc = ez_fe2_add(acc, part);
    }
    free(elo);
    free(ehi);
    return acc;
}

static bool any_joined(const uint8_t *jn, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (jn[j])
            return true;
    return false;
}

/* A multi-opening with joined parts whose instances do not fit one chain together is
 * opened commitment by commitment (each joined commitment fits one on its own,
 * parts_joined); without joined parts it is one ez_whir_open_batch (its own fallback). */
static bool batch_split(const ez_whir_params *const *par, const uint64_t *lens, const uint8_t *jn, size_t n)
{
    ez_whir_params chain;
    return n > 1 && any_joined(jn, n) && ez_whir_batch_params(&chain, NULL, par, lens, n) != EZ_OK;
}

#define L_ROOTS "pcs/whir-part-roots"
#define L_SIGMA "pcs/whir-part-sums"

/* Prover, one commitment of a (batched) opening: its terms (kept in *pt until the WHIR
 * run), and for several parts their roots and sums sent and absorbed; its touched parts
 * appended as instances (wp[*ni], cs[*ni]). */
static ez_status open_prep(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                           ez_fe2 claim, ez_writer *proof, part_terms *pt, const ez_whir_prover **wp,
                           ez_whir_claimset *cs, uint8_t *jn, const ez_merkle **tr, size_t *ni)
{
    size_t np = p->nwhir;
    bool joined = p->wjoin != NULL;
    ez_status st = make_terms(&p->com, claims, n, rho, pt);
    if (st != EZ_OK)
        return st;
    if (np == 1) {
        wp[*ni] = p->whir[0];
        jn[*ni] = 0;
        tr[*ni] = NULL;
        cs[(*ni)++] = (ez_whir_claimset){.terms = pt->terms, .nterms = pt->nt, .sigma = claim};
        return EZ_OK;
    }
    /* sigma_j: a claim all of whose terms lie in one part adds rho^k v_k there; the
     * terms of a claim across parts are evaluated one by one */
    ez_fe2 *sig = calloc(np, sizeof *sig), pw = ez_fe2_one();
    size_t *home = ez_alloc_array(n ? n : 1, sizeof *home), nsent = 0;
    if (sig == NULL || home == NULL) {
        free(sig);
        free(home);
        return EZ_ERR_NOMEM;
    }
    const size_t NONE = SIZE_MAX, SPLIT = SIZE_MAX - 1;
    for (size_t k = 0; k < n; k++)
        home[k] = NONE;
    for (size_t q = 0; q < np; q++)
        for (size_t x = pt->pfirst[q]; x < pt->pfirst[q + 1]; x++) {
            size_t k = pt->claim[x];
            home[k] = home[k] == NONE || home[k] == q ? q : SPLIT;
        }
    for (size_t k = 0; k < n; k++, pw = ez_fe2_mul(pw, rho))
        if (home[k] != NONE && home[k] != SPLIT)
            sig[home[k]] = ez_fe2_add(sig[home[k]], ez_fe2_mul(pw, claims[k].value));
    for (size_t q = 0; q < np; q++)
        for (size_t x = pt->pfirst[q]; x < pt->pfirst[q + 1]; x++)
            if (home[pt->claim[x]] == SPLIT)
                sig[q] = ez_fe2_add(sig[q], ez_fe2_mul(pt->terms[x].coef, block_eval(p->whir[q]->s, &pt->terms[x])));
    for (size_t q = 0; q < np; q++) /* block_eval's reads of spilled parts leave memory */
        ez_whir_prover_release(p->whir[q]);
    if (!joined) { /* joined parts: the root is the joined tree's, no part root is sent */
        ez_writer_bytes(proof, p->wroots, 32 * np);
        ez_transcript_absorb_bytes(t, L_ROOTS, (const uint8_t *)p->wroots, 32 * np);
    }
    /* the touched parts (joined: every part, an untouched one with no terms and sum 0) */
    for (size_t q = 0; q < np; q++) {
        bool touched = pt->pfirst[q + 1] > pt->pfirst[q];
        if (!touched && !joined)
            continue;
        wp[*ni] = p->whir[q];
        jn[*ni] = joined && q > 0;
        tr[*ni] = joined && q == 0 ? p->wjoin : NULL;
        cs[(*ni)++] = (ez_whir_claimset){.terms = pt->terms + pt->pfirst[q],
                                         .nterms = pt->pfirst[q + 1] - pt->pfirst[q],
                                         .sigma = touched ? sig[q] : ez_fe2_zero()};
        if (touched)
            sig[nsent++] = sig[q];
    }
    ez_writer_bytes(proof, sig, nsent * sizeof *sig);
    ez_transcript_absorb_fe2(t, L_SIGMA, sig, nsent);
    free(sig);
    free(home);
    return EZ_OK;
}

ez_status ez_pcs_whir_open_multi(ez_pcs_prover *const *p, const ez_pcs_claim *const *claims, const size_t *n,
                                 const ez_fe2 *rho, const ez_fe2 *claim, size_t ncom, ez_transcript *t,
                                 ez_writer *proof)
{
    size_t ninst = 0, ni = 0;
    for (size_t k = 0; k < ncom; k++)
        if (n[k] > 0)
            ninst += p[k]->nwhir;
    part_terms *pt = calloc(ncom ? ncom : 1, sizeof *pt);
    const ez_whir_prover **wp = ez_alloc_array(ninst ? ninst : 1, sizeof *wp);
    ez_whir_claimset *cs = ez_alloc_array(ninst ? ninst : 1, sizeof *cs);
    uint8_t *jn = ez_alloc_array(ninst ? ninst : 1, sizeof *jn);
    const ez_merkle **tr = ez_alloc_array(ninst ? ninst : 1, sizeof *tr);
    size_t *first = ez_alloc_array(ncom + 1, sizeof *first);
    const ez_whir_params **par = ez_alloc_array(ninst ? ninst : 1, sizeof *par);
    uint64_t *lens = ez_alloc_array(ninst ? ninst : 1, sizeof *lens);
    ez_status st = EZ_ERR_NOMEM;
    if (pt == NULL || wp == NULL || cs == NULL || jn == NULL || tr == NULL || first == NULL || par == NULL ||
        lens == NULL)
        goto out;
    st = EZ_OK;
    for (size_t k = 0; k < ncom && st == EZ_OK; k++) {
        first[k] = ni;
        if (n[k] > 0)
            st = open_prep(p[k], t, claims[k], n[k], rho[k], claim[k], proof, &pt[k], wp, cs, jn, tr, &ni);
    }
    first[ncom] = ni;
    for (size_t j = 0; j < ni; j++) {
        par[j] = ez_whir_prover_params(wp[j]);
        lens[j] = ez_whir_prover_len(wp[j]);
    }
    if (st == EZ_OK && ni > 0) {
        if (batch_split(par, lens, jn, ni)) /* commitment by commitment */
            for (size_t k = 0; k < ncom && st == EZ_OK; k++)
                st = first[k + 1] == first[k] ? EZ_OK
                                              : ez_whir_open_joined(wp + first[k], cs + first[k],
                                                                    first[k + 1] - first[k], jn + first[k],
                                                                    tr + first[k], t, proof);
        else
            st = ez_whir_open_joined(wp, cs, ni, any_joined(jn, ni) ? jn : NULL, tr, t, proof);
    }
out:
    for (size_t k = 0; pt != NULL && k < ncom; k++)
        part_terms_clear(&pt[k]);
    free(pt);
    free(wp);
    free(cs);
    free(jn);
    free(tr);
    free(first);
    free(par);
    free(lens);
    return st;
}

ez_status ez_pcs_whir_open(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                          ez_fe2 claim, ez_writer *proof)
{
    return ez_pcs_whir_open_multi(&p, &claims, &n, &rho, &claim, 1, t, proof);
}

/* Verifier, one commitment: its terms into *pt, for several parts the roots (must
 * combine to the commitment's) and sums (must add up to claim) read and absorbed; its
 * touched parts appended as instances (par[*ni] from parstore, their committed lengths
 * lenstore[*ni], roots[*ni], cs[*ni]).
 * *rootstore (the parts' roots) is the caller's to free. */
static ez_status verify_prep(const ez_pcs_commitment *c, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                             ez_fe2 rho, ez_fe2 claim, ez_reader *proof, part_terms *pt, uint8_t (**rootstore)[32],
                             ez_whir_params *parstore, uint64_t *lenstore, const uint8_t **roots,
                             ez_whir_claimset *cs, uint8_t *jn, size_t *ni)
{
    uint64_t T = stacked_len(c);
    size_t np = nparts_of(c, T);
    bool joined = parts_joined(c, T);
    if (c->scheme != EZ_PCS_SCHEME_WHIR)
        return EZ_ERR_INVALID;
    ez_status st = make_terms(c, claims, n, rho, pt);
    if (st != EZ_OK)
        return st;
    if (np == 1) {
        if (part_params(T, &parstore[*ni]) != EZ_OK)
            return EZ_ERR_INVALID;
        lenstore[*ni] = T;
        roots[*ni] = c->root;
        jn[*ni] = 0;
        cs[(*ni)++] = (ez_whir_claimset){.terms = pt->terms, .nterms = pt->nt, .sigma = claim};
        return EZ_OK;
    }
    uint8_t(*rs)[32] = ez_alloc_array(np, sizeof *rs);
    ez_fe2 *sig = ez_alloc_array(np, sizeof *sig);
    *rootstore = rs;
    if (rs == NULL || sig == NULL) {
        free(sig);
        return EZ_ERR_NOMEM;
    }
    st = EZ_ERR_REJECT;
    if (!joined) {
        uint8_t root[32];
        if (!ez_reader_bytes(proof, rs, 32 * np))
            goto out;
        combine_roots(root, (const uint8_t(*)[32])rs, np);
        if (memcmp(root, c->root, 32) != 0)
            goto out;
        ez_transcript_absorb_bytes(t, L_ROOTS, (const uint8_t *)rs, 32 * np);
    }
    size_t nsent = 0;
    for (size_t q = 0; q < np; q++)
        nsent += pt->pfirst[q + 1] > pt->pfirst[q];
    const uint8_t *b = ez_reader_view(proof, nsent * sizeof *sig);
    if (b == NULL)
        goto out;
    memcpy(sig, b, nsent * sizeof *sig);
    ez_fe2 sum = ez_fe2_zero();
    for (size_t j = 0; j < nsent; j++) {
        if (sig[j].c0 >= EZ_P || sig[j].c1 >= EZ_P)
            goto out;
        sum = ez_fe2_add(sum, sig[j]);
    }
    if (!ez_fe2_eq(sum, claim))
        goto out;
    ez_transcript_absorb_fe2(t, L_SIGMA, sig, nsent);
    st = EZ_OK;
    for (size_t q = 0, j = 0; q < np; q++) {
        bool touched = pt->pfirst[q + 1] > pt->pfirst[q];
        if (!touched && !joined)
            continue;
        if (part_params(part_len(c, T, q), &parstore[*ni]) != EZ_OK) {
            st = EZ_ERR_INVALID;
            break;
        }
        lenstore[*ni] = part_len(c, T, q);
        roots[*ni] = joined ? c->root : rs[q]; /* joined: the group's root is the commitment's */
        jn[*ni] = joined && q > 0;
        cs[(*ni)++] = (ez_whir_claimset){.terms = pt->terms + pt->pfirst[q],
                                         .nterms = pt->pfirst[q + 1] - pt->pfirst[q],
                                         .sigma = touched ? sig[j++] : ez_fe2_zero()};
    }
out:
    free(sig);
    return st;
}

ez_status ez_pcs_whir_verify_multi(const ez_pcs_commitment *const *com, const ez_pcs_claim *const *claims,
                                   const size_t *n, const ez_fe2 *rho, const ez_fe2 *claim, size_t ncom,
                                   ez_transcript *t, ez_reader *proof)
{
    size_t ninst = 0, ni = 0;
    for (size_t k = 0; k < ncom; k++)
        if (n[k] > 0)
            ninst += nparts_of(com[k], stacked_len(com[k]));
    part_terms *pt = calloc(ncom ? ncom : 1, sizeof *pt);
    uint8_t(**rstore)[32] = calloc(ncom ? ncom : 1, sizeof *rstore);
    ez_whir_params *parstore = ez_alloc_array(ninst ? ninst : 1, sizeof *parstore);
    uint64_t *lens = ez_alloc_array(ninst ? ninst : 1, sizeof *lens);
    const ez_whir_params **par = ez_alloc_array(ninst ? ninst : 1, sizeof *par);
    const uint8_t **roots = ez_alloc_array(ninst ? ninst : 1, sizeof *roots);
    ez_whir_claimset *cs = ez_alloc_array(ninst ? ninst : 1, sizeof *cs);
    uint8_t *jn = ez_alloc_array(ninst ? ninst : 1, sizeof *jn);
    size_t *first = ez_alloc_array(ncom + 1, sizeof *first);
    ez_status st = EZ_ERR_NOMEM;
    if (pt == NULL || rstore == NULL || parstore == NULL || lens == NULL || par == NULL || roots == NULL ||
        cs == NULL || jn == NULL || first == NULL)
        goto out;
    st = EZ_OK;
    for (size_t k = 0; k < ncom && st == EZ_OK; k++) {
        first[k] = ni;
        if (n[k] > 0)
            st = verify_prep(com[k], t, claims[k], n[k], rho[k], claim[k], proof, &pt[k], &rstore[k], parstore,
                             lens, roots, cs, jn, &ni);
    }
    first[ncom] = ni;
    for (size_t j = 0; j < ni; j++)
        par[j] = &parstore[j];
    if (st == EZ_OK && ni > 0) {
        if (batch_split(par, lens, jn, ni))
            for (size_t k = 0; k < ncom && st == EZ_OK; k++)
                st = first[k + 1] == first[k] ? EZ_OK
                                              : ez_whir_verify_joined(par + first[k], roots + first[k],
                                                                      lens + first[k], jn + first[k], cs + first[k],
                                                                      first[k + 1] - first[k], t, proof);
        else
            st = ez_whir_verify_joined(par, roots, lens, any_joined(jn, ni) ? jn : NULL, cs, ni, t, proof);
    }
out:
    if (st == EZ_ERR_REJECT)
        proof->failed = true;
    for (size_t k = 0; pt != NULL && k < ncom; k++) {
        part_terms_clear(&pt[k]);
        if (rstore != NULL)
            free(rstore[k]);
    }
    free(pt);
    free(rstore);
    free(parstore);
    free(lens);
    free(par);
    free(roots);
    free(cs);
    free(jn);
    free(first);
    return st;
}

ez_status ez_pcs_whir_verify(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                            ez_fe2 rho, ez_fe2 claim, ez_reader *proof)
{
    return ez_pcs_whir_verify_multi(&com, &claims, &n, &rho, &claim, 1, t, proof);
}
