/*
 * Unit tests for the event messages of common/pmixev_proto.c (EVENT,
 * NOTIFY) and for common/pmixev_helper_msg.c (the owner helper's messages):
 * round trips and strict rejection of truncated or trailing bodies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_helper_msg.h"
#include "pmixev_proto.h"
#include "proto_strict.h"

static int unpack_event(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_event_msg m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_event_unpack(&r, &m);
}

/* pmixev_owner_req_pack's result for `q`, nothing kept. */
static int req_packs(const struct pmixev_owner_req *q)
{
	struct pmixev_buf w;
	int rc;

	pmixev_buf_init(&w);
	rc = pmixev_owner_req_pack(&w, q);
	pmixev_buf_release(&w);
	return rc;
}

static void test_event(void **state)
{
	struct pmixev_event_msg in = {.code = -402,
				      .rank = 5,
				      .node = 2,
				      .exit_code = 9,
				      .flags = PMIXEV_EVENT_NON_DEFAULT,
				      .value = -60,
				      .detail = 3,
				      .seq = 7,
				      .time = 1800000000};
	struct pmixev_event_msg out;
	struct pmixev_buf w, r;

	snprintf(in.text, sizeof(in.text), "rank 5 killed by signal 9");
	snprintf(in.host, sizeof(in.host), "n2");
	snprintf(in.reason, sizeof(in.reason), "ECC errors");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_event_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_event_unpack(&r, &out), 0);
	assert_int_equal(out.code, -402);
	assert_int_equal(out.rank, 5);
	assert_int_equal(out.node, 2);
	assert_int_equal(out.exit_code, 9);
	assert_int_equal(out.flags, PMIXEV_EVENT_NON_DEFAULT);
	assert_int_equal(out.value, -60);
	assert_int_equal(out.detail, 3);
	assert_int_equal(out.seq, 7);
	assert_int_equal(out.time, 1800000000);
	assert_string_equal(out.text, in.text);
	assert_string_equal(out.host, "n2");
	assert_string_equal(out.reason, "ECC errors");
	assert_strict(&w, unpack_event);
	pmixev_buf_release(&w);

	/* Unknown flags are refused both ways. */
	in.flags = 0x8;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_event_pack(&w, &in), -1);
	pmixev_buf_put_i32(&w, -402);
	pmixev_buf_put_u32(&w, 5);
	pmixev_buf_put_u32(&w, 2);
	pmixev_buf_put_i32(&w, 9);
	pmixev_buf_put_u8(&w, 0x8);
	pmixev_buf_put_u64(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u64(&w, 7);
	pmixev_buf_put_u64(&w, 0);
	pmixev_buf_put_str(&w, "x");
	pmixev_buf_put_str(&w, "");
	pmixev_buf_put_str(&w, "");
	assert_int_equal(unpack_event(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static int unpack_notify(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_notify_msg m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_notify_unpack(&r, &m);
}

static void test_notify(void **state)
{
	static const uint8_t packed[] = {1, 2, 3, 0, 5};
	struct pmixev_notify_msg in = {.nspace = "slurm.pmixev.7.0",
				       .rank = 4,
				       .code = -3001,
				       .range = 6,
				       .info = packed,
				       .ninfo = sizeof(packed)};
	struct pmixev_notify_msg out;
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_notify_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_notify_unpack(&r, &out), 0);
	assert_string_equal(out.nspace, "slurm.pmixev.7.0");
	assert_int_equal(out.rank, 4);
	assert_int_equal(out.code, -3001);
	assert_int_equal(out.range, 6);
	assert_int_equal(out.ninfo, sizeof(packed));
	assert_memory_equal(out.info, packed, sizeof(packed));
	assert_strict(&w, unpack_notify);
	pmixev_buf_release(&w);
}

/* Bodies whose only fault is in a text field. */
static int unpack_owner_req(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_owner_req m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_owner_req_unpack(&r, &m);
}

static int unpack_owner_resp(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_owner_resp m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_owner_resp_unpack(&r, &m);
}

static void test_owner(void **state)
{
	struct pmixev_owner_req req = {.op = PMIXEV_OWNER_JOB_STATE,
				       .id = 7,
				       .job_id = 42},
				rq;
	struct pmixev_owner_resp in = {.op = PMIXEV_OWNER_JOB_STATE, .id = 7},
				 out;
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_req_pack(&w, &req), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_req_unpack(&r, &rq), 0);
	assert_int_equal(rq.job_id, 42);
	assert_int_equal(rq.id, 7);
	assert_strict(&w, unpack_owner_req);

	in.asked_again = 2;
	in.job.state = 1;
	in.job.end_time = 1800000600;
	in.job.preempt_time = 1800000000;
	in.job.suspend_time = 1799999000;
	in.job.now = 1800000010;
	in.job.preempt_mode = 2;
	snprintf(in.job.reason, sizeof(in.job.reason), "ECC errors");
	snprintf(in.job.nodes, sizeof(in.job.nodes), "n[1-3]");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_resp_unpack(&r, &out), 0);
	assert_int_equal(out.asked_again, 2);
	assert_int_equal(out.job.end_time, 1800000600);
	assert_int_equal(out.job.preempt_time, 1800000000);
	assert_int_equal(out.job.suspend_time, 1799999000);
	assert_int_equal(out.job.preempt_mode, 2);
	assert_string_equal(out.job.reason, "ECC errors");
	assert_string_equal(out.job.nodes, "n[1-3]");
	assert_strict(&w, unpack_owner_resp);

	/* An unknown operation is refused. */
	req.op = 99;
	assert_int_equal(req_packs(&req), -1);
}

/* The helper's signal notice: unasked (id 0), never a request. */
static void test_owner_signal(void **state)
{
	struct pmixev_owner_resp in = {.op = PMIXEV_OWNER_SIGNAL, .signo = 15},
				 out;
	struct pmixev_owner_req req = {.op = PMIXEV_OWNER_SIGNAL, .id = 1};
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_resp_unpack(&r, &out), 0);
	assert_int_equal(out.op, PMIXEV_OWNER_SIGNAL);
	assert_int_equal(out.signo, 15);
	assert_strict(&w, unpack_owner_resp);

	/* Not with an id: it answers nothing. */
	in.id = 3;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), -1);
	pmixev_buf_release(&w);
	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, PMIXEV_OWNER_SIGNAL);
	pmixev_buf_put_u32(&w, 3);
	pmixev_buf_put_u32(&w, 15);
	assert_int_equal(unpack_owner_resp(w.data, w.len), -1);
	pmixev_buf_release(&w);

	/* The stepd never asks for one. */
	assert_int_equal(req_packs(&req), -1);
}

/* A node-state answer's head, up to its first node, into a new `w`. */
static void nodes_head(struct pmixev_buf *w, uint32_t count)
{
	pmixev_buf_init(w);
	pmixev_buf_put_u8(w, PMIXEV_OWNER_NODE_STATE);
	pmixev_buf_put_u32(w, 9);
	pmixev_buf_put_i32(w, 0);
	pmixev_buf_put_u32(w, count);
	pmixev_buf_put_u32(w, 0);
}

static void test_owner_nodes(void **state)
{
	static struct pmixev_owner_resp in = {.op = PMIXEV_OWNER_NODE_STATE,
					      .id = 9},
					out;
	struct pmixev_buf w, r;

	in.nodes.count = 2;
	in.nodes.omitted = 3;
	snprintf(in.nodes.node[0].name, sizeof(in.nodes.node[0].name), "n2");
	in.nodes.node[0].avail = PMIXEV_NODE_DRAIN;
	snprintf(in.nodes.node[0].reason, sizeof(in.nodes.node[0].reason),
		 "ECC errors");
	snprintf(in.nodes.node[1].name, sizeof(in.nodes.node[1].name), "n3");
	in.nodes.node[1].avail = PMIXEV_NODE_DOWN;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_resp_unpack(&r, &out), 0);
	assert_int_equal(out.op, PMIXEV_OWNER_NODE_STATE);
	assert_int_equal(out.id, 9);
	assert_int_equal(out.nodes.count, 2);
	assert_int_equal(out.nodes.omitted, 3);
	assert_string_equal(out.nodes.node[0].name, "n2");
	assert_int_equal(out.nodes.node[0].avail, PMIXEV_NODE_DRAIN);
	assert_string_equal(out.nodes.node[0].reason, "ECC errors");
	assert_string_equal(out.nodes.node[1].name, "n3");
	assert_int_equal(out.nodes.node[1].avail, PMIXEV_NODE_DOWN);
	assert_string_equal(out.nodes.node[1].reason, "");
	assert_strict(&w, unpack_owner_resp);

	/* A node said to be up, or in an unknown state, is refused both
	 * ways; so is a count beyond what an answer holds. */
	in.nodes.node[1].avail = PMIXEV_NODE_UP;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), -1);
	pmixev_buf_release(&w);
	nodes_head(&w, 1);
	pmixev_buf_put_str(&w, "n2");
	pmixev_buf_put_u8(&w, PMIXEV_NODE_AVAIL_MAX + 1);
	pmixev_buf_put_str(&w, "");
	assert_int_equal(unpack_owner_resp(w.data, w.len), -1);
	pmixev_buf_release(&w);
	in.nodes.node[1].avail = PMIXEV_NODE_FAIL;
	in.nodes.count = PMIXEV_OWNER_NODES_MAX + 1;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), -1);
	pmixev_buf_release(&w);
	nodes_head(&w, PMIXEV_OWNER_NODES_MAX + 1);
	assert_int_equal(unpack_owner_resp(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static int unpack_jobinfo_req(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_jobinfo_req m;

	pmixev_buf_reader(&r, data, len);
	return pmixev_jobinfo_req_unpack(&r, &m);
}

static int unpack_jobinfo_resp(const uint8_t *data, size_t len)
{
	static struct pmixev_jobinfo_resp m;
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	return pmixev_jobinfo_resp_unpack(&r, &m);
}

/* Job control: the request's action and signal, Slurm's verdict. */
static void test_owner_control(void **state)
{
	struct pmixev_owner_req req = {.op = PMIXEV_OWNER_CONTROL,
				       .id = 3,
				       .job_id = 12,
				       .action = PMIXEV_CTL_SIGNAL_STEP,
				       .step_id = 1,
				       .signo = 10,
				       .not_after_ms = 0x123456789aULL},
				rq;
	static struct pmixev_owner_resp in, out;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_req_pack(&w, &req), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_req_unpack(&r, &rq), 0);
	assert_int_equal(rq.action, PMIXEV_CTL_SIGNAL_STEP);
	assert_int_equal(rq.step_id, 1);
	assert_int_equal(rq.signo, 10);
	assert_true(rq.not_after_ms == 0x123456789aULL);
	assert_strict(&w, unpack_owner_req);

	/* A signal is needed to signal, none beyond 64, no unknown action. */
	req.signo = 0;
	assert_int_equal(req_packs(&req), -1);
	req.signo = 65;
	assert_int_equal(req_packs(&req), -1);
	req.signo = 0;
	req.action = PMIXEV_CTL_REQUEUE_JOB;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_req_pack(&w, &req), 0);
	pmixev_buf_release(&w);
	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, PMIXEV_OWNER_CONTROL);
	pmixev_buf_put_u32(&w, 3);
	pmixev_buf_put_u32(&w, 12);
	pmixev_buf_put_u8(&w, PMIXEV_CTL_ACTION_MAX + 1);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 9);
	pmixev_buf_put_u64(&w, 0);
	assert_int_equal(unpack_owner_req(w.data, w.len), -1);
	pmixev_buf_release(&w);

	in.op = PMIXEV_OWNER_CONTROL;
	in.id = 3;
	in.ctl.rc = 2002;
	snprintf(in.ctl.reason, sizeof(in.ctl.reason),
		 "Access/permission denied");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_resp_unpack(&r, &out), 0);
	assert_int_equal(out.ctl.rc, 2002);
	assert_string_equal(out.ctl.reason, "Access/permission denied");
	assert_strict(&w, unpack_owner_resp);
}

/* An allocation for the owner, a shrink: Slurm names only, both ways. */
static void test_owner_alloc(void **state)
{
	static const char *bad_nodes[] = {"n1 n2", "n1;id", "$(id)", "n\n1"};
	static struct pmixev_owner_req req = {.op = PMIXEV_OWNER_ALLOC_NEW,
					      .id = 5,
					      .alloc = {.nnodes = 2,
							.ncpus = 4,
							.mem_mb = 1024,
							.minutes = 10}},
				       rq;
	static struct pmixev_owner_resp in, out;
	struct pmixev_buf w, r;

	(void)state;
	snprintf(req.alloc.name, sizeof(req.alloc.name), "12.pmixev-alloc");
	snprintf(req.alloc.partition, sizeof(req.alloc.partition), "debug");
	snprintf(req.alloc.exclude, sizeof(req.alloc.exclude), "n[1-2],n4");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_req_pack(&w, &req), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_req_unpack(&r, &rq), 0);
	assert_int_equal(rq.alloc.nnodes, 2);
	assert_int_equal(rq.alloc.ncpus, 4);
	assert_true(rq.alloc.mem_mb == 1024);
	assert_int_equal(rq.alloc.minutes, 10);
	assert_string_equal(rq.alloc.name, "12.pmixev-alloc");
	assert_string_equal(rq.alloc.partition, "debug");
	assert_string_equal(rq.alloc.exclude, "n[1-2],n4");
	assert_strict(&w, unpack_owner_req);

	/* Neither nodes nor CPUs; no name; node text beyond hostlists. */
	req.alloc.nnodes = req.alloc.ncpus = 0;
	assert_int_equal(req_packs(&req), -1);
	req.alloc.ncpus = 1;
	req.alloc.name[0] = '\0';
	assert_int_equal(req_packs(&req), -1);
	snprintf(req.alloc.name, sizeof(req.alloc.name), "x");
	for (size_t i = 0; i < sizeof(bad_nodes) / sizeof(*bad_nodes); i++) {
		snprintf(req.alloc.nodes, sizeof(req.alloc.nodes), "%s",
			 bad_nodes[i]);
		assert_int_equal(req_packs(&req), -1);
	}
	/* A shrink needs nodes, or how many. */
	req.op = PMIXEV_OWNER_SHRINK;
	req.alloc.nodes[0] = '\0';
	req.alloc.nnodes = 0;
	assert_int_equal(req_packs(&req), -1);
	snprintf(req.alloc.nodes, sizeof(req.alloc.nodes), "n1");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_req_pack(&w, &req), 0);
	assert_strict(&w, unpack_owner_req);

	/* A shrink names no command; an extension names an absolute one
	 * and asks for minutes or nodes. */
	snprintf(req.alloc.cmd, sizeof(req.alloc.cmd), "/usr/sbin/extend");
	assert_int_equal(req_packs(&req), -1);
	req.op = PMIXEV_OWNER_EXTEND;
	req.alloc.minutes = 30;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_req_pack(&w, &req), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_req_unpack(&r, &rq), 0);
	assert_string_equal(rq.alloc.cmd, "/usr/sbin/extend");
	assert_int_equal(rq.alloc.minutes, 30);
	assert_strict(&w, unpack_owner_req);
	req.alloc.minutes = req.alloc.nnodes = 0;
	assert_int_equal(req_packs(&req), -1);
	req.alloc.minutes = 30;
	snprintf(req.alloc.cmd, sizeof(req.alloc.cmd), "extend");
	assert_int_equal(req_packs(&req), -1);
	snprintf(req.alloc.cmd, sizeof(req.alloc.cmd), "/bin/x\n--rm");
	assert_int_equal(req_packs(&req), -1);

	/* The new job comes back with NEW's answer only. */
	in.op = PMIXEV_OWNER_ALLOC_NEW;
	in.id = 5;
	in.new_job = 77;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_resp_unpack(&r, &out), 0);
	assert_int_equal(out.new_job, 77);
	assert_strict(&w, unpack_owner_resp);
	in.op = PMIXEV_OWNER_SHRINK;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), -1);
	pmixev_buf_release(&w);
	in.new_job = 0;
	in.ctl.rc = 2002;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_resp_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_resp_unpack(&r, &out), 0);
	assert_int_equal(out.ctl.rc, 2002);
	assert_int_equal(out.new_job, 0);
	assert_strict(&w, unpack_owner_resp);
}

/* A mail for the owner helper: addresses that can never be options of
 * the command, a printable subject, an absolute command. */
static void test_owner_mail(void **state)
{
	static const char *bad_to[] = {"-oProgram=x", "a@b,-f",	  ",a@b",
				       "a@b,",	      "a@b,,c@d", "a b@c",
				       "a;b@c",	      "$(id)",	  "a\n@b"};
	static struct pmixev_owner_req req = {.op = PMIXEV_OWNER_MAIL, .id = 4},
				       rq;
	struct pmixev_buf w, r;

	(void)state;
	snprintf(req.mail.cmd, sizeof(req.mail.cmd), "/usr/bin/mail");
	snprintf(req.mail.to, sizeof(req.mail.to), "ann@example.org,bob");
	snprintf(req.mail.subject, sizeof(req.mail.subject), "step 12.0");
	snprintf(req.mail.text, sizeof(req.mail.text), "line 1\nline 2\n");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_req_pack(&w, &req), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_req_unpack(&r, &rq), 0);
	assert_string_equal(rq.mail.to, "ann@example.org,bob");
	assert_string_equal(rq.mail.text, "line 1\nline 2\n");
	assert_strict(&w, unpack_owner_req);
	for (size_t i = 0; i < sizeof(bad_to) / sizeof(*bad_to); i++) {
		snprintf(req.mail.to, sizeof(req.mail.to), "%s", bad_to[i]);
		assert_int_equal(req_packs(&req), -1);
	}
	req.mail.to[0] = '\0'; /* the owner */
	assert_true(pmixev_owner_mail_ok(&req.mail));
	snprintf(req.mail.subject, sizeof(req.mail.subject), "a\rb");
	assert_false(pmixev_owner_mail_ok(&req.mail));
	snprintf(req.mail.subject, sizeof(req.mail.subject), "ok");
	snprintf(req.mail.cmd, sizeof(req.mail.cmd), "mail");
	assert_false(pmixev_owner_mail_ok(&req.mail));
	memset(req.mail.to, 'a', sizeof(req.mail.to)); /* no NUL */
	snprintf(req.mail.cmd, sizeof(req.mail.cmd), "/usr/bin/mail");
	assert_false(pmixev_owner_mail_ok(&req.mail));
}

/* A node's question to the root and the root's answer: the partitions,
 * another job, or a failure. */
static void test_jobinfo(void **state)
{
	static struct pmixev_jobinfo_resp in, out;
	struct pmixev_jobinfo_req req = {.id = 9,
					 .op = PMIXEV_OWNER_PARTITIONS,
					 .refresh = 1},
				  rq;
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_jobinfo_req_pack(&w, &req), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_jobinfo_req_unpack(&r, &rq), 0);
	assert_int_equal(rq.id, 9);
	assert_int_equal(rq.op, PMIXEV_OWNER_PARTITIONS);
	assert_int_equal(rq.refresh, 1);
	assert_strict(&w, unpack_jobinfo_req);

	/* Never the watcher's node looks, never a signal; refresh is a bool. */
	req.op = PMIXEV_OWNER_NODE_STATE;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_jobinfo_req_pack(&w, &req), -1);
	pmixev_buf_release(&w);
	pmixev_buf_init(&w);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u8(&w, PMIXEV_OWNER_OTHER_JOB);
	pmixev_buf_put_u32(&w, 5);
	pmixev_buf_put_u8(&w, 2);
	assert_int_equal(unpack_jobinfo_req(w.data, w.len), -1);
	pmixev_buf_release(&w);

	in.id = 9;
	in.age_ms = 250;
	in.resp.op = PMIXEV_OWNER_PARTITIONS;
	in.resp.parts.count = 2;
	in.resp.parts.omitted = 1;
	snprintf(in.resp.parts.part[0].name, PMIXEV_OWNER_NAME, "debug");
	in.resp.parts.part[0].nodes = 3;
	in.resp.parts.part[0].max_time = UINT32_MAX;
	snprintf(in.resp.parts.part[1].name, PMIXEV_OWNER_NAME, "long");
	in.resp.parts.part[1].avail = PMIXEV_PART_DRAIN;
	in.resp.parts.part[1].max_time = 1440;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_jobinfo_resp_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_jobinfo_resp_unpack(&r, &out), 0);
	assert_int_equal(out.age_ms, 250);
	assert_int_equal(out.resp.parts.count, 2);
	assert_int_equal(out.resp.parts.omitted, 1);
	assert_string_equal(out.resp.parts.part[1].name, "long");
	assert_int_equal(out.resp.parts.part[1].avail, PMIXEV_PART_DRAIN);
	assert_int_equal(out.resp.parts.part[0].max_time, UINT32_MAX);
	assert_strict(&w, unpack_jobinfo_resp);

	/* A partition state Slurm does not have is refused both ways. */
	in.resp.parts.part[1].avail = PMIXEV_PART_AVAIL_MAX + 1;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_jobinfo_resp_pack(&w, &in), -1);
	pmixev_buf_release(&w);

	/* No answer: only the reason travels. */
	memset(&in, 0, sizeof(in));
	in.id = 4;
	in.failed = -46;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_jobinfo_resp_pack(&w, &in), 0);
	assert_int_equal(w.len, 12);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_jobinfo_resp_unpack(&r, &out), 0);
	assert_int_equal(out.failed, -46);
	assert_strict(&w, unpack_jobinfo_resp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_owner_nodes),
		cmocka_unit_test(test_notify),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_owner_signal),
		cmocka_unit_test(test_jobinfo),
		cmocka_unit_test(test_owner_control),
		cmocka_unit_test(test_owner_mail),
		cmocka_unit_test(test_owner_alloc),
	};

	return cmocka_run_group_tests_name("proto_events", tests, NULL, NULL);
}
