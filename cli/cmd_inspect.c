/* einzk inspect FILE [--vk MODEL.vk] [--json]
 *
 * What an einzk file holds, read without a model: its kind (by magic), format version,
 * size and sections, and per kind
 *   .einc        the model, digest, op and tensor counts, weights, the statement (the
 *                public inputs and the outputs: names, shapes, counts);
 *   vk           the same for its plan, the weight commitment (scheme, root, polys) and
 *                the weight range proof's size;
 *   pk           the plan digest it belongs to, its weights (count, elements) and the
 *                commitment scheme of its prover data;
 *   proof        what it says it is for (plan digest, weight commitment root), its
 *                statement (tensor ids and counts; with --vk of its model: names and
 *                shapes), the advice commitment's scheme, the proving strategy if the
 *                proof records one (section 7);
 *   certificate  the prompt and generated tokens, the stop rule, every pass (positions,
 *                the proof's size) and the first pass's binding.
 * The description is one JSON object (--json prints it); the text form prints its
 * fields in order. A file that is no einzk file, or malformed, exits 4 with the reason. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/model.h"
#include "compiler/einc.h"
#include "runtime/formats/certificate.h"
#include "runtime/formats/proofio.h"
#include "runtime/formats/sections.h"
#include "runtime/prove/keys.h"
#include "runtime/prove/strategy.h"

enum { O_VK, O_JSON, O_N };

const ez_cli_opt ez_cli_opts_inspect[O_N + 1] = { /* the last row empty: the end */
    [O_VK] = {"--vk", "MODEL.vk", 0, "a proof: name its statement's tensors from its model's verifying key"},
    [O_JSON] = {"--json", NULL, 0, "print the description as one JSON object"},
};

/* ---- pieces --------------------------------------------------------------------------- */

static json_t *hex(const uint8_t *v, size_t n)
{
    char s[129];
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n && i < 64; i++) {
        s[2 * i] = hx[v[i] >> 4];
        s[2 * i + 1] = hx[v[i] & 15];
    }
    s[2 * (n < 64 ? n : 64)] = 0;
    return json_string(s);
}

static const char *scheme_name(unsigned s)
{
    switch (s) {
    case 0:
    case EZ_PCS_SCHEME_LIGERO: return "ligero";
    case EZ_PCS_SCHEME_LIGERO_P1: return "ligero (proximity tested once)";
    case EZ_PCS_SCHEME_WHIR: return "whir";
    }
    return "unknown";
}

/* The scheme of a "u8 present | commitment" payload (its first byte after present). */
static json_t *scheme_of(const uint8_t *p, size_t n)
{
    if (n == 0 || p[0] == 0)
        return json_string("none");
    return json_string(n > 1 ? scheme_name(p[1]) : "unknown");
}

static const char *section_name(const char *kind, uint32_t tag)
{
    static const char *proof[] = {NULL, "statement", "advice commitment", "lookups", "walk", "weight opening",
                                  "advice opening", "strategy"};
    static const char *vk[] = {NULL, "plan", "weight commitment", "weight range proof"};
    static const char *pk[] = {NULL, "plan digest", "weights", "commitment prover data", "weight range proof"};
    static const char *cert[] = {NULL, "generation", "passes"};
    static const char *einc[] = {NULL, "model", "tensors", "ops", "schedule", "digest"};
    const char **t = !strcmp(kind, EZ_KIND_PROOF) ? proof
                     : !strcmp(kind, EZ_KIND_VK)  ? vk
                     : !strcmp(kind, EZ_KIND_PK)  ? pk
                     : !strcmp(kind, EZ_KIND_CERT) ? cert
                                                   : einc;
    size_t n = t == proof ? 8 : t == vk ? 4 : t == pk ? 5 : t == cert ? 3 : 6;
    return tag < n ? t[tag] : "unknown";
}

/* Every section of the container (all einzk files share it), without interpreting them:
 * [{"tag", "name", "bytes"}]; view[tag] for tags < 16. NULL when the container is broken. */
static json_t *sections(const char *kind, const uint8_t *data, size_t len, ez_section_view *view)
{
    ez_reader r;
    ez_reader_init(&r, data + 8, len - 8); /* after magic and version */
    memset(view, 0, 16 * sizeof *view);
    json_t *a = json_array();
    while (ez_reader_remaining(&r) > 0) {
        uint32_t tag = ez_reader_u32(&r);
        uint64_t n = ez_reader_u64(&r);
        if (r.failed || n > ez_reader_remaining(&r)) {
            json_decref(a);
            return NULL;
        }
        const uint8_t *p = ez_reader_view(&r, (size_t)n);
        if (tag < 16)
            view[tag] = (ez_section_view){p, (size_t)n, true};
        json_array_append_new(a, json_pack("{s:I, s:s, s:I}", "tag", (json_int_t)tag, "name",
                                           section_name(kind, tag), "bytes", (json_int_t)n));
    }
    return a;
}

/* The statement of plan p: inputs and tokens, then the outputs, in plan order. */
static json_t *plan_statement(const ez_plan *p)
{
    json_t *a = json_array();
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < p->ntensors; i++) {
            const ez_plan_tensor *t = &p->tensors[i];
            bool in = t->kind == EZ_TENSOR_INPUT || t->kind == EZ_TENSOR_TOKENS;
            if (pass == 0 ? !in : (in || !t->is_output))
                continue;
            json_t *shape = json_array();
            for (unsigned k = 0; k < t->rank; k++)
                json_array_append_new(shape, json_integer((json_int_t)t->dims[k]));
            json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:I}", "name", t->source_name, "role",
                                               pass == 0 ? (t->kind == EZ_TENSOR_TOKENS ? "tokens" : "input")
                                                         : "output",
                                               "shape", shape, "count", (json_int_t)ez_plan_tensor_numel(t)));
        }
    return a;
}

static void describe_plan(json_t *o, const ez_plan *p)
{
    uint64_t nw = 0, welems = 0;
    for (size_t i = 0; i < p->ntensors; i++)
        if (p->tensors[i].kind == EZ_TENSOR_WEIGHT) {
            nw++;
            welems += ez_plan_tensor_numel(&p->tensors[i]);
        }
    json_object_set_new(o, "model", json_string(p->model));
    json_object_set_new(o, "digest", hex(p->digest, 32));
    json_object_set_new(o, "ops", json_integer((json_int_t)p->nops));
    json_object_set_new(o, "tensors", json_integer((json_int_t)p->ntensors));
    json_object_set_new(o, "weights", json_pack("{s:I, s:I}", "tensors", (json_int_t)nw, "elements",
                                                (json_int_t)welems));
    json_object_set_new(o, "statement", plan_statement(p));
}

/* ---- per kind ------------------------------------------------------------------------- */

static ez_status describe_vk(json_t *o, const uint8_t *data, size_t len, ez_diag *d)
{
    ez_vk vk;
    ez_status st = ez_vk_decode(&vk, data, len, d);
    if (st != EZ_OK)
        return st;
    describe_plan(o, &vk.plan);
    if (vk.has_weights)
        json_object_set_new(o, "weight_commitment",
                            json_pack("{s:s, s:o, s:I}", "scheme", scheme_name(vk.wcom.scheme), "root",
                                      hex(vk.wcom.root, 32), "polys", (json_int_t)vk.wcom.npolys));
    json_object_set_new(o, "weight_range_proof_bytes", json_integer((json_int_t)vk.wrange_len));
    ez_vk_clear(&vk);
    return EZ_OK;
}

static ez_status describe_pk(json_t *o, const ez_section_view *v, unsigned minor, ez_diag *d)
{
    ez_reader r;
    if (!v[1].present || v[1].len != 32 || !v[2].present || !v[3].present) {
        ez_diag_set(d, "proving key: missing or malformed sections");
        return EZ_ERR_FORMAT;
    }
    json_object_set_new(o, "digest", hex(v[1].data, 32));
    ez_reader_init(&r, v[2].data, v[2].len);
    uint64_t n = ez_reader_count(&r, UINT64_C(1) << 20, 12), elems = 0;
    for (uint64_t i = 0; i < n && !r.failed; i++) {
        (void)ez_reader_u32(&r);
        /* 1.2: a byte width per weight (1.1: i64 entries) */
        uint64_t c = ez_reader_u64(&r), wb = minor >= 2 ? ez_reader_u8(&r) : 8;
        if (wb == 0 || c > ez_reader_remaining(&r) / wb)
            r.failed = true;
        elems += c;
        (void)ez_reader_view(&r, r.failed ? 0 : (size_t)(c * wb));
    }
    if (r.failed) {
        ez_diag_set(d, "proving key: malformed weights");
        return EZ_ERR_FORMAT;
    }
    json_object_set_new(o, "weights", json_pack("{s:I, s:I}", "tensors", (json_int_t)n, "elements",
                                                (json_int_t)elems));
    json_object_set_new(o, "commitment_scheme", scheme_of(v[3].data, v[3].len));
    return EZ_OK;
}

static void describe_binding(json_t *o, const ez_proof_binding *b)
{
    json_object_set_new(o, "digest", hex(b->digest, 32));
    json_object_set_new(o, "weight_root", b->has_weights ? hex(b->wroot, 32) : json_string("none"));
}

static ez_status describe_proof(json_t *o, const uint8_t *data, size_t len, const ez_section_view *v,
                                const ez_plan *named, ez_diag *d)
{
    ez_proof pf;
    ez_status st = ez_proof_decode(&pf, data, len, d);
    if (st != EZ_OK)
        return st;
    describe_binding(o, &pf.bind);
    json_t *a = json_array();
    for (size_t i = 0; i < pf.stmt.n; i++) {
        const ez_stmt_tensor *x = &pf.stmt.t[i];
        json_t *e = json_pack("{s:I, s:I}", "tensor", (json_int_t)x->tensor, "count", (json_int_t)x->n);
        if (named && x->tensor < named->ntensors) {
            const ez_plan_tensor *t = &named->tensors[x->tensor];
            json_t *shape = json_array();
            for (unsigned k = 0; k < t->rank; k++)
                json_array_append_new(shape, json_integer((json_int_t)t->dims[k]));
            json_object_set_new(e, "name", json_string(t->source_name));
            json_object_set_new(e, "shape", shape);
        }
        json_array_append_new(a, e);
    }
    json_object_set_new(o, "statement", a);
    json_object_set_new(o, "advice_scheme", scheme_of(v[2].data, v[2].len));
    /* the proving strategy: section 7 (runtime/prove/strategy.h) */
    const char *sname = v[7].present && v[7].len == 1 ? ez_strategy_name((ez_strategy)v[7].data[0]) : NULL;
    json_object_set_new(o, "strategy", json_string(sname ? sname : "not recorded"));
    ez_proof_clear(&pf);
    return EZ_OK;
}

static ez_status describe_cert(json_t *o, const uint8_t *data, size_t len, ez_diag *d)
{
    ez_certificate c;
    ez_status st = ez_certificate_decode(&c, data, len, d);
    if (st != EZ_OK)
        return st;
    json_t *prompt = json_array(), *gen = json_array(), *passes = json_array();
    for (uint64_t i = 0; i < c.gen.nprompt + c.gen.ngen; i++)
        json_array_append_new(i < c.gen.nprompt ? prompt : gen, json_integer(c.gen.tokens[i]));
    json_object_set_new(o, "prompt_tokens", prompt);
    json_object_set_new(o, "output_tokens", gen);
    json_object_set_new(o, "stop", json_string(ez_stop_rule_name(c.gen.stop)));
    for (size_t k = 0; k < c.npass; k++)
        json_array_append_new(passes, json_pack("{s:I, s:I, s:I, s:I}", "positions", (json_int_t)c.pass[k].length,
                                                "first", (json_int_t)c.pass[k].first, "last",
                                                (json_int_t)c.pass[k].last, "proof_bytes",
                                                (json_int_t)c.pass[k].proof_len));
    json_object_set_new(o, "passes", passes);
    if (c.npass > 0) {
        ez_proof pf;
        ez_diag why = {{0}};
        if (ez_proof_decode(&pf, c.pass[0].proof, c.pass[0].proof_len, &why) == EZ_OK) {
            json_t *b = json_object();
            describe_binding(b, &pf.bind);
            json_object_set_new(o, "first_pass", b);
            ez_proof_clear(&pf);
        }
    }
    ez_certificate_clear(&c);
    return EZ_OK;
}

/* ---- text ------------------------------------------------------------------------------- */

static void print_value(const json_t *v)
{
    if (json_is_string(v))
        fputs(json_string_value(v), stdout);
    else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
        fputs(s ? s : "?", stdout);
        free(s);
    }
}

/* key  value, one per line; arrays of objects one element per line, indented. */
static void print_text(const json_t *o, int indent)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v)
    {
        if (json_is_object(v)) {
            printf("%*s%s\n", indent, "", k);
            print_text(v, indent + 2);
            continue;
        }
        printf("%*s%-*s", indent, "", 26 - indent, k);
        if (json_is_array(v) && json_array_size(v) > 0 && json_is_object(json_array_get(v, 0))) {
            size_t i;
            json_t *e;
            printf("%zu\n", json_array_size(v));
            json_array_foreach(v, i, e)
            {
                const char *ek;
                json_t *ev;
                printf("%*s  -", indent, "");
                json_object_foreach(e, ek, ev)
                {
                    printf(" %s=", ek);
                    print_value(ev);
                }
                putchar('\n');
            }
            continue;
        }
        print_value(v);
        putchar('\n');
    }
}

/* ---- the command -------------------------------------------------------------------------- */

/* The plan of the vk at path (for naming a proof's statement). */
static ez_status load_vk_plan(const char *path, ez_vk *vk, ez_diag *d)
{
    uint8_t *b = NULL;
    size_t n = 0;
    ez_status st = ez_cli_expect_kind_file(path, EZ_KIND_VK, "a verifying key", d);
    if (st == EZ_OK)
        st = ez_file_read(path, &b, &n, d);
    if (st == EZ_OK && (st = ez_vk_decode(vk, b, n, d)) == EZ_ERR_FORMAT)
        st = EZ_ERR_INPUT;
    free(b);
    return st;
}

int ez_cli_run_inspect(const ez_cli_args *args)
{
    int rc = EZ_CLI_RUN;
    const char *path = args->operand;
    ez_diag d = {{0}};
    uint8_t *data = NULL;
    size_t len = 0;
    ez_section_view v[16];
    json_t *o = json_object();
    ez_vk vk;
    ez_vk_init(&vk);
    const char *kind = NULL;
    ez_status st = ez_file_read(path, &data, &len, &d);
    if (st == EZ_OK && args->value[O_VK])
        st = load_vk_plan(args->value[O_VK], &vk, &d);
    if (st != EZ_OK)
        goto fail;
    if ((kind = ez_file_kind(data, len)) == NULL || len < 8) {
        ez_diag_set(&d, "%s is no einzk file (no proof, key, certificate or .einc magic)", path);
        st = EZ_ERR_INPUT;
        goto fail;
    }
    if (args->value[O_VK] && strcmp(kind, EZ_KIND_PROOF) != 0) {
        rc = ez_cli_usage_error(args->cmd, "--vk goes with a proof; %s is a %s", path, kind);
        goto out;
    }
    json_object_set_new(o, "file", json_string(path));
    json_object_set_new(o, "kind", json_string(kind));
    char ver[16];
    snprintf(ver, sizeof ver, "%u.%u", data[4] | (unsigned)data[5] << 8, data[6] | (unsigned)data[7] << 8);
    json_object_set_new(o, "format", json_string(ver));
    json_object_set_new(o, "bytes", json_integer((json_int_t)len));
    json_t *secs = sections(kind, data, len, v);
    if (secs == NULL) {
        ez_diag_set(&d, "%s: a %s with a truncated section", path, kind);
        st = EZ_ERR_FORMAT;
        goto fail;
    }
    json_object_set_new(o, "sections", secs);
    if (!strcmp(kind, EZ_KIND_EINC)) {
        ez_plan p;
        if ((st = ez_einc_decode(&p, data, len, &d)) == EZ_OK)
            describe_plan(o, &p);
        ez_plan_clear(&p);
    } else if (!strcmp(kind, EZ_KIND_VK)) {
        st = describe_vk(o, data, len, &d);
    } else if (!strcmp(kind, EZ_KIND_PK)) {
        st = describe_pk(o, v, data[6] | (unsigned)data[7] << 8, &d);
    } else if (!strcmp(kind, EZ_KIND_PROOF)) {
        st = describe_proof(o, data, len, v, args->value[O_VK] ? &vk.plan : NULL, &d);
    } else {
        st = describe_cert(o, data, len, &d);
    }
    if (st != EZ_OK)
        goto fail;
    if (args->n[O_JSON]) {
        json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        putchar('\n');
    } else {
        print_text(o, 0);
    }
    rc = EZ_EXIT_OK;
    goto out;
fail:
    if (st == EZ_ERR_FORMAT)
        st = EZ_ERR_INPUT; /* a malformed file here is the operator's input, not a verdict */
    if (kind && strncmp(d.msg, path, strlen(path)) != 0) {
        ez_diag why = d;
        ez_diag_set(&d, "%s: %s", path, why.msg);
    }
    rc = ez_cli_error("inspect", st, &d);
out:
    json_decref(o);
    ez_vk_clear(&vk);
    free(data);
    return rc;
}
