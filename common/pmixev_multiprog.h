/*
 * pmixev_multiprog.h - PMIx applications of an `srun --multi-prog` step.
 *
 * Each line of a multi-prog configuration ("RANKS PROGRAM ARGS...") is one
 * PMIx application, numbered in file order; a rank belongs to the first
 * line whose rank list names it ("*" names every rank not named before).
 * Lines that name no rank are not applications. The result is written in
 * the task-map text form (pmixev_taskmap.h) with one group per application
 * instead of per node. Pure code, unit-tested.
 */
#ifndef PMIXEV_MULTIPROG_H_
#define PMIXEV_MULTIPROG_H_

#include <stddef.h>
#include <stdint.h>

/*
 * srun's SPANK plugin to srun's mpi plugin: "SRUNPID:NAPPS:MAP" (the pid
 * tells this srun's value from one inherited from an outer step).
 */
#define PMIXEV_MULTIPROG_ENV "SLURM_PMIXEV_MULTIPROG"
/* srun's mpi plugin to the stepds: "NAPPS:MAP", or "" for one application. */
#define PMIXEV_APPS_ENV "SLURM_PMIXEV_APPS"

/*
 * Parse the configuration `text` of a step of `ntasks` tasks. Returns the
 * application map (malloc'd) and the number of applications in *napps, or
 * NULL with a reason in `err` (a rank out of range, a malformed rank list,
 * a rank no line names).
 */
char *pmixev_multiprog_appmap(const char *text, uint32_t ntasks,
			      uint32_t *napps, char *err, size_t errlen);

#endif /* PMIXEV_MULTIPROG_H_ */
