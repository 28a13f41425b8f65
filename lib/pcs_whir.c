/* stub (temporary) */
#include "lib/pcs_internal.h"
ez_status ez_pcs_whir_params(const ez_pcs_commitment *c, ez_whir_params *par) { (void)c; (void)par; return EZ_ERR_UNSUPPORTED; }
ez_status ez_pcs_whir_commit(ez_pcs_prover *p, const ez_fe *const *polys) { (void)p; (void)polys; return EZ_ERR_UNSUPPORTED; }
void ez_pcs_whir_prover_write(ez_writer *w, const ez_pcs_prover *p) { (void)w; (void)p; }
ez_status ez_pcs_whir_prover_read(ez_reader *r, ez_pcs_prover *p) { (void)r; (void)p; return EZ_ERR_UNSUPPORTED; }
ez_status ez_pcs_whir_open(ez_pcs_prover *p, ez_transcript *t, const ez_pcs_claim *claims, size_t n, ez_fe2 rho, ez_fe2 claim, ez_writer *proof) { (void)p;(void)t;(void)claims;(void)n;(void)rho;(void)claim;(void)proof; return EZ_ERR_UNSUPPORTED; }
ez_status ez_pcs_whir_verify(const ez_pcs_commitment *com, ez_transcript *t, const ez_pcs_claim *claims, size_t n, ez_fe2 rho, ez_fe2 claim, ez_reader *proof) { (void)com;(void)t;(void)claims;(void)n;(void)rho;(void)claim;(void)proof; return EZ_ERR_UNSUPPORTED; }
