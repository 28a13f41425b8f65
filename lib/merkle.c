/* merkle — see merkle.h. */
#include "lib/merkle.h"

#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>

/* Columns are hashed straight from memory: an ez_fe in memory IS its canonical
 * little-endian encoding on the hosts we build for. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "merkle leaf hashing assumes a little-endian host");

enum { EZ_MERKLE_LEAF_TAG = 0x00, EZ_MERKLE_NODE_TAG = 0x01 };

/* Levels with at least this many nodes are hashed in parallel. */
#define EZ_MERKLE_PAR_MIN 4096

struct ez_merkle {
    unsigned depth;
    ez_digest *node; /* 2^(depth+1) entries: node[1] root, children of k at 2k, 2k+1,
                        leaf i at node[2^depth + i]; node[0] unused */
};

void ez_merkle_hash_leaf(ez_digest *out, const ez_fe *col, size_t m)
{
    struct sha256_ctx h;
    uint8_t tag = EZ_MERKLE_LEAF_TAG;
    sha256_init(&h);
    sha256_update(&h, 1, &tag);
    if (m)
        sha256_update(&h, m * sizeof *col, (const uint8_t *)col);
    sha256_digest(&h, sizeof out->h, out->h);
}

void ez_merkle_hash_node(ez_digest *out, const ez_digest *l, const ez_digest *r)
{
    uint8_t buf[65];
    buf[0] = EZ_MERKLE_NODE_TAG;
    memcpy(buf + 1, l->h, 32);
    memcpy(buf + 33, r->h, 32);
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, sizeof buf, buf);
    sha256_digest(&h, sizeof out->h, out->h);
}

ez_status ez_merkle_alloc(ez_merkle **out, unsigned depth)
{
    *out = NULL;
    if (depth > EZ_MERKLE_MAX_DEPTH || depth >= 8 * sizeof(size_t) - 7)
        return EZ_ERR_INVALID;
    ez_merkle *t = calloc(1, sizeof *t);
    if (t == NULL)
        return EZ_ERR_NOMEM;
    size_t nl = (size_t)1 << depth;
    t->depth = depth;
    t->node = ez_alloc_huge(2 * nl, sizeof *t->node);
    if (t->node == NULL) {
        free(t);
        return EZ_ERR_NOMEM;
    }
    memset(t->node, 0, sizeof *t->node);
    *out = t;
    return EZ_OK;
}

ez_digest *ez_merkle_leaves_mut(ez_merkle *t)
{
    return t->node + ((size_t)1 << t->depth);
}

void ez_merkle_build(ez_merkle *t)
{
    size_t nl = (size_t)1 << t->depth;
    for (size_t w = nl / 2; w >= 1; w /= 2) {
#pragma omp parallel for schedule(static) if (w >= EZ_MERKLE_PAR_MIN)
        for (size_t k = w; k < 2 * w; k++)
            ez_merkle_hash_node(&t->node[k], &t->node[2 * k], &t->node[2 * k + 1]);
    }
}

ez_status ez_merkle_new(ez_merkle **out, const ez_digest *leaves, unsigned depth)
{
    ez_status st = ez_merkle_alloc(out, depth);
    if (st != EZ_OK)
        return st;
    memcpy(ez_merkle_leaves_mut(*out), leaves, ((size_t)1 << depth) * sizeof *leaves);
    ez_merkle_build(*out);
    return EZ_OK;
}

void ez_merkle_free(ez_merkle *t)
{
    if (t == NULL)
        return;
    free(t->node);
    free(t);
}

unsigned ez_merkle_depth(const ez_merkle *t)
{
    return t->depth;
}

const ez_digest *ez_merkle_root(const ez_merkle *t)
{
    return &t->node[1];
}

const ez_digest *ez_merkle_leaves(const ez_merkle *t)
{
    return t->node + ((size_t)1 << t->depth);
}

void ez_merkle_path(const ez_merkle *t, uint64_t idx, ez_digest *path)
{
    EZ_VERIFY_CHECK(idx < ((uint64_t)1 << t->depth));
    size_t k = ((size_t)1 << t->depth) + (size_t)idx;
    for (unsigned l = 0; l < t->depth; l++, k /= 2)
        path[l] = t->node[k ^ 1];
}

bool ez_merkle_path_verify(const ez_digest *root, unsigned depth, uint64_t idx, const ez_digest *leaf,
                           const ez_digest *path)
{
    if (depth > EZ_MERKLE_MAX_DEPTH || (idx >> depth) != 0)
        return false;
    ez_digest cur = *leaf;
    for (unsigned l = 0; l < depth; l++, idx >>= 1) {
        if (idx & 1)
            ez_merkle_hash_node(&cur, &path[l], &cur);
        else
            ez_merkle_hash_node(&cur, &cur, &path[l]);
    }
    return memcmp(cur.h, root->h, 32) == 0;
}

/* Positions valid for a batch: strictly increasing and < 2^depth. */
static bool positions_ok(unsigned depth, const uint64_t *idx, size_t n)
{
    if (n == 0 || depth > EZ_MERKLE_MAX_DEPTH)
        return false;
    for (size_t k = 0; k < n; k++)
        if ((idx[k] >> depth) != 0 || (k > 0 && idx[k] <= idx[k - 1]))
            return false;
    return true;
}

size_t ez_merkle_batch_count(unsigned depth, const uint64_t *idx, size_t n)
{
    if (!positions_ok(depth, idx, n))
        return SIZE_MAX;
    /* At level l the known nodes are the distinct values of idx[k] >> l (non-decreasing
     * in k). A node needs a proof sibling unless its sibling is the next known node. */
    size_t count = 0;
    for (unsigned l = 0; l < depth; l++) {
        size_t k = 0;
        while (k < n) {
            uint64_t v = idx[k] >> l;
            size_t k2 = k;
            while (k2 < n && (idx[k2] >> l) == v)
                k2++;
            if ((v & 1) == 0 && k2 < n && (idx[k2] >> l) == v + 1) {
                /* pair with the next node: skip past it too */
                while (k2 < n && (idx[k2] >> l) == v + 1)
                    k2++;
            } else {
                count++;
            }
            k = k2;
        }
    }
    return count;
}

/* Both sides walk the levels the same way: the known nodes of a level are kept as
 * increasing positions (in place, m of them); a node pairs with the next known node
 * when that is its sibling, otherwise its sibling is the next proof digest; the parents
 * replace them. */
ez_status ez_merkle_batch_open(const ez_merkle *t, const uint64_t *idx, size_t n, ez_digest *out)
{
    if (!positions_ok(t->depth, idx, n))
        return EZ_ERR_INVALID;
    uint64_t *pos = ez_alloc_array(n, sizeof *pos);
    if (pos == NULL)
        return EZ_ERR_NOMEM;
    memcpy(pos, idx, n * sizeof *pos);
    size_t used = 0, m = n;
    for (unsigned l = 0; l < t->depth; l++) {
        size_t w = 0;
        for (size_t k = 0; k < m; w++) {
            uint64_t v = pos[k];
            if ((v & 1) == 0 && k + 1 < m && pos[k + 1] == v + 1) {
                k += 2;
            } else {
                out[used++] = t->node[((size_t)1 << (t->depth - l)) + (size_t)(v ^ 1)];
                k += 1;
            }
            pos[w] = v >> 1;
        }
        m = w;
    }
    free(pos);
    return EZ_OK;
}

ez_status ez_merkle_batch_verify(const ez_digest *root, unsigned depth, const uint64_t *idx,
                                 const ez_digest *leaves, size_t n, const ez_digest *proof, size_t nproof)
{
    ez_status st = EZ_ERR_REJECT;
    uint64_t *pos = NULL;
    ez_digest *hash = NULL;
    if (!positions_ok(depth, idx, n))
        goto out;
    st = EZ_ERR_NOMEM;
    pos = ez_alloc_array(n, sizeof *pos);
    hash = ez_alloc_array(n, sizeof *hash);
    if (pos == NULL || hash == NULL)
        goto out;
    memcpy(pos, idx, n * sizeof *pos);
    memcpy(hash, leaves, n * sizeof *hash);
    st = EZ_ERR_REJECT;
    size_t used = 0, m = n;
    for (unsigned l = 0; l < depth; l++) {
        size_t w = 0;
        for (size_t k = 0; k < m; w++) {
            uint64_t v = pos[k];
            const ez_digest *s;
            bool pair = (v & 1) == 0 && k + 1 < m && pos[k + 1] == v + 1;
            if (pair) {
                s = &hash[k + 1];
            } else {
                if (used >= nproof)
                    goto out;
                s = &proof[used++];
            }
            /* w <= k: writing hash[w] never clobbers a node still to be read. */
            if (v & 1)
                ez_merkle_hash_node(&hash[w], s, &hash[k]);
            else
                ez_merkle_hash_node(&hash[w], &hash[k], s);
            k += pair ? 2 : 1;
            pos[w] = v >> 1;
        }
        m = w;
    }
    if (used != nproof)
        goto out;
    if (memcmp(hash[0].h, root->h, 32) != 0)
        goto out;
    st = EZ_OK;
out:
    free(pos);
    free(hash);
    return st;
}
