/* pcs — see pcs.h; protocol and parameters in docs/protocol-kernel-pcs.md.
 *
 * This file is the scheme-independent layer: the stacked layout, commitment and prover
 * data I/O, the claim batching (rho) and the dispatch on the scheme to the backends,
 * lib/pcs_ligero.c and lib/pcs_whir.c (lib/pcs_internal.h). */
#include "lib/pcs.h"

#include <stdlib.h>
#include <string.h>

#include "lib/merkle.h"
#include "lib/mle.h"
#include "lib/ntt.h"
#include "lib/pcs_internal.h"
#include "lib/sumcheck.h"
#include "lib/whir.h"

/* Field elements go to and from proofs as raw memory: an ez_fe is its little-endian
 * encoding and an ez_fe2 is c0 then c1 with no padding. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "pcs serialization assumes a little-endian host");
_Static_assert(sizeof(ez_fe2) == 16, "ez_fe2 must be two packed ez_fe");


/* ---- layout ------------------------------------------------------------------------ */

static void layout_free(ez_pcs_commitment *c)
{
    free(c->offsets);
    free(c->nvars);
    free(c->pfirst);
    free(c->poff);
    free(c->pstart);
    free(c->pbits);
    free(c->pmask);
    free(c->pval);
    c->offsets = c->pfirst = c->poff = c->pstart = c->pmask = c->pval = NULL;
    c->nvars = c->pbits = NULL;
    c->npieces = 0;
}

static void supports_free(ez_pcs_commitment *c)
{
    free(c->snv);
    free(c->sfirst);
    free(c->spieces);
    c->snv = NULL;
    c->sfirst = NULL;
    c->spieces = NULL;
}

/* Room for the supports of c's npolys polys with tot pieces in all (freed on failure).
 * EZ_OK or EZ_ERR_NOMEM. */
static ez_status supports_alloc(ez_pcs_commitment *c, size_t tot)
{
    size_t np = (size_t)c->npolys;
    c->snv = calloc(np, sizeof *c->snv); /* 0: a plain poly */
    c->sfirst = ez_alloc_array(np + 1, sizeof *c->sfirst);
    c->spieces = ez_alloc_array(tot ? tot : 1, sizeof *c->spieces);
    if (c->snv == NULL || c->sfirst == NULL || c->spieces == NULL) {
        supports_free(c);
        return EZ_ERR_NOMEM;
    }
    return EZ_OK;
}

void ez_pcs_commitment_clear(ez_pcs_commitment *c)
{
    if (c == NULL)
        return;
    free(c->lens);
    layout_free(c);
    supports_free(c);
    free(c->standing);
    free(c->standing_pts);
    memset(c, 0, sizeof *c);
}

/* Copy the supports sup[0..npolys) into c (sup NULL or all nv = 0: none), checking
 * each against lens. EZ_OK, EZ_ERR_INVALID, EZ_ERR_NOMEM. */
static ez_status supports_copy(ez_pcs_commitment *c, const ez_pcs_support *sup)
{
    supports_free(c);
    size_t np = (size_t)c->npolys, tot = 0;
    bool any = false;
    for (size_t i = 0; sup && i < np; i++)
        if (sup[i].nv) {
            any = true;
            if (sup[i].nv > EZ_SC_MAX_VARS || sup[i].npieces == 0 || sup[i].pieces == NULL ||
                sup[i].npieces > EZ_PCS_MAX_POLYS)
                return EZ_ERR_INVALID;
            uint64_t all = (UINT64_C(1) << sup[i].nv) - 1, sum = 0;
            for (size_t j = 0; j < sup[i].npieces; j++) {
                const ez_pcs_piece *q = &sup[i].pieces[j];
                if ((q->mask & ~all) || (q->val & ~q->mask))
                    return EZ_ERR_INVALID;
                sum += UINT64_C(1) << (sup[i].nv - (unsigned)__builtin_popcountll(q->mask));
            }
            if (sum != c->lens[i])
                return EZ_ERR_INVALID;
            tot += sup[i].npieces;
        }
    if (!any)
        return EZ_OK;
    if (supports_alloc(c, tot) != EZ_OK)
        return EZ_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < np; i++) {
        c->sfirst[i] = k;
        if (sup[i].nv == 0)
            continue;
        c->snv[i] = sup[i].nv;
        memcpy(c->spieces + k, sup[i].pieces, sup[i].npieces * sizeof *c->spieces);
        k += sup[i].npieces;
    }
    c->sfirst[np] = k;
    return EZ_OK;
}

unsigned ez_pcs_log_cols_rule(uint64_t total)
{
    return ez_pcs_log_cols_rule_scheme(total, EZ_PCS_SCHEME_LIGERO);
}

/* WHIR: the variables of the stacked vector (at least one). */
static unsigned whir_vars(uint64_t total)
{
    unsigned m = ez_log2_ceil(total);
    return m < 1 ? 1 : m;
}

/* WHIR: the variables of the first part (a stack longer than a part is committed as
 * several WHIR instances, lib/pcs_whir.c). */
static unsigned whir_part0_vars(uint64_t total, unsigned part_log)
{
    unsigned m = whir_vars(total);
    return m > part_log ? part_log : m;
}

unsigned ez_pcs_log_cols_rule_scheme(uint64_t total, unsigned scheme)
{
    if (scheme == EZ_PCS_SCHEME_WHIR) {
        ez_whir_params par;
        if (ez_whir_params_default(&par, whir_part0_vars(total, EZ_PCS_WHIR_PART_LOG)) != EZ_OK)
            return 0;
        return par.m - par.k[0];
    }
    unsigned best = 1;
    double best_bytes = 0, row_bytes = scheme == EZ_PCS_SCHEME_LIGERO_P1 ? 16.0 : 32.0;
    for (unsigned lc = 1; lc <= EZ_NTT_MAX_LOG - EZ_PCS_LOG_BLOWUP; lc++) {
        uint64_t rows = (total + ((uint64_t)1 << lc) - 1) >> lc;
        double bytes = row_bytes * (double)((uint64_t)1 << lc) + 8.0 * (double)rows * EZ_PCS_QUERIES +
                       32.0 * EZ_PCS_QUERIES * (lc + EZ_PCS_LOG_BLOWUP);
        if (lc == 1 || bytes < best_bytes) {
            best = lc;
            best_bytes = bytes;
        }
    }
    return best;
}

/* Sort key for pieces: larger first, then by polynomial index and position (stable). */
typedef struct {
    unsigned bits;
    uint64_t i;
} piece_key;

static int piece_cmp(const void *a, const void *b)
{
    const piece_key *x = a, *y = b;
    if (x->bits != y->bits)
        return x->bits > y->bits ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

ez_status ez_pcs_layout(ez_pcs_commitment *c)
{
    ez_status st = EZ_ERR_INVALID;
    piece_key *keys = NULL;
    layout_free(c);
    if (c->npolys == 0 || c->npolys > EZ_PCS_MAX_POLYS || c->lens == NULL)
        return EZ_ERR_INVALID;
    size_t np = (size_t)c->npolys, npc = 0;
    for (size_t i = 0; i < np; i++) {
        if (c->lens[i] == 0 || c->lens[i] > ((uint64_t)1 << EZ_PCS_MAX_TOTAL_LOG))
            return EZ_ERR_INVALID;
        npc += c->snv && c->snv[i] ? (size_t)(c->sfirst[i + 1] - c->sfirst[i])
                                   : (size_t)__builtin_popcountll(c->lens[i]);
    }
    st = EZ_ERR_NOMEM;
    c->offsets = ez_alloc_array(np, sizeof *c->offsets);
    c->nvars = ez_alloc_array(np, sizeof *c->nvars);
    c->pfirst = ez_alloc_array(np + 1, sizeof *c->pfirst);
    c->poff = ez_alloc_array(npc, sizeof *c->poff);
    c->pstart = ez_alloc_array(npc, sizeof *c->pstart);
    c->pbits = ez_alloc_array(npc, sizeof *c->pbits);
    c->pmask = ez_alloc_array(npc, sizeof *c->pmask);
    c->pval = ez_alloc_array(npc, sizeof *c->pval);
    keys = ez_alloc_array(npc, sizeof *keys);
    if (!c->offsets || !c->nvars || !c->pfirst || !c->poff || !c->pstart || !c->pbits || !c->pmask || !c->pval ||
        !keys)
        goto out;
    /* pieces of poly i: its support's pieces in order, or the set bits of lens[i],
     * largest first, at increasing starts (fixing the top bits to the position) */
    c->npieces = npc;
    for (size_t i = 0, j = 0; i < np; i++) {
        c->pfirst[i] = j;
        uint64_t start = 0;
        if (c->snv && c->snv[i]) {
            unsigned nv = c->snv[i];
            c->nvars[i] = nv;
            for (uint64_t s = c->sfirst[i]; s < c->sfirst[i + 1]; s++, j++) {
                unsigned b = nv - (unsigned)__builtin_popcountll(c->spieces[s].mask);
                c->pbits[j] = b;
                c->pstart[j] = start;
                c->pmask[j] = c->spieces[s].mask;
                c->pval[j] = c->spieces[s].val;
                keys[j] = (piece_key){b, j};
                start += (uint64_t)1 << b;
            }
            continue;
        }
        unsigned nv = ez_log2_ceil(c->lens[i]);
        c->nvars[i] = nv;
        for (unsigned b = 64; b-- > 0;)
            if ((c->lens[i] >> b) & 1) {
                c->pbits[j] = b;
                c->pstart[j] = start;
                c->pmask[j] = (nv >= 64 ? UINT64_MAX : (UINT64_C(1) << nv) - 1) & ~((UINT64_C(1) << b) - 1);
                c->pval[j] = start;
                keys[j] = (piece_key){b, j};
                start += (uint64_t)1 << b;
                j++;
            }
    }
    c->pfirst[np] = npc;
    qsort(keys, npc, sizeof *keys, piece_cmp);
    /* Decreasing power-of-two sizes: each offset is a sum of larger powers of two, hence
     * a multiple of the piece's own size (aligned, no gaps, no padding). */
    uint64_t off = 0;
    for (size_t k = 0; k < npc; k++) {
        c->poff[keys[k].i] = off;
        off += (uint64_t)1 << keys[k].bits;
    }
    if (off > ((uint64_t)1 << EZ_PCS_MAX_TOTAL_LOG)) {
        st = EZ_ERR_INVALID;
        goto out;
    }
    for (size_t i = 0; i < np; i++)
        c->offsets[i] = c->poff[c->pfirst[i]];
    if (c->scheme == EZ_PCS_SCHEME_WHIR) {
        /* WHIR (lib/whir.h): S is the multilinear over ceil(log2 T) variables, committed
         * in parts of 2^EZ_PCS_WHIR_PART_LOG entries (lib/pcs_whir.c); the first part's
         * first oracle interleaves 2^k0 rows (x mod 2^k0) of 2^(m0 - k0) entries. */
        ez_whir_params par;
        if (c->part_log == 0)
            c->part_log = EZ_PCS_WHIR_PART_LOG;
        if (c->part_log < EZ_PCS_WHIR_MIN_PART_LOG || c->part_log > EZ_PCS_WHIR_PART_LOG ||
            ((off - 1) >> c->part_log) >= EZ_PCS_WHIR_MAX_PARTS ||
            ez_whir_params_default(&par, whir_part0_vars(off, c->part_log)) != EZ_OK) {
            st = EZ_ERR_INVALID;
            goto out;
        }
        c->log_cols = par.m - par.k[0];
        c->rows = (uint64_t)1 << par.k[0];
        c->nvars_total = whir_vars(off);
        st = EZ_OK;
        goto out;
    }
    c->log_cols = ez_pcs_log_cols_rule_scheme(off, c->scheme);
    c->rows = (off + ((uint64_t)1 << c->log_cols) - 1) >> c->log_cols;
    c->nvars_total = ez_log2_ceil(c->rows) + c->log_cols;
    st = EZ_OK;
out:
    free(keys);
    if (st != EZ_OK)
        layout_free(c);
    return st;
}

ez_status ez_pcs_commitment_copy(ez_pcs_commitment *dst, const ez_pcs_commitment *src)
{
    memset(dst, 0, sizeof *dst);
    memcpy(dst->root, src->root, 32);
    dst->scheme = src->scheme;
    dst->part_log = src->part_log;
    dst->npolys = src->npolys;
    dst->lens = ez_alloc_array((size_t)src->npolys, sizeof *dst->lens);
    if (dst->lens == NULL)
        return EZ_ERR_NOMEM;
    memcpy(dst->lens, src->lens, (size_t)src->npolys * sizeof *dst->lens);
    ez_status st = EZ_OK;
    if (src->snv) {
        size_t np = (size_t)src->npolys, tot = (size_t)src->sfirst[np];
        if (supports_alloc(dst, tot) != EZ_OK) {
            ez_pcs_commitment_clear(dst);
            return EZ_ERR_NOMEM;
        }
        memcpy(dst->snv, src->snv, np * sizeof *dst->snv);
        memcpy(dst->sfirst, src->sfirst, (np + 1) * sizeof *dst->sfirst);
        memcpy(dst->spieces, src->spieces, tot * sizeof *dst->spieces);
    }
    st = ez_pcs_layout(dst);
    if (st == EZ_OK)
        st = ez_pcs_commitment_set_standing(dst, src->standing, src->nstanding);
    if (st != EZ_OK)
        ez_pcs_commitment_clear(dst);
    return st;
}

/* Unsigned LEB128: seven bits per byte, least significant first, the high bit set on
 * every byte but the last. */
static void write_leb(ez_writer *w, uint64_t v)
{
    do {
        uint8_t b = (uint8_t)(v & 0x7f);
        v >>= 7;
        ez_writer_u8(w, (uint8_t)(v ? b | 0x80 : b));
    } while (v);
}

/* The reader of write_leb's encoding, minimal only (no trailing zero group, at most 64
 * bits): every value has one encoding, so a commitment has one serialization. A short
 * or malformed one sets r->failed. */
static uint64_t read_leb(ez_reader *r)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; i++) {
        uint8_t b = ez_reader_u8(r);
        if (r->failed || (i == 9 && b > 1) || (i > 0 && b == 0))
            break;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            return v;
    }
    r->failed = true;
    return 0;
}

void ez_pcs_commitment_write(ez_writer *w, const ez_pcs_commitment *c)
{
    ez_writer_u8(w, (uint8_t)(c->scheme ? c->scheme : EZ_PCS_SCHEME_LIGERO));
    ez_writer_u32(w, c->log_cols);
    if (c->scheme == EZ_PCS_SCHEME_WHIR)
        ez_writer_u8(w, (uint8_t)c->part_log);
    /* the lengths as maximal runs of equal values (a model's advice repeats a few
     * lengths per layer: GPT-2's 1341 lengths are 126 runs) */
    uint64_t nruns = 0;
    for (uint64_t i = 0; i < c->npolys; i++)
        nruns += i == 0 || c->lens[i] != c->lens[i - 1];
    write_leb(w, c->npolys);
    write_leb(w, nruns);
    for (uint64_t i = 0, j; i < c->npolys; i = j) {
        for (j = i + 1; j < c->npolys && c->lens[j] == c->lens[i]; j++)
            ;
        write_leb(w, j - i);
        write_leb(w, c->lens[i]);
    }
    ez_writer_bytes(w, c->root, 32);
}

ez_status ez_pcs_commitment_read(ez_reader *r, ez_pcs_commitment *c)
{
    ez_status st = EZ_ERR_FORMAT;
    memset(c, 0, sizeof *c);
    uint8_t scheme = ez_reader_u8(r);
    uint32_t lc = ez_reader_u32(r);
    unsigned part_log = scheme == EZ_PCS_SCHEME_WHIR ? ez_reader_u8(r) : 0;
    uint64_t np = read_leb(r), nruns = read_leb(r);
    /* every run is at least one byte pair: nruns is bounded by the bytes left */
    if (r->failed || !ez_pcs_scheme_valid(scheme) || np == 0 || np > EZ_PCS_MAX_POLYS || nruns == 0 ||
        nruns > np || nruns > (r->len - r->pos) / 2 ||
        (scheme == EZ_PCS_SCHEME_WHIR &&
         (part_log < EZ_PCS_WHIR_MIN_PART_LOG || part_log > EZ_PCS_WHIR_PART_LOG)))
        goto out;
    c->scheme = scheme;
    c->part_log = part_log;
    c->npolys = np;
    c->lens = ez_alloc_array((size_t)np, sizeof *c->lens);
    if (c->lens == NULL) {
        st = EZ_ERR_NOMEM;
        goto out;
    }
    /* runs: each at least one polynomial, within np in all, exactly np at the end, and
     * maximal (a length different from the previous run's): one serialization only */
    uint64_t filled = 0;
    for (uint64_t k = 0; k < nruns; k++) {
        uint64_t cnt = read_leb(r), len = read_leb(r);
        if (r->failed || cnt == 0 || cnt > np - filled || (k > 0 && len == c->lens[filled - 1]))
            goto out;
        for (uint64_t i = 0; i < cnt; i++)
            c->lens[filled++] = len;
    }
    if (filled != np || !ez_reader_bytes(r, c->root, 32))
        goto out;
    st = ez_pcs_layout(c);
    if (st == EZ_ERR_INVALID)
        st = EZ_ERR_FORMAT;
    if (st != EZ_OK)
        goto out;
    /* The layout is derived, never chosen by the bytes: a stored row length other than
     * the rule's (which bounds the verifier's work) is malformed. */
    if (lc != c->log_cols)
        st = EZ_ERR_FORMAT;
out:
    if (st != EZ_OK) {
        r->failed = true;
        ez_pcs_commitment_clear(c);
    }
    return st;
}

void ez_pcs_commitment_absorb(ez_transcript *t, const ez_pcs_commitment *c)
{
    ez_writer w;
    ez_writer_init(&w);
    ez_pcs_commitment_write(&w, c);
    /* A failed writer (out of memory) absorbs a marker no honest commitment has. */
    if (w.failed)
        ez_transcript_absorb_bytes(t, "pcs/commitment-oom", NULL, 0);
    else
        ez_transcript_absorb_bytes(t, "pcs/commitment", w.data, w.len);
    ez_writer_clear(&w);
}

/* ---- commit and prover data ------------------------------------------------------------ */

void ez_pcs_prover_free(ez_pcs_prover *p)
{
    if (p == NULL)
        return;
    ez_pcs_commitment_clear(&p->com);
    free(p->enc);
    ez_merkle_free(p->tree);
    for (size_t j = 0; j < p->nwhir; j++)
        ez_whir_prover_free(p->whir[j]);
    free(p->whir);
    free(p->wroots);
    ez_merkle_free(p->wjoin);
    free(p);
}

const ez_pcs_commitment *ez_pcs_prover_commitment(const ez_pcs_prover *p)
{
    return &p->com;
}

ez_status ez_pcs_commit(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_fe *const *polys,
                        const uint64_t *lens, size_t npolys)
{
    return ez_pcs_commit_scheme(out, com, polys, lens, npolys, EZ_PCS_SCHEME_LIGERO);
}

ez_status ez_pcs_commit_scheme(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_fe *const *polys,
                               const uint64_t *lens, size_t npolys, unsigned scheme)
{
    return ez_pcs_commit_parts(out, com, polys, lens, npolys, scheme, 0);
}

ez_status ez_pcs_commit_parts(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_fe *const *polys,
                              const uint64_t *lens, size_t npolys, unsigned scheme, unsigned part_log)
{
    return ez_pcs_commit_supported(out, com, polys, lens, NULL, npolys, scheme, part_log);
}

ez_status ez_pcs_commitment_set_supports(ez_pcs_commitment *c, const ez_pcs_support *sup)
{
    ez_status st = supports_copy(c, sup);
    if (st == EZ_OK)
        st = ez_pcs_layout(c);
    return st;
}

ez_status ez_pcs_prover_set_supports(ez_pcs_prover *p, const ez_pcs_support *sup)
{
    return ez_pcs_commitment_set_supports(&p->com, sup);
}

ez_status ez_pcs_commitment_set_standing(ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n)
{
    size_t npts = 0;
    if (n > 0 && (claims == NULL || c->nvars == NULL))
        return EZ_ERR_INVALID;
    for (size_t k = 0; k < n; k++) {
        if (claims[k].poly >= c->npolys || (claims[k].point == NULL && c->nvars[claims[k].poly] > 0))
            return EZ_ERR_INVALID;
        npts += c->nvars[claims[k].poly];
    }
    ez_pcs_claim *cl = NULL;
    ez_fe2 *pts = NULL;
    if (n > 0) {
        cl = ez_alloc_array(n, sizeof *cl);
        pts = ez_alloc_array(npts ? npts : 1, sizeof *pts);
        if (cl == NULL || pts == NULL) {
            free(cl);
            free(pts);
            return EZ_ERR_NOMEM;
        }
    }
    for (size_t k = 0, o = 0; k < n; k++) {
        unsigned nv = c->nvars[claims[k].poly];
        if (nv)
            memcpy(pts + o, claims[k].point, nv * sizeof *pts);
        cl[k] = (ez_pcs_claim){claims[k].poly, pts + o, claims[k].value};
        o += nv;
    }
    free(c->standing);
    free(c->standing_pts);
    c->standing = cl;
    c->standing_pts = pts;
    c->nstanding = n;
    return EZ_OK;
}

ez_status ez_pcs_prover_set_standing(ez_pcs_prover *p, const ez_pcs_claim *claims, size_t n)
{
    return ez_pcs_commitment_set_standing(&p->com, claims, n);
}

ez_status ez_pcs_commit_supported(ez_pcs_prover **out, ez_pcs_commitment *com, const ez_fe *const *polys,
                                  const uint64_t *lens, const ez_pcs_support *sup, size_t npolys, unsigned scheme,
                                  unsigned part_log)
{
    ez_status st = EZ_ERR_INVALID;
    ez_pcs_prover *p = NULL;
    *out = NULL;
    memset(com, 0, sizeof *com);
    if (polys == NULL || lens == NULL || npolys == 0 || npolys > EZ_PCS_MAX_POLYS ||
        !ez_pcs_scheme_valid(scheme))
        return EZ_ERR_INVALID;
    for (size_t i = 0; i < npolys; i++)
        if (polys[i] == NULL)
            return EZ_ERR_INVALID;
    st = EZ_ERR_NOMEM;
    p = calloc(1, sizeof *p);
    if (p == NULL)
        goto out;
    p->com.scheme = scheme;
    p->com.part_log = scheme == EZ_PCS_SCHEME_WHIR ? part_log : 0;
    p->com.npolys = npolys;
    p->com.lens = ez_alloc_array(npolys, sizeof *p->com.lens);
    if (p->com.lens == NULL)
        goto out;
    memcpy(p->com.lens, lens, npolys * sizeof *lens);
    if ((st = supports_copy(&p->com, sup)) != EZ_OK || (st = ez_pcs_layout(&p->com)) != EZ_OK)
        goto out;
    st = ez_pcs_scheme_is_ligero(scheme) ? ez_pcs_ligero_commit(p, polys) : ez_pcs_whir_commit(p, polys);
    if (st != EZ_OK)
        goto out;
    if ((st = ez_pcs_commitment_copy(com, &p->com)) != EZ_OK)
        goto out;
    *out = p;
    p = NULL;
out:
    ez_pcs_prover_free(p);
    return st;
}

void ez_pcs_prover_write(ez_writer *w, const ez_pcs_prover *p)
{
    ez_pcs_commitment_write(w, &p->com);
    if (ez_pcs_scheme_is_ligero(p->com.scheme))
        ez_pcs_ligero_prover_write(w, p);
    else
        ez_pcs_whir_prover_write(w, p);
}

ez_status ez_pcs_polys_copy(void *ctx, size_t i, ez_fe *out, uint64_t len)
{
    const ez_fe *const *polys = ctx;
    memcpy(out, polys[i], (size_t)len * sizeof *out);
    return EZ_OK;
}

ez_status ez_pcs_prover_read(ez_reader *r, ez_pcs_prover **out, const ez_pcs_polys_src *src)
{
    ez_status st = EZ_ERR_NOMEM;
    *out = NULL;
    ez_pcs_prover *p = calloc(1, sizeof *p);
    if (p == NULL)
        goto out;
    if ((st = ez_pcs_commitment_read(r, &p->com)) != EZ_OK)
        goto out;
    if (ez_pcs_scheme_is_ligero(p->com.scheme)) {
        st = ez_pcs_ligero_prover_read(r, p);
    } else if ((st = src->sup ? ez_pcs_commitment_set_supports(&p->com, src->sup) : EZ_OK) == EZ_OK) {
        st = ez_pcs_whir_prover_read(r, p, src);
    } else if (st == EZ_ERR_INVALID) {
        st = EZ_ERR_FORMAT;
    }
    if (st != EZ_OK)
        goto out;
    *out = p;
    p = NULL;
out:
    if (st != EZ_OK)
        r->failed = true;
    ez_pcs_prover_free(p);
    return st;
}

/* ---- claims: checking, absorbing, batching with rho ----------------------------------- */

ez_status ez_pcs_piece_terms(const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n, ez_fe2 rho,
                             ez_pcs_pterm **out, size_t *nout, ez_fe2 **store)
{
    size_t cap = 0, zcap = 0;
    *out = NULL;
    *store = NULL;
    *nout = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = claims[k].poly;
        cap += (size_t)(c->pfirst[i + 1] - c->pfirst[i]);
        if (c->snv && c->snv[i])
            for (uint64_t pc = c->pfirst[i]; pc < c->pfirst[i + 1]; pc++)
                zcap += c->pbits[pc];
    }
    ez_pcs_pterm *t = ez_alloc_array(cap ? cap : 1, sizeof *t);
    ez_fe2 *zs = ez_alloc_array(zcap ? zcap : 1, sizeof *zs);
    if (t == NULL || zs == NULL) {
        free(t);
        free(zs);
        return EZ_ERR_NOMEM;
    }
    ez_fe2 pw = ez_fe2_one(), one = ez_fe2_one(), zero = ez_fe2_zero();
    size_t nt = 0, zo = 0;
    for (size_t k = 0; k < n; k++, pw = ez_fe2_mul(pw, rho)) {
        size_t i = claims[k].poly;
        unsigned nv = c->nvars[i];
        const ez_fe2 *z = claims[k].point;
        bool sup = c->snv && c->snv[i];
        for (uint64_t pc = c->pfirst[i]; pc < c->pfirst[i + 1]; pc++) {
            unsigned b = c->pbits[pc];
            ez_fe2 coef = pw;
            /* eq over the fixed bits: index bit j is the point's coordinate nv-1-j */
            for (unsigned j = 0; j < nv; j++)
                if ((c->pmask[pc] >> j) & 1) {
                    ez_fe2 zv = z[nv - 1 - j];
                    coef = ez_fe2_mul(coef, ((c->pval[pc] >> j) & 1) ? zv : ez_fe2_sub(one, zv));
                }
            if (ez_fe2_eq(coef, zero))
                continue; /* a claim inside another piece (boolean coordinates) */
            const ez_fe2 *zf = z + (nv - b); /* a plain poly's free bits are its low ones */
            if (sup) {
                ez_fe2 *g = zs + zo;
                unsigned o = 0;
                for (unsigned v = 0; v < nv; v++)
                    if (!((c->pmask[pc] >> (nv - 1 - v)) & 1))
                        g[o++] = z[v];
                zf = g;
                zo += b;
            }
            t[nt++] = (ez_pcs_pterm){.claim = k, .piece = pc, .b = b, .coef = coef, .zf = zf};
        }
    }
    *out = t;
    *nout = nt;
    *store = zs;
    return EZ_OK;
}

static ez_status check_claims(const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n)
{
    if (n > 0 && claims == NULL)
        return EZ_ERR_INVALID;
    for (size_t k = 0; k < n; k++)
        if (claims[k].poly >= c->npolys || (claims[k].point == NULL && c->nvars[claims[k].poly] > 0))
            return EZ_ERR_INVALID;
    return EZ_OK;
}

/* Absorb the claims, draw rho, return the combined claim sum_k rho^k v_k (both schemes:
 * a false claim makes the combination false except with probability (n-1)/|K|). */
static ez_fe2 absorb_claims(ez_transcript *t, const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n,
                            ez_fe2 *rho)
{
    ez_transcript_absorb_u64(t, "pcs/nclaims", n);
    for (size_t k = 0; k < n; k++) {
        ez_transcript_absorb_u64(t, "pcs/claim-poly", claims[k].poly);
        ez_transcript_absorb_fe2(t, "pcs/claim-point", claims[k].point, c->nvars[claims[k].poly]);
        ez_transcript_absorb_fe2(t, "pcs/claim-value", &claims[k].value, 1);
    }
    *rho = ez_transcript_challenge_fe2(t, "pcs/rho");
    ez_fe2 sum = ez_fe2_zero(), pw = ez_fe2_one();
    for (size_t k = 0; k < n; k++) {
        sum = ez_fe2_add(sum, ez_fe2_mul(pw, claims[k].value));
        pw = ez_fe2_mul(pw, *rho);
    }
    return sum;
}

/* Both sides: the mode is public; absorbed only when not the default, so default
 * openings keep their transcript. Returns "send the proximity row" (Ligero; WHIR's
 * opening is always a full proximity test, §8, and only absorbs the mode). */
static bool open_mode(ez_transcript *t, unsigned flags)
{
    if (flags != 0)
        ez_transcript_absorb_u64(t, "pcs/mode", flags);
    return (flags & EZ_PCS_OPEN_NO_PROXIMITY) == 0;
}

/* The caller's claims followed by c's standing claims (§9b): *out is `claims` itself when
 * c has none, else *owned, a new array (the caller frees it). EZ_OK or EZ_ERR_NOMEM. */
static ez_status with_standing(const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n,
                               const ez_pcs_claim **out, size_t *nout, ez_pcs_claim **owned)
{
    *owned = NULL;
    *out = claims;
    *nout = n;
    if (c == NULL || c->nstanding == 0)
        return EZ_OK;
    if (n > 0 && claims == NULL)
        return EZ_ERR_INVALID;
    ez_pcs_claim *m = ez_alloc_array(n + c->nstanding, sizeof *m);
    if (m == NULL)
        return EZ_ERR_NOMEM;
    if (n)
        memcpy(m, claims, n * sizeof *m);
    memcpy(m + n, c->standing, c->nstanding * sizeof *m);
    *out = *owned = m;
    *nout = n + c->nstanding;
    return EZ_OK;
}

ez_status ez_pcs_open(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                      ez_writer *proof)
{
    return ez_pcs_open_ex(p, t, claims, n, 0, proof);
}

ez_status ez_pcs_verify(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                        ez_reader *proof)
{
    return ez_pcs_verify_ex(com, t, claims, n, 0, proof);
}

/* One commitment's opening up to its proof, on both sides (claims already with the
 * standing ones): check the claims and flags, then absorb the open mode and the claims
 * (*prox, *rho, *claim). EZ_OK with nothing absorbed when there are no claims. */
static ez_status open_begin(ez_transcript *t, const ez_pcs_commitment *c, const ez_pcs_claim *claims, size_t n,
                            unsigned flags, bool *prox, ez_fe2 *rho, ez_fe2 *claim)
{
    ez_status st = check_claims(c, claims, n);
    if (st != EZ_OK || n == 0)
        return st;
    if (flags & ~(unsigned)EZ_PCS_OPEN_NO_PROXIMITY)
        return EZ_ERR_INVALID;
    *prox = open_mode(t, flags);
    *claim = absorb_claims(t, c, claims, n, rho);
    return EZ_OK;
}

ez_status ez_pcs_open_ex(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, unsigned flags,
                         ez_writer *proof)
{
    const ez_pcs_commitment *c = &p->com;
    ez_pcs_claim *owned = NULL;
    bool prox = false;
    ez_fe2 rho, claim;
    ez_status st = with_standing(c, claims, n, &claims, &n, &owned);
    if (st == EZ_OK)
        st = open_begin(t, c, claims, n, flags, &prox, &rho, &claim);
    if (st == EZ_OK && n > 0) {
        if (ez_pcs_scheme_is_ligero(c->scheme))
            st = ez_pcs_ligero_open(p, t, claims, n, prox, rho, claim, proof);
        else
            st = ez_pcs_whir_open(p, t, claims, n, rho, claim, proof);
    }
    free(owned);
    return st;
}

ez_status ez_pcs_verify_ex(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n,
                           unsigned flags, ez_reader *proof)
{
    ez_pcs_claim *owned = NULL;
    bool prox = false;
    ez_fe2 rho, claim;
    if (com == NULL || com->offsets == NULL || com->nvars == NULL || com->pfirst == NULL ||
        com->nvars_total > EZ_SC_MAX_VARS)
        return EZ_ERR_INVALID;
    ez_status st = with_standing(com, claims, n, &claims, &n, &owned);
    if (st == EZ_OK)
        st = open_begin(t, com, claims, n, flags, &prox, &rho, &claim);
    if (st == EZ_OK && n > 0 && ez_pcs_scheme_is_ligero(com->scheme)) {
        st = ez_pcs_ligero_verify(com, t, claims, n, prox, rho, claim, proof);
    } else if (st == EZ_OK && n > 0) {
        st = ez_pcs_whir_verify(com, t, claims, n, rho, claim, proof);
        if (st == EZ_ERR_REJECT)
            proof->failed = true;
    }
    free(owned);
    return st;
}

/* Every commitment with claims uses WHIR (then they are batched), NULL entries allowed
 * where n[k] == 0. */
static bool all_whir(const ez_pcs_commitment *const *c, const size_t *n, size_t ncom)
{
    for (size_t k = 0; k < ncom; k++)
        if (n[k] > 0 && c[k]->scheme != EZ_PCS_SCHEME_WHIR)
            return false;
    return true;
}

/* The batched opening's and verification's scratch, one shape on both sides: per
 * commitment k its claims followed by its standing claims (cl[k], nn[k]; owned[k] to
 * free, when any were added), and once absorbed its rho and combined claim. */
typedef struct {
    const ez_pcs_claim **cl;
    size_t *nn;
    ez_pcs_claim **owned;
    ez_fe2 *rho, *claim;
} multi_claims;

static void multi_free(multi_claims *mc, size_t ncom)
{
    if (mc->owned)
        for (size_t k = 0; k < ncom; k++)
            free(mc->owned[k]);
    free(mc->owned);
    free(mc->cl);
    free(mc->nn);
    free(mc->rho);
    free(mc->claim);
}

/* Fill mc for commitments c[0..ncom) (NULL entries allowed: no standing claims) and
 * claims[k][0..n[k]) with with_standing. EZ_OK, EZ_ERR_INVALID, EZ_ERR_NOMEM; mc is
 * freed by multi_free either way. */
static ez_status multi_standing(multi_claims *mc, const ez_pcs_commitment *const *c,
                                const ez_pcs_claim *const *claims, const size_t *n, size_t ncom)
{
    size_t m = ncom ? ncom : 1;
    mc->rho = ez_alloc_array(m, sizeof *mc->rho);
    mc->claim = ez_alloc_array(m, sizeof *mc->claim);
    mc->cl = ez_alloc_array(m, sizeof *mc->cl);
    mc->nn = ez_alloc_array(m, sizeof *mc->nn);
    mc->owned = calloc(m, sizeof *mc->owned);
    if (mc->rho == NULL || mc->claim == NULL || mc->cl == NULL || mc->nn == NULL || mc->owned == NULL)
        return EZ_ERR_NOMEM;
    ez_status st = EZ_OK;
    for (size_t k = 0; k < ncom; k++) {
        mc->cl[k] = claims[k];
        mc->nn[k] = n[k];
        if (st == EZ_OK && c[k] != NULL)
            st = with_standing(c[k], claims[k], n[k], &mc->cl[k], &mc->nn[k], &mc->owned[k]);
    }
    return st;
}

/* Both sides of a batched opening up to its proof: the claims with the standing ones
 * (multi_standing), their checks against commitments c[k] (NULL entries allowed where
 * n[k] == 0), and when every commitment with claims uses WHIR (*batched) the
 * transcript prefix: per commitment with claims its open mode, then its claims
 * (absorb_claims: rho[k], claim[k]). Otherwise nothing is absorbed: each commitment is
 * opened on its own (ez_pcs_open_ex, which adds the standing claims itself). */
static ez_status multi_prepare(multi_claims *mc, ez_transcript *t, const ez_pcs_commitment *const *c,
                               const ez_pcs_claim *const *claims, const size_t *n, const unsigned *flags,
                               size_t ncom, bool *batched)
{
    *batched = false;
    ez_status st = multi_standing(mc, c, claims, n, ncom);
    for (size_t k = 0; k < ncom && st == EZ_OK; k++) {
        if (mc->nn[k] == 0)
            continue;
        if (c[k] == NULL || c[k]->offsets == NULL || c[k]->nvars == NULL || c[k]->pfirst == NULL ||
            c[k]->nvars_total > EZ_SC_MAX_VARS || (flags[k] & ~(unsigned)EZ_PCS_OPEN_NO_PROXIMITY) != 0)
            return EZ_ERR_INVALID;
        st = check_claims(c[k], mc->cl[k], mc->nn[k]);
    }
    if (st != EZ_OK || !all_whir(c, mc->nn, ncom))
        return st;
    *batched = true;
    for (size_t k = 0; k < ncom; k++)
        if (mc->nn[k] > 0) {
            (void)open_mode(t, flags[k]);
            mc->claim[k] = absorb_claims(t, c[k], mc->cl[k], mc->nn[k], &mc->rho[k]);
        }
    return EZ_OK;
}

ez_status ez_pcs_open_multi(ez_pcs_prover *const *p, const ez_pcs_claim *const *claims, const size_t *n,
                            const unsigned *flags, size_t ncom, ez_transcript *t, ez_writer *proof)
{
    multi_claims mc = {0};
    bool batched;
    const ez_pcs_commitment **c = ez_alloc_array(ncom ? ncom : 1, sizeof *c);
    if (c == NULL)
        return EZ_ERR_NOMEM;
    for (size_t k = 0; k < ncom; k++)
        c[k] = p[k] ? &p[k]->com : NULL;
    ez_status st = multi_prepare(&mc, t, c, claims, n, flags, ncom, &batched);
    if (st == EZ_OK && batched)
        st = ez_pcs_whir_open_multi(p, mc.cl, mc.nn, mc.rho, mc.claim, ncom, t, proof);
    else
        for (size_t k = 0; k < ncom && st == EZ_OK; k++)
            if (mc.nn[k] > 0)
                st = ez_pcs_open_ex(p[k], t, claims[k], n[k], flags[k], proof);
    multi_free(&mc, ncom);
    free(c);
    return st;
}

ez_status ez_pcs_verify_multi(const ez_pcs_commitment *const *com, const ez_pcs_claim *const *claims,
                              const size_t *n, const unsigned *flags, size_t ncom, ez_transcript *t,
                              ez_reader *proof)
{
    multi_claims mc = {0};
    bool batched;
    ez_status st = multi_prepare(&mc, t, com, claims, n, flags, ncom, &batched);
    if (st == EZ_OK && batched)
        st = ez_pcs_whir_verify_multi(com, mc.cl, mc.nn, mc.rho, mc.claim, ncom, t, proof);
    else
        for (size_t k = 0; k < ncom && st == EZ_OK; k++)
            if (mc.nn[k] > 0)
                st = ez_pcs_verify_ex(com[k], t, claims[k], n[k], flags[k], proof);
    if (st == EZ_ERR_REJECT)
        proof->failed = true;
    multi_free(&mc, ncom);
    return st;
}
