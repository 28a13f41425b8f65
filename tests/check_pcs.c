/* merkle and pcs: Merkle paths and batch openings (honest and tampered), the stacking
 * layout, commitment and prover-data serialization, honest Ligero openings (one claim,
 * many claims on polynomials of different sizes), and a malicious prover for every part
 * of the proof: wrong value, tampered column, tampered Merkle path, tampered rows,
 * truncation, garbage, wrong root. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/merkle.h"
#include "lib/mle.h"
#include "lib/ntt.h"
#include "lib/pcs.h"
#include "lib/pcs_internal.h"
#include "lib/sumcheck.h"
#include "lib/whir_internal.h"
#include "tests/testutil.h"

/* ---- merkle ------------------------------------------------------------------------ */

static ez_digest rand_digest(ez_rng *r)
{
    ez_digest d;
    for (int i = 0; i < 32; i += 8) {
        uint64_t v = ez_rng_next(r);
        memcpy(d.h + i, &v, 8);
    }
    memset(d.h + EZ_MERKLE_DIGEST_BYTES, 0, sizeof d.h - EZ_MERKLE_DIGEST_BYTES);
    return d;
}

START_TEST(test_merkle_paths)
{
    ez_rng r = ez_rng_for("merkle_paths");
    for (unsigned depth = 0; depth <= 6; depth++) {
        size_t nl = (size_t)1 << depth;
        ez_digest *leaves = malloc(nl * sizeof *leaves), path[8];
        for (size_t i = 0; i < nl; i++)
            leaves[i] = rand_digest(&r);
        ez_merkle *t = NULL;
        ck_assert_int_eq(ez_merkle_new(&t, leaves, depth), EZ_OK);
        ck_assert_uint_eq(ez_merkle_depth(t), depth);
        ck_assert_mem_eq(ez_merkle_leaves(t), leaves, nl * sizeof *leaves);
        const ez_digest *root = ez_merkle_root(t);
        if (depth == 0)
            ck_assert_mem_eq(root->h, leaves[0].h, 32);
        if (depth == 1) {
            ez_digest h;
            ez_merkle_hash_node(&h, &leaves[0], &leaves[1]);
            ck_assert_mem_eq(root->h, h.h, 32);
        }
        for (size_t i = 0; i < nl; i++) {
            ez_merkle_path(t, i, path);
            ck_assert(ez_merkle_path_verify(root, depth, i, &leaves[i], path));
            /* wrong position, wrong leaf, wrong sibling */
            if (nl > 1)
                ck_assert(!ez_merkle_path_verify(root, depth, i ^ 1, &leaves[i], path));
            ck_assert(!ez_merkle_path_verify(root, depth, i + nl, &leaves[i], path));
            ez_digest bad = leaves[i];
            bad.h[5] ^= 1;
            ck_assert(!ez_merkle_path_verify(root, depth, i, &bad, path));
            if (depth > 0) {
                path[depth - 1].h[0] ^= 0x80;
                ck_assert(!ez_merkle_path_verify(root, depth, i, &leaves[i], path));
            }
        }
        ck_assert(!ez_merkle_path_verify(root, EZ_MERKLE_MAX_DEPTH + 1, 0, &leaves[0], path));
        ez_merkle_free(t);
        free(leaves);
    }
}
END_TEST

START_TEST(test_merkle_domain_separation)
{
    /* A leaf over 8 field elements hashes the same 64 payload bytes as a node over two
     * digests; the tags keep them apart. */
    ez_fe col[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ez_digest l, rr, leaf, node;
    memcpy(l.h, col, 32);
    memcpy(rr.h, col + 4, 32);
    ez_merkle_hash_leaf(&leaf, col, 8);
    ez_merkle_hash_node(&node, &l, &rr);
    ck_assert(memcmp(leaf.h, node.h, 32) != 0);
    /* Known answer: leaf of the empty column is SHA256(0x00) truncated to 26 bytes, zero tail. */
    static const uint8_t sha_00[32] = {0x6e, 0x34, 0x0b, 0x9c, 0xff, 0xb3, 0x7a, 0x98, 0x9c, 0xa5, 0x44,
                                       0xe6, 0xbb, 0x78, 0x0a, 0x2c, 0x78, 0x90, 0x1d, 0x3f, 0xb3, 0x37,
                                       0x38, 0x76, 0x85, 0x11, 0xa3, 0x06, 0x17, 0xaf, 0xa0, 0x1d};
    static const uint8_t zero6[6] = {0};
    ez_merkle_hash_leaf(&leaf, NULL, 0);
    ck_assert_mem_eq(leaf.h, sha_00, EZ_MERKLE_DIGEST_BYTES);
    ck_assert_mem_eq(leaf.h + EZ_MERKLE_DIGEST_BYTES, zero6, 6);
}
END_TEST

START_TEST(test_merkle_batch)
{
    ez_rng r = ez_rng_for("merkle_batch");
    const unsigned depth = 7;
    size_t nl = (size_t)1 << depth;
    ez_digest leaves[128], proof[128 * 7], got[128];
    for (size_t i = 0; i < nl; i++)
        leaves[i] = rand_digest(&r);
    ez_merkle *t = NULL;
    ck_assert_int_eq(ez_merkle_new(&t, leaves, depth), EZ_OK);
    const ez_digest *root = ez_merkle_root(t);
    for (int trial = 0; trial < 60; trial++) {
        /* a random sorted subset (trial 0: all leaves; trial 1: one leaf) */
        uint64_t idx[128];
        size_t n = 0;
        uint64_t keep = trial == 0 ? 1 : 1 + ez_rng_next(&r) % 8;
        for (size_t i = 0; i < nl; i++)
            if (trial == 0 || ez_rng_next(&r) % 16 < keep)
                idx[n++] = i;
        if (trial == 1) {
            idx[0] = ez_rng_next(&r) % nl;
            n = 1;
        }
        if (n == 0)
            continue;
        size_t cnt = ez_merkle_batch_count(depth, idx, n);
        ck_assert_uint_le(cnt, n * depth);
        if (trial == 0)
            ck_assert_uint_eq(cnt, 0);
        if (trial == 1)
            ck_assert_uint_eq(cnt, depth);
        ck_assert_int_eq(ez_merkle_batch_open(t, idx, n, proof), EZ_OK);
        for (size_t k = 0; k < n; k++)
            got[k] = leaves[idx[k]];
        ck_assert_int_eq(ez_merkle_batch_verify(root, depth, idx, got, n, proof, cnt), EZ_OK);
        /* the siblings through a proof's 26-byte encoding: the same opening; one byte short
         * fails the read; a root with a nonzero tail (never a tree's) matches nothing */
        ez_writer pw;
        ez_writer_init(&pw);
        ez_merkle_digests_write(&pw, proof, cnt);
        ck_assert_uint_eq(pw.len, cnt * EZ_MERKLE_DIGEST_BYTES);
        ez_digest back[128 * 7];
        ez_reader pr;
        ez_reader_init(&pr, pw.data, pw.len);
        ck_assert(ez_merkle_digests_read(&pr, back, cnt) && ez_reader_done(&pr));
        ck_assert_int_eq(ez_merkle_batch_verify(root, depth, idx, got, n, back, cnt), EZ_OK);
        if (cnt > 0) {
            ez_reader_init(&pr, pw.data, pw.len - 1);
            ck_assert(!ez_merkle_digests_read(&pr, back, cnt));
        }
        ez_writer_clear(&pw);
        ez_digest rt = *root;
        rt.h[31] ^= 1;
        ck_assert_int_eq(ez_merkle_batch_verify(&rt, depth, idx, got, n, proof, cnt), EZ_ERR_REJECT);
        /* wrong count either way */
        if (cnt > 0)
            ck_assert_int_eq(ez_merkle_batch_verify(root, depth, idx, got, n, proof, cnt - 1), EZ_ERR_REJECT);
        proof[cnt] = rand_digest(&r);
        ck_assert_int_eq(ez_merkle_batch_verify(root, depth, idx, got, n, proof, cnt + 1), EZ_ERR_REJECT);
        /* tampered sibling */
        if (cnt > 0) {
            size_t s = ez_rng_next(&r) % cnt;
            proof[s].h[EZ_MERKLE_DIGEST_BYTES - 1] ^= 4;
            ck_assert_int_eq(ez_merkle_batch_verify(root, depth, idx, got, n, proof, cnt), EZ_ERR_REJECT);
            proof[s].h[EZ_MERKLE_DIGEST_BYTES - 1] ^= 4;
        }
        /* tampered leaf */
        size_t s = ez_rng_next(&r) % n;
        got[s].h[0] ^= 1;
        ck_assert_int_eq(ez_merkle_batch_verify(root, depth, idx, got, n, proof, cnt), EZ_ERR_REJECT);
        got[s].h[0] ^= 1;
        /* leaves claimed at shifted positions */
        if (n < nl && idx[n - 1] + 1 < nl) {
            idx[n - 1]++;
            size_t c2 = ez_merkle_batch_count(depth, idx, n);
            if (c2 <= cnt)
                ck_assert_int_eq(ez_merkle_batch_verify(root, depth, idx, got, n, proof, c2), EZ_ERR_REJECT);
            idx[n - 1]--;
        }
    }
    /* malformed position lists */
    uint64_t dup[3] = {3, 3, 9}, unsorted[2] = {9, 3}, big[1] = {128};
    ck_assert_uint_eq(ez_merkle_batch_count(depth, dup, 3), SIZE_MAX);
    ck_assert_uint_eq(ez_merkle_batch_count(depth, unsorted, 2), SIZE_MAX);
    ck_assert_uint_eq(ez_merkle_batch_count(depth, big, 1), SIZE_MAX);
    ck_assert_uint_eq(ez_merkle_batch_count(depth, big, 0), SIZE_MAX);
    ck_assert_int_eq(ez_merkle_batch_verify(root, depth, dup, leaves, 3, proof, 10), EZ_ERR_REJECT);
    ck_assert_int_eq(ez_merkle_batch_verify(root, depth, unsorted, leaves, 2, proof, 10), EZ_ERR_REJECT);
    ck_assert_int_eq(ez_merkle_batch_verify(root, depth, big, leaves, 1, proof, 7), EZ_ERR_REJECT);
    ck_assert_int_eq(ez_merkle_batch_open(t, unsorted, 2, proof), EZ_ERR_INVALID);
    ez_merkle_free(t);
}
END_TEST

/* ---- pcs helpers -------------------------------------------------------------------- */

static ez_status verify_bytes(const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n, const uint8_t *data,
                              size_t len, bool *consumed)
{
    ez_transcript t;
    ez_transcript_init(&t, "check_pcs");
    ez_pcs_commitment_absorb(&t, com);
    ez_reader rd;
    ez_reader_init(&rd, data, len);
    ez_status st = ez_pcs_verify(com, &t, cl, n, &rd);
    if (consumed)
        *consumed = ez_reader_done(&rd);
    return st;
}

static void open_to(ez_pcs_prover *p, const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n,
                    ez_writer *w)
{
    ez_transcript t;
    ez_transcript_init(&t, "check_pcs");
    ez_pcs_commitment_absorb(&t, com);
    ez_writer_init(w);
    ck_assert_int_eq(ez_pcs_open(p, &t, cl, n, w), EZ_OK);
    ck_assert(!w->failed);
}

/* Bytes of the batching part at the front of a proof (0 for the direct path): the
 * column sumcheck over (group, column), one value per group of equal column vectors,
 * the row sumcheck (docs/protocol-kernel-pcs.md §4). */
static size_t sumcheck_bytes(const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n, bool batched)
{
    if (!batched)
        return 0;
    unsigned lc = com->log_cols, lr = com->nvars_total - lc;
    uint64_t cols = (uint64_t)1 << lc;
    /* the column vectors: (point suffix, its length, column offset, entries) */
    struct {
        const ez_fe2 *z;
        unsigned nz;
        uint64_t co, lim;
    } g[64];
    size_t ng = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = cl[k].poly;
        unsigned nv = com->nvars[i];
        for (uint64_t pc = com->pfirst[i]; pc < com->pfirst[i + 1]; pc++) {
            /* a piece of 2^b entries: its column vector is eq(the last min(b, lc) coords) */
            unsigned b = com->pbits[pc];
            const ez_fe2 *z = cl[k].point + nv - (b > lc ? lc : b);
            unsigned nz = b > lc ? lc : b;
            uint64_t co = b > lc ? 0 : com->poff[pc] & (cols - 1), lim = b > lc ? cols : (uint64_t)1 << b;
            size_t j = 0;
            while (j < ng && !(g[j].nz == nz && g[j].co == co && g[j].lim == lim &&
                               (nz == 0 || !memcmp(g[j].z, z, nz * sizeof *z))))
                j++;
            if (j == ng) {
                ck_assert_uint_lt(ng, 64);
                g[ng].z = z, g[ng].nz = nz, g[ng].co = co, g[ng].lim = lim;
                ng++;
            }
        }
    }
    /* the column sumcheck (groups and columns), the groups' values, the row sumcheck */
    unsigned nv1 = ez_log2_ceil(ng) + lc;
    ez_sumcheck_desc d;
    ez_sumcheck_desc_init(&d, nv1, 2);
    return (size_t)nv1 * ez_sumcheck_degree(&d) * 16 + 2 * 16 + 16 * ng + (size_t)lr * ez_sumcheck_degree(&d) * 16 +
           2 * 16;
}

/* Add 1 (mod p) to the canonical field element stored at off. */
static void bump_fe(uint8_t *data, size_t off)
{
    uint64_t v;
    memcpy(&v, data + off, 8);
    v = ez_fe_add(v, 1);
    memcpy(data + off, &v, 8);
}

/* Every malicious variant of an honest proof must be rejected. */
static void check_tampering(const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n, const ez_writer *w,
                            bool batched, ez_rng *r)
{
    size_t len = w->len, cols = (size_t)1 << com->log_cols;
    uint8_t *buf = malloc(len + 64);
    size_t sc = sumcheck_bytes(com, cl, n, batched);
    size_t rows_off = sc, cols_off = sc + 32 * cols;
    ck_assert_uint_gt(len, cols_off + 8 * com->rows + 32);

    /* honest, and exactly consumed */
    bool consumed = false;
    ck_assert_int_eq(verify_bytes(com, cl, n, w->data, len, &consumed), EZ_OK);
    ck_assert(consumed);

    /* wrong claimed value (each claim in turn) */
    ez_pcs_claim bad[8];
    for (size_t k = 0; k < n; k++) {
        memcpy(bad, cl, n * sizeof *cl);
        bad[k].value = ez_fe2_add(bad[k].value, ez_fe2_make(0, 1));
        ck_assert_int_eq(verify_bytes(com, bad, n, w->data, len, NULL), EZ_ERR_REJECT);
    }
    /* a claim moved to another point */
    memcpy(bad, cl, n * sizeof *cl);
    ez_fe2 pt[40];
    unsigned nv0 = com->nvars[cl[0].poly];
    if (nv0 > 0) {
        memcpy(pt, cl[0].point, nv0 * sizeof *pt);
        pt[0] = ez_fe2_add(pt[0], ez_fe2_one());
        bad[0].point = pt;
        ck_assert_int_eq(verify_bytes(com, bad, n, w->data, len, NULL), EZ_ERR_REJECT);
    }

    /* tampered sumcheck round, eval row, proximity row, column entry, Merkle digest */
    size_t spots[6];
    size_t ns = 0;
    if (batched)
        spots[ns++] = 16 * (ez_rng_next(r) % (sc / 16));
    spots[ns++] = rows_off + 16 * (ez_rng_next(r) % cols);
    spots[ns++] = rows_off + 16 * cols + 16 * (ez_rng_next(r) % cols) + 8;
    spots[ns++] = cols_off;
    spots[ns++] = cols_off + 8 * (size_t)(ez_rng_next(r) % com->rows);
    for (size_t s = 0; s < ns; s++) {
        memcpy(buf, w->data, len);
        bump_fe(buf, spots[s]);
        ck_assert_int_eq(verify_bytes(com, cl, n, buf, len, NULL), EZ_ERR_REJECT);
    }
    memcpy(buf, w->data, len);
    buf[len - 1] ^= 0x01; /* last Merkle sibling */
    ck_assert_int_eq(verify_bytes(com, cl, n, buf, len, NULL), EZ_ERR_REJECT);
    memcpy(buf, w->data, len);
    buf[len - 33] ^= 0x10;
    ck_assert_int_eq(verify_bytes(com, cl, n, buf, len, NULL), EZ_ERR_REJECT);
    /* a non-canonical element (p itself) in the eval row */
    memcpy(buf, w->data, len);
    uint64_t pv = EZ_P;
    memcpy(buf + rows_off, &pv, 8);
    ck_assert_int_eq(verify_bytes(com, cl, n, buf, len, NULL), EZ_ERR_REJECT);

    /* truncated anywhere (a sample of cut points, including every region) */
    size_t cuts[] = {0, 1, sc, rows_off + 7, cols_off - 1, cols_off + 5, len - 32, len - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++)
        if (cuts[c] < len)
            ck_assert_int_eq(verify_bytes(com, cl, n, w->data, cuts[c], NULL), EZ_ERR_REJECT);
    /* trailing garbage is left unread (the caller's reader is not done) */
    memcpy(buf, w->data, len);
    buf[len] = 0xAB;
    ck_assert_int_eq(verify_bytes(com, cl, n, buf, len + 1, &consumed), EZ_OK);
    ck_assert(!consumed);

    /* random garbage of the right length and of other lengths */
    for (int g = 0; g < 3; g++) {
        size_t gl = g == 0 ? len : (size_t)(ez_rng_next(r) % (len + 64));
        for (size_t i = 0; i < gl; i++)
            buf[i] = (uint8_t)ez_rng_next(r);
        ck_assert_int_eq(verify_bytes(com, cl, n, buf, gl, NULL), EZ_ERR_REJECT);
    }

    /* random single-byte flips anywhere */
    for (int f = 0; f < 40; f++) {
        memcpy(buf, w->data, len);
        size_t at = (size_t)(ez_rng_next(r) % len);
        buf[at] ^= (uint8_t)(1u << (ez_rng_next(r) % 8));
        ck_assert_int_eq(verify_bytes(com, cl, n, buf, len, NULL), EZ_ERR_REJECT);
    }

    /* wrong commitment root */
    ez_pcs_commitment c2;
    ck_assert_int_eq(ez_pcs_commitment_copy(&c2, com), EZ_OK);
    c2.root[7] ^= 0x40;
    ck_assert_int_eq(verify_bytes(&c2, cl, n, w->data, len, NULL), EZ_ERR_REJECT);
    ez_pcs_commitment_clear(&c2);
    free(buf);
}

/* ---- pcs tests ----------------------------------------------------------------------- */

START_TEST(test_pcs_layout)
{
    uint64_t lens[5] = {5, 4096, 3, 1000, 1};
    ez_pcs_commitment c;
    memset(&c, 0, sizeof c);
    c.npolys = 5;
    c.lens = lens;
    ck_assert_int_eq(ez_pcs_layout(&c), EZ_OK);
    /* pieces: 5 = 4 + 1, 4096, 3 = 2 + 1, 1000 = 512 + 256 + 128 + 64 + 32 + 8, 1; laid
     * out by decreasing size (ties by polynomial): 4096 (1) | 512 256 128 64 32 (3) |
     * 8 (3) | 4 (0) | 2 (2) | 1 (0) 1 (2) 1 (4): no padding, 5105 entries */
    ck_assert_uint_eq(c.npieces, 2 + 1 + 2 + 6 + 1);
    ck_assert_uint_eq(c.offsets[1], 0);
    ck_assert_uint_eq(c.offsets[3], 4096);
    ck_assert_uint_eq(c.poff[c.pfirst[3] + 5], 4096 + 992);
    ck_assert_uint_eq(c.pstart[c.pfirst[3] + 5], 992);
    ck_assert_uint_eq(c.offsets[0], 5096);
    ck_assert_uint_eq(c.offsets[2], 5100);
    ck_assert_uint_eq(c.poff[c.pfirst[0] + 1], 5102);
    ck_assert_uint_eq(c.poff[c.pfirst[2] + 1], 5103);
    ck_assert_uint_eq(c.offsets[4], 5104);
    ck_assert_uint_eq(c.nvars[0], 3);
    ck_assert_uint_eq(c.nvars[4], 0);
    for (size_t j = 0; j < c.npieces; j++)
        ck_assert_uint_eq(c.poff[j] % ((uint64_t)1 << c.pbits[j]), 0);
    ck_assert_uint_eq(c.log_cols, ez_pcs_log_cols_rule(5105));
    ck_assert_uint_eq(c.rows, (5105 + (1u << c.log_cols) - 1) >> c.log_cols);
    ck_assert_uint_eq(c.nvars_total, ez_log2_ceil(c.rows) + c.log_cols);
    c.lens = NULL;
    ez_pcs_commitment_clear(&c);
    /* invalid layouts */
    uint64_t zero[2] = {3, 0};
    c.lens = zero;
    c.npolys = 2;
    ck_assert_int_eq(ez_pcs_layout(&c), EZ_ERR_INVALID);
    c.npolys = 0;
    ck_assert_int_eq(ez_pcs_layout(&c), EZ_ERR_INVALID);
    /* the size rule at the benchmark size: 2^14 columns of 2^8 rows */
    ck_assert_uint_eq(ez_pcs_log_cols_rule((uint64_t)1 << 22), 14);
    ck_assert_uint_eq(ez_pcs_log_cols_rule(1), 1);
}
END_TEST

/* The "committed" case's checked fixture: a random source and the Ligero commitment to
 * random polys the test asks for (ligero_commit), freed after each test. */
static struct {
    ez_rng r;
    ez_test_committed cm;
} fx;

static void committed_setup(void)
{
    fx.r = ez_rng_for("pcs_committed");
    memset(&fx.cm, 0, sizeof fx.cm);
}

static void committed_teardown(void)
{
    ez_test_committed_free(&fx.cm);
}

/* Commit fx.cm to n random polys of lengths lens[0..n) (with fx.r). */
static void ligero_commit(const uint64_t *lens, size_t n)
{
    ez_test_commit(&fx.cm, &fx.r, lens, n, EZ_PCS_SCHEME_LIGERO);
}

START_TEST(test_pcs_commitment_io)
{
    ligero_commit((const uint64_t[]){300, 17, 64}, 3);
    ck_assert_mem_eq(fx.cm.com.root, ez_pcs_prover_commitment(fx.cm.p)->root, 32);
    ez_writer w;
    ez_writer_init(&w);
    ez_pcs_commitment_write(&w, &fx.cm.com);
    ck_assert(!w.failed);
    ez_reader rd;
    ez_pcs_commitment c2;
    ez_reader_init(&rd, w.data, w.len);
    ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c2), EZ_OK);
    ck_assert(ez_reader_done(&rd));
    ck_assert_mem_eq(c2.root, fx.cm.com.root, 32);
    ck_assert_uint_eq(c2.npolys, 3);
    ck_assert_uint_eq(c2.rows, fx.cm.com.rows);
    ck_assert_uint_eq(c2.log_cols, fx.cm.com.log_cols);
    for (size_t i = 0; i < 3; i++)
        ck_assert_uint_eq(c2.offsets[i], fx.cm.com.offsets[i]);
    ez_pcs_commitment_clear(&c2);
    /* every truncation fails */
    for (size_t cut = 0; cut < w.len; cut++) {
        ez_reader_init(&rd, w.data, cut);
        ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c2), EZ_ERR_FORMAT);
        ck_assert_uint_eq(c2.npolys, 0);
    }
    /* bad scheme id, wrong log_cols, an absurd npolys (an unterminated LEB128); the
     * runs' own checks are test_pcs_commitment_runs */
    uint8_t *b = malloc(w.len);
    for (int k = 0; k < 3; k++) {
        memcpy(b, w.data, w.len);
        if (k == 2)
            memset(b + 5, 0xff, 10);
        else
            b[k] ^= 1;
        ez_reader_init(&rd, b, w.len);
        ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c2), EZ_ERR_FORMAT);
    }
    free(b);
    ez_writer_clear(&w);
}
END_TEST

/* n <= 8 claims on polys which[0..n) of cm at random points, opened (through the batching
 * sumcheck when batched): the honest opening verifies, every tampered variant of it is
 * rejected (check_tampering). */
static void open_claims_tampered(ez_test_committed *cm, ez_rng *r, const size_t *which, size_t n, bool batched)
{
    ez_pcs_claim cl[8];
    ez_fe2 pts[8][EZ_TEST_MAXVARS];
    ez_test_pcs_claims(cl, pts, r, &cm->ps, which, n);
    ez_writer w;
    open_to(cm->p, &cm->com, cl, n, &w);
    check_tampering(&cm->com, cl, n, &w, batched, r);
    ez_writer_clear(&w);
}

START_TEST(test_pcs_single_claim)
{
    /* One polynomial, one claim: the direct opening (no sumcheck). */
    ligero_commit((const uint64_t[]){(uint64_t)1 << 14}, 1);
    open_claims_tampered(&fx.cm, &fx.r, (const size_t[]){0}, 1, false);
}
END_TEST

START_TEST(test_pcs_single_slot_in_stack)
{
    /* One claim on a full power-of-two polynomial that is not first in the stack. */
    ligero_commit((const uint64_t[]){1000, 256, 2048}, 3);
    ck_assert_uint_ne(fx.cm.com.offsets[1], 0);
    open_claims_tampered(&fx.cm, &fx.r, (const size_t[]){1}, 1, false);
}
END_TEST

START_TEST(test_pcs_batched_claims)
{
    /* Several polynomials of different sizes (non-powers of two included), several
     * claims at different points, two on the same polynomial. */
    ligero_commit((const uint64_t[]){1000, 4096, 37, 1, 300}, 5);
    open_claims_tampered(&fx.cm, &fx.r, (const size_t[]){0, 1, 2, 3, 4, 0}, 6, true);
    /* one claim on a padded polynomial goes through the sumcheck too */
    open_claims_tampered(&fx.cm, &fx.r, (const size_t[]){2}, 1, true);
}
END_TEST

/* LG-bsum, LG-vsum, LG-asum: the batched opening's sumchecks run over another B (the
 * claims' public column weights), another V (the rows' column combinations) or another A
 * (the public row weights), each changed at two entries so that its sum and every round
 * still hold (testutil.h ez_test_forge_factor): only the verifier's own B, its combination
 * of the sent group values, or its own A at the final point tells. (The PCS verifier
 * reports a rejection by its status alone.) */
typedef struct {
    unsigned call, factor, seen;
    ez_sumcheck_factor f[2];
    ez_fe2 *table;
} lg_forge;

static const ez_sumcheck_factor *lg_forge_hook(void *ctx, const ez_sumcheck_desc *d, const ez_sumcheck_factor *f)
{
    lg_forge *g = ctx;
    if (g->seen++ != g->call)
        return NULL;
    ck_assert_uint_eq(d->nfactors, 2);
    return ez_test_forge_factor(d, NULL, NULL, f, g->factor, g->f, &g->table);
}

START_TEST(test_pcs_batched_forged_factors)
{
    ligero_commit((const uint64_t[]){1000, 37, 300}, 3);
    ez_pcs_claim cl[4];
    ez_fe2 pts[8][EZ_TEST_MAXVARS];
    size_t which[4] = {0, 1, 2, 0};
    ez_test_pcs_claims(cl, pts, &fx.r, &fx.cm.ps, which, 4);
    ez_writer w;
    open_to(fx.cm.p, &fx.cm.com, cl, 4, &w);
    ck_assert_int_eq(verify_bytes(&fx.cm.com, cl, 4, w.data, w.len, NULL), EZ_OK);
    ez_writer_clear(&w);
    /* (sumcheck, factor): (0, 0) B, (0, 1) V, (1, 0) A */
    static const unsigned cases[3][2] = {{0, 0}, {0, 1}, {1, 0}};
    for (int k = 0; k < 3; k++) {
        lg_forge g = {.call = cases[k][0], .factor = cases[k][1]};
        fx.cm.p->test_sumcheck_hook = lg_forge_hook;
        fx.cm.p->test_sumcheck_ctx = &g;
        open_to(fx.cm.p, &fx.cm.com, cl, 4, &w);
        ck_assert_ptr_nonnull(g.table);
        ck_assert_msg(verify_bytes(&fx.cm.com, cl, 4, w.data, w.len, NULL) == EZ_ERR_REJECT, "forged (%u, %u) accepted",
                      cases[k][0], cases[k][1]);
        ez_writer_clear(&w);
        free(g.table);
    }
    fx.cm.p->test_sumcheck_hook = NULL;
}
END_TEST

/* EZ_PCS_OPEN_NO_PROXIMITY: no proximity row (the caller tested the commitment's
 * proximity with an earlier full opening); the mode is bound to the transcript, and the
 * evaluation row and columns are still checked. */
/* Entries committed: the sum of the lengths (no padding). */
static uint64_t stacked_total(const ez_pcs_commitment *c)
{
    uint64_t t = 0;
    for (uint64_t i = 0; i < c->npolys; i++)
        t += c->lens[i];
    return t;
}

START_TEST(test_pcs_no_proximity)
{
    ligero_commit((const uint64_t[]){3000, 4096, 37, 300}, 4);
    ez_pcs_claim cl[5];
    ez_fe2 pts[8][EZ_TEST_MAXVARS];
    size_t which[5] = {0, 1, 2, 3, 0};
    ez_test_pcs_claims(cl, pts, &fx.r, &fx.cm.ps, which, 5);
    for (int direct = 0; direct < 2; direct++) {
        /* batched (5 claims), then the direct path (one claim on the full 4096 poly) */
        const ez_pcs_claim *c = direct ? cl + 1 : cl;
        size_t n = direct ? 1 : 5;
        ez_writer w, wf;
        ez_transcript t;
        ez_transcript_init(&t, "check_pcs");
        ez_pcs_commitment_absorb(&t, &fx.cm.com);
        ez_writer_init(&w);
        ck_assert_int_eq(ez_pcs_open_ex(fx.cm.p, &t, c, n, EZ_PCS_OPEN_NO_PROXIMITY, &w), EZ_OK);
        open_to(fx.cm.p, &fx.cm.com, c, n, &wf);
        ck_assert_uint_lt(w.len, wf.len); /* no w row (the queries differ: another transcript) */
        ez_reader rd;
        for (int mode = 0; mode < 2; mode++) {
            ez_transcript_init(&t, "check_pcs");
            ez_pcs_commitment_absorb(&t, &fx.cm.com);
            ez_reader_init(&rd, w.data, w.len);
            ez_status st = ez_pcs_verify_ex(&fx.cm.com, &t, c, n, mode ? EZ_PCS_OPEN_NO_PROXIMITY : 0, &rd);
            ck_assert_int_eq(st, mode ? EZ_OK : EZ_ERR_REJECT);
            if (mode)
                ck_assert(ez_reader_done(&rd));
        }
        /* a full opening does not verify in the no-proximity mode */
        ez_transcript_init(&t, "check_pcs");
        ez_pcs_commitment_absorb(&t, &fx.cm.com);
        ez_reader_init(&rd, wf.data, wf.len);
        ck_assert_int_ne(ez_pcs_verify_ex(&fx.cm.com, &t, c, n, EZ_PCS_OPEN_NO_PROXIMITY, &rd), EZ_OK);
        /* wrong values, flipped bytes anywhere, truncations */
        ez_pcs_claim bad[5];
        memcpy(bad, c, n * sizeof *c);
        bad[0].value = ez_fe2_add(bad[0].value, ez_fe2_one());
        ez_transcript_init(&t, "check_pcs");
        ez_pcs_commitment_absorb(&t, &fx.cm.com);
        ez_reader_init(&rd, w.data, w.len);
        ck_assert_int_eq(ez_pcs_verify_ex(&fx.cm.com, &t, bad, n, EZ_PCS_OPEN_NO_PROXIMITY, &rd), EZ_ERR_REJECT);
        uint8_t *buf = malloc(w.len);
        for (int f = 0; f < 40; f++) {
            memcpy(buf, w.data, w.len);
            size_t at = (size_t)(ez_rng_next(&fx.r) % w.len);
            buf[at] ^= (uint8_t)(1u << (ez_rng_next(&fx.r) % 8));
            ez_transcript_init(&t, "check_pcs");
            ez_pcs_commitment_absorb(&t, &fx.cm.com);
            ez_reader_init(&rd, buf, w.len);
            ck_assert_int_eq(ez_pcs_verify_ex(&fx.cm.com, &t, c, n, EZ_PCS_OPEN_NO_PROXIMITY, &rd), EZ_ERR_REJECT);
        }
        for (size_t cut = 0; cut < w.len; cut += w.len / 11 + 1) {
            ez_transcript_init(&t, "check_pcs");
            ez_pcs_commitment_absorb(&t, &fx.cm.com);
            ez_reader_init(&rd, w.data, cut);
            ck_assert_int_eq(ez_pcs_verify_ex(&fx.cm.com, &t, c, n, EZ_PCS_OPEN_NO_PROXIMITY, &rd), EZ_ERR_REJECT);
        }
        free(buf);
        ez_writer_clear(&w);
        ez_writer_clear(&wf);
    }
    ez_transcript t;
    ez_transcript_init(&t, "check_pcs");
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_pcs_open_ex(fx.cm.p, &t, cl, 5, 2, &w), EZ_ERR_INVALID); /* unknown flag */
    ez_writer_clear(&w);
    /* scheme 2 ("proximity tested once"): its own row-length rule, read back as written,
     * and a stored log_cols of the other scheme's rule is malformed */
    ez_pcs_prover *p2 = NULL;
    ez_pcs_commitment c2, c3;
    const ez_fe *const *polys = (const ez_fe *const *)fx.cm.ps.polys;
    ck_assert_int_eq(ez_pcs_commit_scheme(&p2, &c2, polys, fx.cm.ps.lens, 4, 9), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_pcs_commit_scheme(&p2, &c2, polys, fx.cm.ps.lens, 4, EZ_PCS_SCHEME_LIGERO_P1), EZ_OK);
    ck_assert_uint_eq(c2.scheme, EZ_PCS_SCHEME_LIGERO_P1);
    ck_assert_uint_eq(c2.log_cols, ez_pcs_log_cols_rule_scheme(3000 + 4096 + 37 + 300, EZ_PCS_SCHEME_LIGERO_P1));
    /* 3 x 2^20 entries (the GPT-2-small attention weights): 2^13 columns, or 2^14 when
     * the openings send one row */
    ck_assert_uint_eq(ez_pcs_log_cols_rule(3 * ((uint64_t)1 << 20)), 13);
    ck_assert_uint_eq(ez_pcs_log_cols_rule_scheme(3 * ((uint64_t)1 << 20), EZ_PCS_SCHEME_LIGERO_P1), 14);
    ez_writer_init(&w);
    ez_pcs_commitment_write(&w, &c2);
    ez_reader rd;
    ez_reader_init(&rd, w.data, w.len);
    ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c3), EZ_OK);
    ck_assert_uint_eq(c3.scheme, EZ_PCS_SCHEME_LIGERO_P1);
    ck_assert_uint_eq(c3.log_cols, c2.log_cols);
    ez_pcs_commitment_clear(&c3);
    w.data[0] = EZ_PCS_SCHEME_LIGERO; /* the same bytes as a scheme-1 commitment */
    ez_reader_init(&rd, w.data, w.len);
    if (ez_pcs_log_cols_rule(stacked_total(&c2)) != c2.log_cols)
        ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c3), EZ_ERR_FORMAT);
    ez_writer_clear(&w);
    ez_pcs_commitment_clear(&c2);
    ez_pcs_prover_free(p2);
}
END_TEST

START_TEST(test_pcs_padding_not_trusted)
{
    /* Claims are about the zero-padded polynomial and nothing past len is committed
     * (a polynomial is stacked as its binary pieces): a value that counts anything in
     * positions 1000..1023 is rejected, the zero-padded value accepted. */
    ez_rng r = ez_rng_for("pcs_padding_not_trusted");
    ez_test_polys ps;
    uint64_t lens[2] = {1024, 512};
    ez_test_polys_make(&ps, &r, lens, 2);
    ez_pcs_prover *p = NULL;
    ez_pcs_commitment com;
    uint64_t short_lens[2] = {1000, 512};
    ck_assert_int_eq(ez_pcs_commit(&p, &com, (const ez_fe *const *)ps.polys, short_lens, 2), EZ_OK);
    ck_assert_uint_eq(com.rows * ((uint64_t)1 << com.log_cols) >= 1512, 1);
    ck_assert_uint_eq(com.npieces, 6 + 1);
    ez_fe2 pt[10];
    for (int v = 0; v < 10; v++)
        pt[v] = ez_rng_fe2(&r);
    ez_pcs_claim cl = {0, pt, ez_mle_eval_fe(ps.polys[0], 1024, pt, 10)};
    ez_writer w;
    /* the junk-inclusive value is rejected ... */
    open_to(p, &com, &cl, 1, &w);
    ck_assert_int_eq(verify_bytes(&com, &cl, 1, w.data, w.len, NULL), EZ_ERR_REJECT);
    ez_writer_clear(&w);
    /* ... the value of the 1000 real entries is accepted */
    cl.value = ez_mle_eval_fe(ps.polys[0], 1000, pt, 10);
    open_to(p, &com, &cl, 1, &w);
    ck_assert_int_eq(verify_bytes(&com, &cl, 1, w.data, w.len, NULL), EZ_OK);
    ez_writer_clear(&w);
    ez_pcs_commitment_clear(&com);
    ez_pcs_prover_free(p);
    ez_test_polys_free(&ps);
}
END_TEST

START_TEST(test_pcs_prover_io)
{
    ligero_commit((const uint64_t[]){700, 1 << 12}, 2);
    ez_pcs_prover *q = NULL;
    ez_writer w;
    ez_writer_init(&w);
    ez_pcs_prover_write(&w, fx.cm.p);
    ez_pcs_polys_src src = ez_test_polys_src(&fx.cm.ps);
    ck_assert(!w.failed);
    ez_reader rd;
    ez_reader_init(&rd, w.data, w.len);
    ck_assert_int_eq(ez_pcs_prover_read(&rd, &q, &src), EZ_OK);
    ck_assert(ez_reader_done(&rd));
    ck_assert_mem_eq(ez_pcs_prover_commitment(q)->root, fx.cm.com.root, 32);
    /* the loaded prover opens identically (direct path: one claim on the 2^12 poly) */
    ez_pcs_claim cl[1];
    ez_fe2 pts[8][EZ_TEST_MAXVARS];
    size_t which[1] = {1};
    ez_test_pcs_claims(cl, pts, &fx.r, &fx.cm.ps, which, 1);
    ez_writer w1, w2;
    open_to(fx.cm.p, &fx.cm.com, cl, 1, &w1);
    open_to(q, &fx.cm.com, cl, 1, &w2);
    ck_assert_uint_eq(w1.len, w2.len);
    ck_assert_mem_eq(w1.data, w2.data, w1.len);
    ck_assert_int_eq(verify_bytes(&fx.cm.com, cl, 1, w2.data, w2.len, NULL), EZ_OK);
    ez_writer_clear(&w1);
    ez_writer_clear(&w2);
    ez_pcs_prover_free(q);
    q = NULL;
    /* truncations (a sample), a non-canonical matrix entry, a tampered leaf digest */
    size_t cuts[] = {0, 10, 40, w.len / 2, w.len - 32, w.len - 1};
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        ez_reader_init(&rd, w.data, cuts[c]);
        ck_assert_int_eq(ez_pcs_prover_read(&rd, &q, &src), EZ_ERR_FORMAT);
        ck_assert_ptr_null(q);
    }
    uint8_t *b = malloc(w.len);
    ez_writer cw;
    ez_writer_init(&cw);
    ez_pcs_commitment_write(&cw, &fx.cm.com);
    size_t enc_off = cw.len + 8;
    ez_writer_clear(&cw);
    memcpy(b, w.data, w.len);
    memset(b + enc_off + 8 * 5, 0xff, 8);
    ez_reader_init(&rd, b, w.len);
    ck_assert_int_eq(ez_pcs_prover_read(&rd, &q, &src), EZ_ERR_FORMAT);
    memcpy(b, w.data, w.len);
    b[w.len - 1] ^= 1;
    ez_reader_init(&rd, b, w.len);
    ck_assert_int_eq(ez_pcs_prover_read(&rd, &q, &src), EZ_ERR_FORMAT);
    free(b);
    ez_writer_clear(&w);
}
END_TEST

/* The point of poly's claim at z in the whole stacked cube, into r (nvars_total entries):
 * its slot's bits (most significant first), then z (docs/protocol-kernel-pcs.md §2). */
static void full_point(ez_fe2 *r, const ez_pcs_commitment *com, size_t poly, const ez_fe2 *z)
{
    unsigned nv = com->nvars[poly], top = com->nvars_total - nv;
    uint64_t slot = com->offsets[poly] >> nv;
    for (unsigned l = 0; l < top; l++)
        r[l] = ez_fe2_from_fe((slot >> (top - 1 - l)) & 1);
    memcpy(r + top, z, nv * sizeof *z);
}

/* The opening's column queries from t, as the verifier draws them: EZ_PCS_QUERIES
 * indices below ncode, sorted, repeats dropped, into q; their number. */
static size_t draw_queries(ez_transcript *t, size_t ncode, uint64_t *q)
{
    size_t nq = 0;
    for (size_t k = 0; k < EZ_PCS_QUERIES; k++) {
        uint64_t v = ez_transcript_challenge_index(t, "pcs/query", ncode);
        size_t at = 0;
        while (at < nq && q[at] < v)
            at++;
        if (at < nq && q[at] == v)
            continue;
        memmove(q + at + 1, q + at, (nq - at) * sizeof *q);
        q[at] = v;
        nq++;
    }
    return nq;
}

/* The queried columns of enc (column-major, com->rows entries each) and their batched
 * Merkle paths in tree, as an opening ends. */
static void write_columns(ez_writer *out, const ez_fe *enc, const ez_merkle *tree, const ez_pcs_commitment *com,
                          const uint64_t *q, size_t nq)
{
    for (size_t k = 0; k < nq; k++)
        for (size_t i = 0; i < (size_t)com->rows; i++)
            ez_writer_u64(out, enc[q[k] * com->rows + i]);
    size_t nmp = ez_merkle_batch_count(com->log_cols + 2, q, nq);
    ez_digest *mp = malloc((nmp + 1) * sizeof *mp);
    ck_assert_int_eq(ez_merkle_batch_open(tree, q, nq, mp), EZ_OK);
    ez_merkle_digests_write(out, mp, nmp);
    free(mp);
}

/* An independent implementation of the direct-path prover from the documented format
 * (docs/protocol-kernel-pcs.md §2-3) over an encoded matrix enc (column-major: column j
 * holds rows entries) and its Merkle tree. It claims `claimed` and sends the evaluation
 * row computed from enc with y_shift added to y[0]; with prox it also sends the
 * proximity row (a full opening), else it opens in the EZ_PCS_OPEN_NO_PROXIMITY mode. */
static void ligero_open_raw(const ez_fe *enc, const ez_merkle *tree, const ez_pcs_commitment *com, size_t poly,
                            const ez_fe2 *z, ez_fe2 claimed, ez_fe2 y_shift, bool prox, ez_writer *out)
{
    size_t cols = (size_t)1 << com->log_cols, ncode = 4 * cols, rows = (size_t)com->rows;
    unsigned lr = com->nvars_total - com->log_cols, nv = com->nvars[poly];
    ez_transcript t;
    ez_transcript_init(&t, "check_pcs");
    ez_pcs_commitment_absorb(&t, com);
    if (!prox)
        ez_transcript_absorb_u64(&t, "pcs/mode", EZ_PCS_OPEN_NO_PROXIMITY);
    ez_transcript_absorb_u64(&t, "pcs/nclaims", 1);
    ez_transcript_absorb_u64(&t, "pcs/claim-poly", poly);
    ez_transcript_absorb_fe2(&t, "pcs/claim-point", z, nv);
    ez_transcript_absorb_fe2(&t, "pcs/claim-value", &claimed, 1);
    (void)ez_transcript_challenge_fe2(&t, "pcs/rho");
    ez_fe2 r[64];
    full_point(r, com, poly, z);
    ez_fe2 *e = malloc(((size_t)1 << lr) * sizeof *e);
    ez_fe2 *a = malloc(rows * sizeof *a), *y = calloc(cols, sizeof *y), *w = calloc(cols, sizeof *w);
    ez_eq_table(e, r, lr);
    if (prox)
        ez_transcript_challenges_fe2(&t, "pcs/proximity", a, rows);
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++) {
            y[j] = ez_fe2_add(y[j], ez_fe2_mul_fe(e[i], enc[j * rows + i]));
            if (prox)
                w[j] = ez_fe2_add(w[j], ez_fe2_mul_fe(a[i], enc[j * rows + i]));
        }
    y[0] = ez_fe2_add(y[0], y_shift);
    for (size_t j = 0; j < cols; j++) {
        ez_writer_u64(out, y[j].c0);
        ez_writer_u64(out, y[j].c1);
    }
    if (prox)
        for (size_t j = 0; j < cols; j++) {
            ez_writer_u64(out, w[j].c0);
            ez_writer_u64(out, w[j].c1);
        }
    ez_transcript_absorb_fe2(&t, "pcs/eval-row", y, cols);
    if (prox)
        ez_transcript_absorb_fe2(&t, "pcs/proximity-row", w, cols);
    uint64_t q[EZ_PCS_QUERIES];
    size_t nq = draw_queries(&t, ncode, q);
    write_columns(out, enc, tree, com, q, nq);
    free(e);
    free(a);
    free(y);
    free(w);
}

/* The encoded matrix and its Merkle tree, read from the prover data (the documented
 * format): *enc (caller frees) and *tree (ez_merkle_free). */
static void prover_matrix(const uint8_t *pk, size_t pklen, const ez_pcs_commitment *com, ez_fe **enc,
                          ez_merkle **tree)
{
    size_t cols = (size_t)1 << com->log_cols, ncode = 4 * cols, rows = (size_t)com->rows;
    ez_writer cw;
    ez_writer_init(&cw);
    ez_pcs_commitment_write(&cw, com);
    size_t off = cw.len + 8;
    ez_writer_clear(&cw);
    ck_assert_uint_eq(pklen, off + 8 * ncode * rows + 32 * ncode);
    *enc = malloc(8 * ncode * rows);
    memcpy(*enc, pk + off, 8 * ncode * rows);
    *tree = NULL;
    ck_assert_int_eq(ez_merkle_new(tree, (const ez_digest *)(pk + off + 8 * ncode * rows), com->log_cols + 2), EZ_OK);
    ck_assert_mem_eq(ez_merkle_root(*tree)->h, com->root, 32);
}

/* The direct-path prover of the prover data pk. With lie != 0 it claims value + lie and
 * shifts y[0] so that the evaluation check <eq(r_col), y> = value + lie passes: only the
 * column checks can catch it. */
static void reimplemented_open(const uint8_t *pk, size_t pklen, const ez_pcs_commitment *com, size_t poly,
                               const ez_fe2 *z, ez_fe2 value, ez_fe lie, ez_writer *out, ez_pcs_claim *claim)
{
    ez_fe *enc;
    ez_merkle *tree;
    prover_matrix(pk, pklen, com, &enc, &tree);
    unsigned lr = com->nvars_total - com->log_cols;
    ez_fe2 r[64], *ec = malloc(((size_t)1 << com->log_cols) * sizeof *ec);
    full_point(r, com, poly, z);
    ez_eq_table(ec, r + lr, com->log_cols);
    claim->poly = poly;
    claim->point = z;
    claim->value = ez_fe2_add(value, ez_fe2_from_fe(lie));
    ligero_open_raw(enc, tree, com, poly, z, claim->value, ez_fe2_mul_fe(ez_fe2_inv(ec[0]), lie), true, out);
    free(ec);
    free(enc);
    ez_merkle_free(tree);
}

/* The attacks on the matrix (issue 8) start from an honest commitment to polys of
 * lengths 333 and 2^11, the prover's own encoded matrix and tree (prover_matrix), a
 * random point z of the second poly and the eq tables of its full point over the
 * matrix rows (e) and columns (ec). */
typedef struct {
    ez_test_polys ps;
    ez_pcs_prover *p;
    ez_pcs_commitment com;
    ez_writer pk;      /* the prover data */
    ez_fe *enc;        /* ncode columns of rows entries (column-major) */
    ez_merkle *tree;
    unsigned lc;       /* log2 cols */
    size_t cols, ncode, rows;
    ez_fe2 z[11], *e, *ec;
} matrix_fx;

enum { MATRIX_NV = 11 }; /* the variables of the second poly */

static void matrix_fx_init(matrix_fx *m, ez_rng *r)
{
    uint64_t lens[2] = {333, 1 << MATRIX_NV};
    ez_test_polys_make(&m->ps, r, lens, 2);
    m->p = NULL;
    ck_assert_int_eq(ez_pcs_commit(&m->p, &m->com, (const ez_fe *const *)m->ps.polys, m->ps.lens, 2), EZ_OK);
    ez_writer_init(&m->pk);
    ez_pcs_prover_write(&m->pk, m->p);
    prover_matrix(m->pk.data, m->pk.len, &m->com, &m->enc, &m->tree);
    m->lc = m->com.log_cols;
    m->cols = (size_t)1 << m->lc;
    m->ncode = 4 * m->cols;
    m->rows = (size_t)m->com.rows;
    for (unsigned v = 0; v < MATRIX_NV; v++)
        m->z[v] = ez_rng_fe2(r);
    ez_fe2 rr[64];
    full_point(rr, &m->com, 1, m->z);
    unsigned lr = m->com.nvars_total - m->lc;
    m->e = malloc(((size_t)1 << lr) * sizeof *m->e);
    m->ec = malloc(m->cols * sizeof *m->ec);
    ez_eq_table(m->e, rr, lr);
    ez_eq_table(m->ec, rr + lr, m->lc);
}

/* The true value of the second poly at z. */
static ez_fe2 matrix_fx_value(const matrix_fx *m)
{
    return ez_mle_eval_fe(m->ps.polys[1], 1 << MATRIX_NV, m->z, MATRIX_NV);
}

/* Enc((c, 0, ..., 0)): the codeword a forger adds to the rows' combination (ncode
 * entries; caller frees). */
static ez_fe *matrix_fx_unit_code(const matrix_fx *m, ez_fe c)
{
    ez_fe *d = calloc(m->ncode, sizeof *d), *code = malloc(m->ncode * sizeof *code);
    ez_fe *scr = malloc(m->cols * sizeof *scr);
    d[0] = c;
    ez_ntt_lde *lde = NULL;
    ck_assert_int_eq(ez_ntt_lde_new(&lde, m->lc, 2), EZ_OK);
    ez_ntt_lde_apply(lde, code, d, scr);
    ez_ntt_lde_free(lde);
    free(d);
    free(scr);
    return code;
}

/* The forged commitment: a new tree over the tampered m->enc, its root in m->com. */
static void matrix_fx_recommit(matrix_fx *m)
{
    ez_digest *leaves = malloc(m->ncode * sizeof *leaves);
    for (size_t j = 0; j < m->ncode; j++)
        ez_merkle_hash_leaf(&leaves[j], m->enc + j * m->rows, m->rows);
    ez_merkle_free(m->tree);
    m->tree = NULL;
    ck_assert_int_eq(ez_merkle_new(&m->tree, leaves, m->lc + 2), EZ_OK);
    memcpy(m->com.root, ez_merkle_root(m->tree)->h, 32);
    free(leaves);
}

static void matrix_fx_free(matrix_fx *m)
{
    free(m->e);
    free(m->ec);
    free(m->enc);
    ez_merkle_free(m->tree);
    ez_writer_clear(&m->pk);
    ez_pcs_commitment_clear(&m->com);
    ez_pcs_prover_free(m->p);
    ez_test_polys_free(&m->ps);
}

START_TEST(test_pcs_reimplemented_prover)
{
    ez_rng r = ez_rng_for("pcs_reimplemented_prover");
    matrix_fx m;
    matrix_fx_init(&m, &r);
    ez_fe2 value = matrix_fx_value(&m);
    /* the query count is the security level's (docs/protocol-kernel-pcs.md §3): the least t
     * with (5/8)^t <= 2^-100, i.e. 148; the reimplementation below draws exactly that many */
    unsigned t = 0;
    for (double pr = 1.0; pr > 0x1p-100; pr *= 5.0 / 8.0)
        t++;
    ck_assert_uint_eq(t, 148);
    ck_assert_uint_eq(EZ_PCS_QUERIES, t);
    /* honest: the documented format is what the library produces and accepts */
    ez_writer w1, w2;
    ez_pcs_claim cl;
    ez_writer_init(&w1);
    reimplemented_open(m.pk.data, m.pk.len, &m.com, 1, m.z, value, 0, &w1, &cl);
    open_to(m.p, &m.com, &cl, 1, &w2);
    ck_assert_uint_eq(w1.len, w2.len);
    ck_assert_mem_eq(w1.data, w2.data, w1.len);
    ck_assert_int_eq(verify_bytes(&m.com, &cl, 1, w1.data, w1.len, NULL), EZ_OK);
    ez_writer_clear(&w1);
    ez_writer_clear(&w2);
    /* a lie that passes the evaluation check is caught by the columns */
    for (ez_fe lie = 1; lie <= 3; lie++) {
        ez_writer_init(&w1);
        reimplemented_open(m.pk.data, m.pk.len, &m.com, 1, m.z, value, lie, &w1, &cl);
        ck_assert_int_eq(verify_bytes(&m.com, &cl, 1, w1.data, w1.len, NULL), EZ_ERR_REJECT);
        ez_writer_clear(&w1);
    }
    matrix_fx_free(&m);
}
END_TEST

static ez_status verify_bytes_mode(const ez_pcs_commitment *com, const ez_pcs_claim *cl, size_t n,
                                   const uint8_t *data, size_t len, unsigned flags)
{
    bool done = false;
    ez_status st = ez_test_pcs_verify("check_pcs", com, cl, n, flags, data, len, &done);
    return st == EZ_OK && !done ? EZ_ERR_REJECT : st;
}

/* The verifier's status on ligero_open_raw's opening of m's matrix claiming `claimed`
 * for the second poly at z (with the proximity row when prox), verified in mode flags. */
static ez_status raw_verdict(const matrix_fx *m, ez_fe2 claimed, bool prox, unsigned flags)
{
    ez_pcs_claim cl = {1, m->z, claimed};
    ez_writer w;
    ez_writer_init(&w);
    ligero_open_raw(m->enc, m->tree, &m->com, 1, m->z, claimed, ez_fe2_zero(), prox, &w);
    ez_status st = verify_bytes_mode(&m->com, &cl, 1, w.data, w.len, flags);
    ez_writer_clear(&w);
    return st;
}

/* The evaluation equation <eq(r_col), y> = value (issue 8): a prover claims a false
 * value and sends the honest rows (computed after the challenges the false value
 * gives): every column check passes; only the equation rejects — with and without the
 * proximity row. */
START_TEST(test_pcs_evaluation_equation)
{
    ez_rng r = ez_rng_for("pcs_evaluation_equation");
    matrix_fx m;
    matrix_fx_init(&m, &r);
    ez_fe2 value = matrix_fx_value(&m);
    for (int prox = 0; prox < 2; prox++) {
        unsigned flags = prox ? 0 : EZ_PCS_OPEN_NO_PROXIMITY;
        ck_assert_int_eq(raw_verdict(&m, value, prox, flags), EZ_OK); /* the opener is right */
        ez_fe2 lie = ez_fe2_add(value, ez_fe2_from_fe(1 + ez_rng_next(&r) % 1000));
        ck_assert_int_eq(raw_verdict(&m, lie, prox, flags), EZ_ERR_REJECT);
    }
    matrix_fx_free(&m);
}
END_TEST

/* The proximity row's column check (issue 8). A prover that knows the point z before it
 * commits adds an error E to three rows of the encoded matrix such that the rows' eq(r)
 * combination picks up a codeword: e^T E = Enc(d), d = (c, 0, ..., 0) (E itself is far
 * from the code: row 1 is random). Then y' = e^T M' is an exact codeword row, every
 * evaluation-row column check passes and the equation holds for the false value
 * v + eq(r_col)_0 c. Only the proximity row a^T M', for a random a, is not a codeword:
 * its column check rejects. (Opened without the proximity row the forgery passes: the
 * "proximity tested once" mode relies on the vk's full opening and on points that are
 * challenges drawn after the commitment, docs/protocol-kernel-pcs.md §3.) */
START_TEST(test_pcs_proximity_far_matrix)
{
    ez_rng r = ez_rng_for("pcs_proximity_far_matrix");
    matrix_fx m;
    matrix_fx_init(&m, &r);
    const size_t rows = m.rows;
    const ez_fe2 *e = m.e;
    ck_assert_uint_ge(rows, 3);
    /* E: row 0 random; rows 1, 2 solve sum_i e_i E_i = Enc(d) coordinate by coordinate of
     * cm = F[X]/(X^2 - 7) (c0 part Enc(d), c1 part 0) */
    ez_fe c = 1 + ez_rng_next(&r) % 1000;
    ez_fe *code = matrix_fx_unit_code(&m, c);
    ez_fe det = ez_fe_sub(ez_fe_mul(e[1].c0, e[2].c1), ez_fe_mul(e[2].c0, e[1].c1));
    ck_assert_uint_ne(det, 0);
    ez_fe idet = ez_fe_inv(det);
    for (size_t j = 0; j < m.ncode; j++) {
        ez_fe g = ez_rng_fe(&r);
        ez_fe b0 = ez_fe_sub(code[j], ez_fe_mul(e[0].c0, g)), b1 = ez_fe_neg(ez_fe_mul(e[0].c1, g));
        ez_fe x1 = ez_fe_mul(ez_fe_sub(ez_fe_mul(b0, e[2].c1), ez_fe_mul(e[2].c0, b1)), idet);
        ez_fe x2 = ez_fe_mul(ez_fe_sub(ez_fe_mul(e[1].c0, b1), ez_fe_mul(b0, e[1].c1)), idet);
        m.enc[j * rows + 0] = ez_fe_add(m.enc[j * rows + 0], g);
        m.enc[j * rows + 1] = ez_fe_add(m.enc[j * rows + 1], x1);
        m.enc[j * rows + 2] = ez_fe_add(m.enc[j * rows + 2], x2);
    }
    matrix_fx_recommit(&m);
    ez_fe2 forged = ez_fe2_add(matrix_fx_value(&m), ez_fe2_mul_fe(m.ec[0], c));
    ck_assert_int_eq(raw_verdict(&m, forged, true, 0), EZ_ERR_REJECT);
    ck_assert_int_eq(raw_verdict(&m, forged, false, EZ_PCS_OPEN_NO_PROXIMITY), EZ_OK);
    free(code);
    matrix_fx_free(&m);
}
END_TEST

/* The commitment is absorbed before the opening's challenges (the caller does it with
 * ez_pcs_commitment_absorb; an advice commitment is a prover message). A prover that
 * could commit AFTER the challenges (those of a transcript without the commitment) opens
 * any value: it sends y' = y + (c, 0, ..., 0), learns the queries, and changes only the
 * queried columns of the matrix (two rows each) so that they match y' — then commits to
 * that matrix. Opened without the proximity row, every check holds at those queries. */
/* A serialized Ligero commitment to lens (300, 300, 5000) with the given LEB128 body
 * (npolys, nruns, runs) as raw bytes, its header from the real layout, a zero root. */
static size_t runs_bytes(uint8_t *out, const uint8_t *body, size_t nbody)
{
    ez_pcs_commitment c = {0};
    uint64_t lens[3] = {300, 300, 5000};
    c.scheme = EZ_PCS_SCHEME_LIGERO;
    c.npolys = 3;
    c.lens = lens;
    ck_assert_int_eq(ez_pcs_layout(&c), EZ_OK);
    out[0] = EZ_PCS_SCHEME_LIGERO;
    for (int i = 0; i < 4; i++)
        out[1 + i] = (uint8_t)(c.log_cols >> (8 * i));
    memcpy(out + 5, body, nbody);
    memset(out + 5 + nbody, 0, 32);
    c.lens = NULL;
    ez_pcs_commitment_clear(&c);
    return 5 + nbody + 32;
}

/* The lengths as runs of LEB128 (format 1.5): the canonical bytes round-trip, every
 * other encoding of the same or a broken list is refused. */
START_TEST(test_pcs_commitment_runs)
{
    uint8_t buf[128];
    ez_reader rd;
    ez_pcs_commitment c;
    /* 300 = 0xac 0x02, 5000 = 0x88 0x27 */
    static const uint8_t good[] = {3, 2, 2, 0xac, 0x02, 1, 0x88, 0x27};
    size_t n = runs_bytes(buf, good, sizeof good);
    ez_reader_init(&rd, buf, n);
    ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c), EZ_OK);
    ck_assert(ez_reader_done(&rd));
    ck_assert_uint_eq(c.npolys, 3);
    ck_assert_uint_eq(c.lens[0], 300);
    ck_assert_uint_eq(c.lens[1], 300);
    ck_assert_uint_eq(c.lens[2], 5000);
    ez_writer w;
    ez_writer_init(&w);
    ez_pcs_commitment_write(&w, &c);
    ck_assert_uint_eq(w.len, n);
    ck_assert_mem_eq(w.data, buf, n);
    ez_writer_clear(&w);
    ez_pcs_commitment_clear(&c);
    for (size_t cut = 0; cut < n; cut++) {
        ez_reader_init(&rd, buf, cut);
        ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c), EZ_ERR_FORMAT);
    }
    static const struct {
        uint8_t len, b[16];
    } bad[] = {
        {11, {3, 3, 1, 0xac, 0x02, 1, 0xac, 0x02, 1, 0x88, 0x27}}, /* runs not maximal */
        {9, {0x83, 0x00, 2, 2, 0xac, 0x02, 1, 0x88, 0x27}},        /* npolys not minimal */
        {9, {3, 2, 2, 0xac, 0x82, 0x00, 1, 0x88, 0x27}},           /* a length not minimal */
        {8, {3, 2, 1, 0xac, 0x02, 1, 0x88, 0x27}},                 /* runs add up to 2 */
        {8, {3, 2, 2, 0xac, 0x02, 2, 0x88, 0x27}},                 /* to 4 */
        {10, {3, 3, 2, 0xac, 0x02, 0, 7, 1, 0x88, 0x27}},          /* an empty run */
        {5, {3, 0, 0xac, 0x02, 0}},                                /* no run */
        {4, {1, 1, 1, 0}},                                         /* a zero length */
        {8, {0x81, 0x80, 0x40, 1, 0x81, 0x80, 0x40, 1}},           /* 2^20 + 1 polys */
        {13, {1, 1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}}, /* 2^64 + */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        n = runs_bytes(buf, bad[k].b, bad[k].len);
        ez_reader_init(&rd, buf, n);
        ck_assert_msg(ez_pcs_commitment_read(&rd, &c) == EZ_ERR_FORMAT, "case %zu accepted", k);
        ck_assert_uint_eq(c.npolys, 0);
    }
}
END_TEST

START_TEST(test_pcs_commitment_bound)
{
    ez_rng r = ez_rng_for("pcs_commitment_bound");
    matrix_fx m;
    matrix_fx_init(&m, &r);
    const size_t cols = m.cols, rows = m.rows;
    const ez_fe2 *e = m.e;
    ez_fe2 *y = calloc(cols, sizeof *y);
    for (size_t j = 0; j < cols; j++)
        for (size_t i = 0; i < rows; i++)
            y[j] = ez_fe2_add(y[j], ez_fe2_mul_fe(e[i], m.enc[j * rows + i]));
    ez_fe c = 1 + ez_rng_next(&r) % 1000;
    y[0] = ez_fe2_add(y[0], ez_fe2_from_fe(c));
    ez_pcs_claim cl = {1, m.z, ez_fe2_add(matrix_fx_value(&m), ez_fe2_mul_fe(m.ec[0], c))};
    /* the challenges of a transcript without the commitment */
    ez_transcript t;
    ez_transcript_init(&t, "check_pcs");
    ez_transcript_absorb_u64(&t, "pcs/mode", EZ_PCS_OPEN_NO_PROXIMITY);
    ez_transcript_absorb_u64(&t, "pcs/nclaims", 1);
    ez_transcript_absorb_u64(&t, "pcs/claim-poly", 1);
    ez_transcript_absorb_fe2(&t, "pcs/claim-point", m.z, MATRIX_NV);
    ez_transcript_absorb_fe2(&t, "pcs/claim-value", &cl.value, 1);
    (void)ez_transcript_challenge_fe2(&t, "pcs/rho");
    ez_transcript_absorb_fe2(&t, "pcs/eval-row", y, cols);
    uint64_t q[EZ_PCS_QUERIES];
    size_t nq = draw_queries(&t, m.ncode, q);
    /* the queried columns made to match Enc(y'): Enc(y' - y) = Enc((c, 0, ...)) on rows 0, 1 */
    ez_fe *code = matrix_fx_unit_code(&m, c);
    ez_fe det = ez_fe_sub(ez_fe_mul(e[0].c0, e[1].c1), ez_fe_mul(e[1].c0, e[0].c1));
    ck_assert_uint_ne(det, 0);
    for (size_t k = 0; k < nq; k++) {
        ez_fe b0 = code[q[k]]; /* c0 part: b0; c1 part: 0 */
        ez_fe x0 = ez_fe_mul(ez_fe_mul(b0, e[1].c1), ez_fe_inv(det));
        ez_fe x1 = ez_fe_neg(ez_fe_mul(ez_fe_mul(b0, e[0].c1), ez_fe_inv(det)));
        m.enc[q[k] * rows + 0] = ez_fe_add(m.enc[q[k] * rows + 0], x0);
        m.enc[q[k] * rows + 1] = ez_fe_add(m.enc[q[k] * rows + 1], x1);
    }
    matrix_fx_recommit(&m);
    ez_writer w;
    ez_writer_init(&w);
    for (size_t j = 0; j < cols; j++) {
        ez_writer_u64(&w, y[j].c0);
        ez_writer_u64(&w, y[j].c1);
    }
    write_columns(&w, m.enc, m.tree, &m.com, q, nq);
    ck_assert_int_eq(verify_bytes_mode(&m.com, &cl, 1, w.data, w.len, EZ_PCS_OPEN_NO_PROXIMITY), EZ_ERR_REJECT);
    ez_writer_clear(&w);
    free(code);
    free(y);
    matrix_fx_free(&m);
}
END_TEST

START_TEST(test_pcs_invalid_args)
{
    ez_rng r = ez_rng_for("pcs_invalid_args");
    ez_test_polys ps;
    uint64_t lens[1] = {64};
    ez_test_polys_make(&ps, &r, lens, 1);
    ez_pcs_prover *p = NULL;
    ez_pcs_commitment com;
    uint64_t zl[1] = {0};
    ck_assert_int_eq(ez_pcs_commit(&p, &com, (const ez_fe *const *)ps.polys, zl, 1), EZ_ERR_INVALID);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(ez_pcs_commit(&p, &com, (const ez_fe *const *)ps.polys, ps.lens, 0), EZ_ERR_INVALID);
    ck_assert_int_eq(ez_pcs_commit(&p, &com, (const ez_fe *const *)ps.polys, ps.lens, 1), EZ_OK);
    ez_fe2 pt[6] = {{0}};
    ez_pcs_claim bad = {1, pt, ez_fe2_zero()};
    ez_transcript t;
    ez_transcript_init(&t, "x");
    ez_writer w;
    ez_writer_init(&w);
    ck_assert_int_eq(ez_pcs_open(p, &t, &bad, 1, &w), EZ_ERR_INVALID);
    ck_assert_int_eq(verify_bytes(&com, &bad, 1, NULL, 0, NULL), EZ_ERR_INVALID);
    /* no claims: nothing to prove, nothing written */
    ck_assert_int_eq(ez_pcs_open(p, &t, NULL, 0, &w), EZ_OK);
    ck_assert_uint_eq(w.len, 0);
    ck_assert_int_eq(verify_bytes(&com, NULL, 0, NULL, 0, NULL), EZ_OK);
    ez_writer_clear(&w);
    ez_pcs_commitment_clear(&com);
    ez_pcs_prover_free(p);
    ez_test_polys_free(&ps);
}
END_TEST

/* ---- supports (pcs.h ez_pcs_support) --------------------------------------------------- */

/* The cube of a supported poly (2^nv entries, zero outside the pieces) from its compact
 * vector, for the reference values. */
static void support_cube(ez_fe *cube, const ez_fe *compact, const ez_pcs_support *s)
{
    memset(cube, 0, ((size_t)1 << s->nv) * sizeof *cube);
    size_t k = 0;
    for (size_t j = 0; j < s->npieces; j++)
        for (uint64_t x = 0; x < ((uint64_t)1 << s->nv); x++) /* increasing: increasing free bits */
            if ((x & s->pieces[j].mask) == s->pieces[j].val)
                cube[x] = compact[k++];
}

/* Polys with supports next to plain ones, claims at random points and at points inside
 * one piece (boolean coordinates: the other pieces' terms vanish), under Ligero, WHIR and
 * WHIR in parts: honest openings verify; a changed value, or the verifier's support
 * changed (one piece moved), is rejected. */
START_TEST(test_pcs_supports)
{
    ez_rng r = ez_rng_for("pcs_supports");
    /* a triangle-like support on 6 variables (bits 5..3: row, 2..0: column): the
     * lower-left 4x4 block (row >= 4 > column: bit 5 = 1, bit 2 = 0), the diagonal
     * 4x4 blocks' entries as two 2x2 and single blocks — disjoint subcubes */
    static const ez_pcs_piece tri[] = {
        {0x24, 0x20},             /* rows 4..7 x cols 0..3 (16) */
        {0x36, 0x00}, {0x36, 0x12}, /* rows 0..1 x cols 0..1; rows 2..3 x cols 2..3 (4 each) */
        {0x3f, 0x10}, {0x3f, 0x11}, /* row 2: cols 0, 1 */
        {0x36, 0x24}, {0x36, 0x36}, /* rows 4..5 x cols 4..5; rows 6..7 x cols 6..7 */
        {0x3f, 0x34}, {0x3f, 0x35}, /* row 6: cols 4, 5 */
    };
    /* a [3, 6] tensor padded to [4, 8] (bits 4..3: row, 2..0: column): the axis pieces
     * (2 + 1) x (4 + 2) */
    static const ez_pcs_piece t36[] = {
        {0x14, 0x00}, {0x16, 0x04}, {0x1c, 0x10}, {0x1e, 0x14},
    };
    ez_pcs_support sup[4] = {{6, 9, tri}, {0, 0, NULL}, {5, 4, t36}, {0, 0, NULL}};
    uint64_t lens[4] = {36, 300, 18, 77};
    ez_test_polys ps;
    ez_test_polys_make(&ps, &r, lens, 4);
    ez_fe cube0[64], cube2[32];
    support_cube(cube0, ps.polys[0], &sup[0]);
    support_cube(cube2, ps.polys[2], &sup[2]);
    ez_pcs_claim cl[8];
    ez_fe2 pts[8][EZ_TEST_MAXVARS];
    const size_t which[8] = {0, 0, 1, 2, 2, 3, 0, 2};
    for (size_t k = 0; k < 8; k++) {
        size_t i = which[k];
        unsigned nv = sup[i].nv ? sup[i].nv : ez_log2_ceil(lens[i]);
        for (unsigned v = 0; v < nv; v++)
            pts[k][v] = ez_rng_fe2(&r);
        if (k == 6) /* inside the piece rows 4..7 x cols 0..3: bit 5 = 1, bit 2 = 0 */
            pts[k][0] = ez_fe2_one(), pts[k][3] = ez_fe2_zero();
        if (k == 7) /* inside the piece rows 0..1 x cols 4..5 of t36 */
            pts[k][0] = ez_fe2_zero(), pts[k][2] = ez_fe2_one(), pts[k][3] = ez_fe2_zero();
        const ez_fe *src = i == 0 ? cube0 : i == 2 ? cube2 : ps.polys[i];
        uint64_t n = sup[i].nv ? (uint64_t)1 << nv : lens[i];
        cl[k] = (ez_pcs_claim){.poly = i, .point = pts[k], .value = ez_mle_eval_fe(src, (size_t)n, pts[k], nv)};
    }
    const unsigned schemes[3] = {EZ_PCS_SCHEME_LIGERO, EZ_PCS_SCHEME_WHIR, EZ_PCS_SCHEME_WHIR};
    for (int sc = 0; sc < 3; sc++) {
        ez_pcs_prover *p = NULL;
        ez_pcs_commitment com;
        ck_assert_int_eq(ez_pcs_commit_supported(&p, &com, (const ez_fe *const *)ps.polys, lens, sup, 4, schemes[sc],
                                                 sc == 2 ? 4 : 0),
                         EZ_OK);
        ck_assert_uint_eq(com.nvars[0], 6);
        ck_assert_uint_eq(com.nvars[2], 5);
        ez_writer w;
        open_to(p, &com, cl, 8, &w);
        bool done = false;
        ck_assert_int_eq(verify_bytes(&com, cl, 8, w.data, w.len, &done), EZ_OK);
        ck_assert(done);
        ez_pcs_claim bad[8];
        memcpy(bad, cl, sizeof bad);
        bad[6].value = ez_fe2_add(bad[6].value, ez_fe2_one());
        ck_assert_int_eq(verify_bytes(&com, bad, 8, w.data, w.len, NULL), EZ_ERR_REJECT);
        /* the commitment read back (no supports) with the supports set again */
        ez_writer cw;
        ez_writer_init(&cw);
        ez_pcs_commitment_write(&cw, &com);
        ez_reader rd;
        ez_pcs_commitment c2;
        ez_reader_init(&rd, cw.data, cw.len);
        ck_assert_int_eq(ez_pcs_commitment_read(&rd, &c2), EZ_OK);
        ck_assert_int_eq(ez_pcs_commitment_set_supports(&c2, sup), EZ_OK);
        ck_assert_int_eq(verify_bytes(&c2, cl, 8, w.data, w.len, NULL), EZ_OK);
        /* a verifier with another support (two same-size pieces swapped) rejects */
        ez_pcs_piece moved[9];
        memcpy(moved, tri, sizeof moved);
        moved[1] = tri[2], moved[2] = tri[1];
        ez_pcs_support s2[4] = {{6, 9, moved}, sup[1], sup[2], sup[3]};
        ck_assert_int_eq(ez_pcs_commitment_set_supports(&c2, s2), EZ_OK);
        ck_assert_int_eq(verify_bytes(&c2, cl, 8, w.data, w.len, NULL), EZ_ERR_REJECT);
        /* supports that do not fit lens */
        ez_pcs_support s3[4] = {{6, 8, tri}, sup[1], sup[2], sup[3]};
        ck_assert_int_eq(ez_pcs_commitment_set_supports(&c2, s3), EZ_ERR_INVALID);
        ez_pcs_commitment_clear(&c2);
        ez_writer_clear(&cw);
        ez_writer_clear(&w);
        ez_pcs_commitment_clear(&com);
        ez_pcs_prover_free(p);
    }
    ez_test_polys_free(&ps);
}
END_TEST

/* EZ_SPILL_DIR (lib/util.h ez_spill_alloc, ez_spill_copy): a WHIR commitment of several
 * parts whose vectors and trees were built on disk part by part opens to the same bytes as
 * one held in memory (twice: the first opening hands every part's pages back), a prover read back from its data (the pk path) likewise, and the spill files
 * are unlinked from the start (the directory stays empty). */
START_TEST(test_pcs_whir_spill)
{
    ez_rng r = ez_rng_for("pcs_whir_spill");
    ez_test_polys ps;
    uint64_t lens[3] = {3000, 1 << 11, 333};
    ez_test_polys_make(&ps, &r, lens, 3);
    ez_pcs_claim cl[3];
    ez_fe2 pts[8][EZ_TEST_MAXVARS];
    size_t which[3] = {0, 1, 2};
    ez_test_pcs_claims(cl, pts, &r, &ps, which, 3);
    ez_pcs_prover *p[2] = {NULL, NULL};
    ez_pcs_commitment com[2];
    ez_writer pw[2], w[2];
    char dir[] = "/tmp/ez-spill-test.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_null(ez_spill_copy(lens, sizeof lens)); /* off without the variable */
    ck_assert_ptr_null(ez_spill_alloc(sizeof lens));
    for (int k = 0; k < 2; k++) {
        if (k == 1)
            ck_assert_int_eq(setenv("EZ_SPILL_DIR", dir, 1), 0);
        /* parts of 2^10 entries: five of them */
        ck_assert_int_eq(ez_pcs_commit_parts(&p[k], &com[k], (const ez_fe *const *)ps.polys, ps.lens, 3,
                                             EZ_PCS_SCHEME_WHIR, 10),
                         EZ_OK);
        ck_assert_uint_ge(p[k]->nwhir, 5);
        for (size_t j = 0; j < p[k]->nwhir; j++)
            ck_assert(p[k]->whir[j]->s_spilled == (k == 1));
        ez_writer_init(&pw[k]);
        ez_pcs_prover_write(&pw[k], p[k]);
        open_to(p[k], &com[k], cl, 3, &w[k]);
    }
    /* the spilled prover's memory is a file mapping, with the same contents, also after
     * its pages were handed back (ez_spill_release: read again from the file) */
    void *m = ez_spill_copy(ps.polys[0], lens[0] * sizeof(ez_fe));
    ck_assert_ptr_nonnull(m);
    ck_assert_mem_eq(m, ps.polys[0], lens[0] * sizeof(ez_fe));
    ez_spill_release(m, lens[0] * sizeof(ez_fe));
    ck_assert_mem_eq(m, ps.polys[0], lens[0] * sizeof(ez_fe));
    /* a write to the copy stays too (the mapping is shared, not private) */
    ((ez_fe *)m)[0] = ps.polys[0][0] + 1;
    ez_spill_release(m, lens[0] * sizeof(ez_fe));
    ck_assert_uint_eq(((ez_fe *)m)[0], ps.polys[0][0] + 1);
    ez_spill_free(m, lens[0] * sizeof(ez_fe));
    /* an array made on disk (ez_spill_alloc, the parts' vectors and trees above) starts
     * zero, and what is written to it stays after its pages are handed back */
    ez_fe *z = ez_spill_alloc(lens[0] * sizeof(ez_fe));
    ck_assert_ptr_nonnull(z);
    for (uint64_t i = 0; i < lens[0]; i++)
        ck_assert_uint_eq(z[i], 0);
    memcpy(z, ps.polys[0], lens[0] * sizeof(ez_fe));
    ez_spill_release(z, lens[0] * sizeof(ez_fe));
    ck_assert_mem_eq(z, ps.polys[0], lens[0] * sizeof(ez_fe));
    ez_spill_free(z, lens[0] * sizeof(ez_fe));
    /* the first opening released every spilled part after reading it: a second one
     * reads them back and is the same bytes */
    ez_writer w2;
    open_to(p[1], &com[1], cl, 3, &w2);
    ck_assert_uint_eq(w2.len, w[0].len);
    ck_assert_mem_eq(w2.data, w[0].data, w[0].len);
    ez_writer_clear(&w2);
    ck_assert_mem_eq(com[0].root, com[1].root, 32);
    ck_assert_uint_eq(pw[0].len, pw[1].len);
    ck_assert_mem_eq(pw[0].data, pw[1].data, pw[0].len);
    ck_assert_uint_eq(w[0].len, w[1].len);
    ck_assert_mem_eq(w[0].data, w[1].data, w[0].len);
    ck_assert_int_eq(verify_bytes(&com[1], cl, 3, w[1].data, w[1].len, NULL), EZ_OK);
    /* read back (spilled as read), opened again: the same bytes */
    ez_pcs_prover *q = NULL;
    ez_reader rd;
    ez_pcs_polys_src src = ez_test_polys_src(&ps);
    ez_reader_init(&rd, pw[1].data, pw[1].len);
    ck_assert_int_eq(ez_pcs_prover_read(&rd, &q, &src), EZ_OK);
    ez_writer wq;
    open_to(q, &com[1], cl, 3, &wq);
    ck_assert_uint_eq(wq.len, w[0].len);
    ck_assert_mem_eq(wq.data, w[0].data, w[0].len);
    /* a wrong claimed value still fails against the spilled prover's proof */
    ez_pcs_claim bad[3] = {cl[0], cl[1], cl[2]};
    bad[1].value = ez_fe2_add(bad[1].value, ez_fe2_one());
    ck_assert_int_eq(verify_bytes(&com[1], bad, 3, wq.data, wq.len, NULL), EZ_ERR_REJECT);
    ck_assert_int_eq(unsetenv("EZ_SPILL_DIR"), 0);
    ck_assert_int_eq(rmdir(dir), 0); /* empty: every spill file was unlinked at once */
    ez_writer_clear(&wq);
    ez_pcs_prover_free(q);
    for (int k = 0; k < 2; k++) {
        ez_writer_clear(&pw[k]);
        ez_writer_clear(&w[k]);
        ez_pcs_commitment_clear(&com[k]);
        ez_pcs_prover_free(p[k]);
    }
    ez_test_polys_free(&ps);
}
END_TEST

Suite *ez_suite_pcs(void)
{
    Suite *s = suite_create("pcs");
    const TTest *merkle[] = {test_merkle_paths, test_merkle_domain_separation, test_merkle_batch};
    ez_tcase_add(s, "merkle", 0, merkle, sizeof merkle / sizeof merkle[0]);
    const TTest *ligero[] = {test_pcs_layout, test_pcs_padding_not_trusted, test_pcs_reimplemented_prover,
        test_pcs_evaluation_equation, test_pcs_proximity_far_matrix, test_pcs_commitment_bound, test_pcs_invalid_args,
        test_pcs_supports, test_pcs_whir_spill, test_pcs_commitment_runs};
    ez_tcase_add(s, "ligero", 60, ligero, sizeof ligero / sizeof ligero[0]);
    const TTest *committed[] = {test_pcs_commitment_io, test_pcs_single_claim, test_pcs_single_slot_in_stack,
        test_pcs_batched_claims, test_pcs_batched_forged_factors, test_pcs_no_proximity, test_pcs_prover_io};
    ez_tcase_add_fixture(s, "committed", 60, committed_setup, committed_teardown, committed,
                         sizeof committed / sizeof committed[0]);
    return s;
}
