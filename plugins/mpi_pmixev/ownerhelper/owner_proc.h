/*
 * ownerhelper/owner_proc.h - the one way slurmstepd starts a program as the
 * job owner: where the program is, starting it with root dropped for good,
 * why it ended, and reaping it. The owner helper (pmixev-owner) is started
 * through it, and so is the PMIx server (pmixev-pmixd). They stay two
 * programs: the PMIx server runs in a network of its own, from which
 * slurmctld cannot be reached (doc/pmix-server-as-owner.md §3f).
 *
 * Where a program is: ownerhelper/owner_prog.h.
 *
 * Between fork and exec the child makes async-signal-safe calls only
 * (slurmstepd has threads), in this order: the step's signals ignored
 * (ignored stays ignored across exec, so a signal Slurm or a user sends the
 * step while the program loads does not kill it); root again if
 * slurmstepd's main thread had dropped its euid; if asked, into a cgroup
 * (the step's process tracking); its descriptors placed: 0 on /dev/null,
 * 1 and 2 on /dev/null or on a pipe to the parent, the spec's at their
 * numbers, every other one of slurmstepd's closed; if asked, a network
 * namespace of its own with `lo` up; the owner's groups, gid and uid,
 * checked that root cannot be regained; if asked, no_new_privs; if asked,
 * SIGKILL when the thread that started it ends (a credential change clears
 * that, so it comes after setuid), and an end right away if the parent is
 * already gone. What failed (the stage and its errno) comes back over a
 * close-on-exec pipe. A program is stopped with SIGKILL and reaped from the
 * event loop, never waited for. One thread: the event base's.
 */
#ifndef PMIXEV_OWNERHELPER_OWNER_PROC_H_
#define PMIXEV_OWNERHELPER_OWNER_PROC_H_

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <event2/event.h>

#include "ownerhelper/owner_prog.h"

#define OWNER_PROC_FDS	  8  /* descriptors a spec places */
#define OWNER_PROC_FD_MAX 31 /* the highest number one is placed at */

/* One start of the program. */
struct owner_spec {
	const char *const *argv; /* argv[0] onward, NULL-terminated */
	const char *const *envp; /* its whole environment, NULL-terminated
				  * (in a sanitizer build, owner_env.h adds) */
	struct {
		int fd;	    /* ours, left open; closed by the caller */
		int target; /* its number in the program */
	} fds[OWNER_PROC_FDS];
	unsigned nfds;
	/* Join the cgroup whose cgroup.procs `cgroup_procs` is (ours, open
	 * for writing, close-on-exec) before the owner's identity. */
	bool join_cgroup;
	int cgroup_procs;
	bool stderr_pipe;  /* stderr into a pipe to us, else /dev/null */
	bool stdout_pipe;  /* stdout too into that pipe (with stderr_pipe) */
	bool new_netns;	   /* a network namespace of its own, `lo` up */
	bool no_new_privs; /* exec grants nothing (set-id bits, caps) */
	bool pdeathsig;	   /* SIGKILL when the starting thread ends */
};

/*
 * Place our `fd` at `target` in the program: 0, or -1 with errno EINVAL
 * (`fd` < 0, `target` outside 3..OWNER_PROC_FD_MAX or already taken) or
 * ENOSPC (OWNER_PROC_FDS placed already).
 */
int owner_spec_place(struct owner_spec *s, int fd, int target);

struct owner_proc;

/* `prog`, found now (beside this plugin), to run as `uid` and `gid` (and
 * the owner's groups), reaped on `base`. NULL when out of memory. */
struct owner_proc *owner_proc_create(struct event_base *base,
				     const struct owner_prog *prog, uid_t uid,
				     gid_t gid);

/* The same, `prog` looked for beside the plugin in folder `dir` (NULL: not
 * beside any): for a program that is not the plugin (pmixev-check). */
struct owner_proc *owner_proc_create_in(struct event_base *base,
					const struct owner_prog *prog,
					const char *dir, uid_t uid, gid_t gid);

/* The program started, and the places looked at for it ("A, B, C"). */
const char *owner_proc_path(const struct owner_proc *p);
const char *owner_proc_looked(const struct owner_proc *p);

/*
 * Start the program (none running) as `spec` says: 0, and with
 * spec->stderr_pipe the read end of its stderr in *err_fd (ours,
 * non-blocking, close-on-exec; reading it within bounds is the caller's);
 * or -1 with the cause in `why`. The spec's descriptors stay the caller's.
 */
int owner_proc_start(struct owner_proc *p, const struct owner_spec *spec,
		     int *err_fd, char *why, size_t len);

/* The running program's pid, or 0. */
pid_t owner_proc_pid(const struct owner_proc *p);

/* A pidfd of the running program, readable once it has ended (ours; valid
 * until it is stopped), or -1 (none running, or a kernel without
 * pidfd_open). */
int owner_proc_pidfd(const struct owner_proc *p);

/*
 * It ended, or closed its channel: why (the stage that failed before exec
 * and its error, its exit status or signal, or "it closed its channel"),
 * and how long after its start, into `why`. Then stopped and reaped.
 */
void owner_proc_ended(struct owner_proc *p, char *why, size_t len);

/* Stop the running program, if any (SIGKILL), and reap it later. */
void owner_proc_stop(struct owner_proc *p);

/* Stop it; give the killed a moment (0.2 s at most) to be reaped.
 * NULL-safe. */
void owner_proc_destroy(struct owner_proc *p);

#endif /* PMIXEV_OWNERHELPER_OWNER_PROC_H_ */
