/* devcheck.h - a key's points checked on a CUDA device at import (the key checker of
 * keys/zka_keys.h, zka_keys_set_checker): installed by the CLI, so that `import`, `prove` of a
 * .zkey and `submit` of a key not yet in the arena validate on the GPU when there is one.
 *
 * Objects: one process-wide checker: the device index, and a context (zka_gpu) opened on the
 * first check and kept until the process exits; a mutex serialises checks (an import checks
 * its sections one after the other anyway).
 * States: UNTRIED -> OPEN (zka_gpu_open succeeded: every check runs on the device)
 *         UNTRIED -> FAILED (no device, or the open failed: every check returns that -errno
 *                   with its message, and keys.c checks on the CPU, saying so).
 * Built with the CUDA library only (zka_backend, ZKA_HAVE_CUDA). */
#ifndef ZKA_DEVCHECK_H
#define ZKA_DEVCHECK_H

/* Installs the checker for this process's imports, on CUDA device `device` (opened lazily:
 * nothing starts on the device before an import checks points). */
void zka_devcheck_install(int device);

#endif
