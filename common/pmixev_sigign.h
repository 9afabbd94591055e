/*
 * pmixev_sigign.h - a process pmixev starts beside the step's tasks
 * ignores the signals Slurm or a user sends the step: every signal that
 * ends or stops a process by default and that `scancel --signal` or
 * `--signal=SIG@TIME` may name (under proctrack/linuxproc, and on cgroup v2,
 * slurmstepd's children get them), real-time ones included. Not the
 * faults a process raises itself (SEGV, BUS, ILL, FPE, TRAP, SYS, ABRT).
 * Async-signal-safe: for a child between fork and exec.
 */
#ifndef PMIXEV_SIGIGN_H_
#define PMIXEV_SIGIGN_H_

#include <signal.h>
#include <stddef.h>

static inline void pmixev_ignore_step_signals(void)
{
	static const int sigs[] = {
		SIGHUP,	 SIGINT,    SIGQUIT, SIGUSR1, SIGUSR2,	 SIGPIPE,
		SIGALRM, SIGTERM,   SIGTSTP, SIGTTIN, SIGTTOU,	 SIGXCPU,
		SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO,   SIGSTKFLT, SIGPWR};
	struct sigaction ign = {.sa_handler = SIG_IGN};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &ign, NULL);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &ign, NULL);
}

#endif /* PMIXEV_SIGIGN_H_ */
