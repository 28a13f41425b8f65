/* stub (temporary) */
#include "lib/whir.h"
ez_status ez_whir_params_default(ez_whir_params *p, unsigned m) { (void)p; (void)m; return EZ_ERR_INVALID; }
void ez_whir_prover_free(ez_whir_prover *p) { (void)p; }
