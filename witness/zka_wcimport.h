/* zka_wcimport.h - builds a circuit's witness graph (zka_wcg.h) from circom's --c output.
 * Runs at import, never on the proving path: it compiles circom's generated C++ against
 * zkarena's tracing runtime (needs g++, libgmp-dev, libxxhash-dev) and runs it once. */
#ifndef ZKA_WCIMPORT_H
#define ZKA_WCIMPORT_H
#include <stddef.h>

#include "zk/curve.h"

/* Records the witness graph of the circuit in cdir (circom's <name>_cpp directory, compiled
 * for curve's scalar field) into out (created: it must not exist). Returns 0, or -errno with
 * one line in err naming the directory or source line and the problem (an unsupported
 * construct, a missing compiler, another prime); nothing is left at out on failure. */
int zka_wc_build(const char *cdir, const zka_curve *curve, const char *out, char *err,
		 size_t errlen);
/* Builds circom's own witness generator from cdir with a timing driver (for `bench witness`)
 * into work/timer (work: an empty directory); name receives the circuit's base name. Needs
 * g++, nasm and nlohmann-json3-dev. 0 or -errno with err set. */
int zka_wc_build_circom_timer(const char *cdir, const char *work, char *name, size_t namelen,
			      char *err, size_t errlen);
#endif
