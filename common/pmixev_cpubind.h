/*
 * pmixev_cpubind.h - the CPUs Slurm binds each task of a step to, read
 * from the step's --cpu-bind type and list before the tasks exist.
 *
 * task/affinity turns every automatic binding (cores, threads, sockets)
 * into one CPU mask per local task in slurmd, before slurmstepd starts;
 * an explicit --cpu-bind=map_cpu or mask_cpu comes as given. A task uses
 * entry (local task id modulo the number of entries), as task/affinity
 * does. Pure code, unit-tested in tests/unit/test_cpubind.c.
 */
#ifndef PMIXEV_CPUBIND_H_
#define PMIXEV_CPUBIND_H_

#include <stdint.h>

#define PMIXEV_CPUBIND_MAX   1024 /* CPUs, as CPU_SETSIZE */
#define PMIXEV_CPUBIND_WORDS (PMIXEV_CPUBIND_MAX / 64)

/* Bit i of cpus[i / 64] is CPU i. */
struct pmixev_cpus {
	uint64_t bits[PMIXEV_CPUBIND_WORDS];
};

/*
 * The CPUs local task `ltask` is bound to, given Slurm's cpu_bind_type
 * `type` (CPU_BIND_*) and cpu_bind `list`:
 *   1  bound to `out` (CPU_BIND_MASK: hex masks; CPU_BIND_MAP: CPU ids,
 *      "ID*COUNT" repeats an id)
 *   0  not bound to a set this can tell (no binding, or bound by locality
 *      domain or rank): the caller uses the step's CPUs
 *  -1  the list is malformed or names a CPU beyond PMIXEV_CPUBIND_MAX
 */
int pmixev_cpubind_task(uint32_t type, const char *list, uint32_t ltask,
			struct pmixev_cpus *out);

/*
 * A range list as Slurm writes a step's cores ("0-3,8"; decimal, each
 * below PMIXEV_CPUBIND_MAX) into `out`: 1 (some), 0 (the list is empty),
 * -1 (malformed, or a range backwards).
 */
int pmixev_cpubind_ranges(const char *list, struct pmixev_cpus *out);

#endif /* PMIXEV_CPUBIND_H_ */
