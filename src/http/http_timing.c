/*-------------------------------------------------------------------------
 *
 * http_timing.c
 *		CPU time of each request and of its authentication, for
 *		stdesign.http_status() (stdesign.http_track_timing).
 *
 * The times are the worker thread's own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), not wall time: on a machine shared with other
 * work, a request that is preempted or waits for its turn on a CPU would
 * count that wait in wall time, and a few such waits would outweigh the
 * microseconds being measured.  CPU time counts only what the worker did.
 * (Lock waits and WAL flushes at commit are not CPU time either: the
 * statistics measure the work of a request, not its latency.)
 *
 * Reading a thread's CPU clock is a system call, which costs about a
 * microsecond or more (on a virtual machine a few), and is itself counted
 * as the thread's CPU time.  Two costs follow.  It is off by default, like
 * Postgres's track_io_timing.  And each interval measured contains the
 * clock's own cost between its two readings, once, plus once more for each
 * reading taken inside it: that cost is measured when a worker first times
 * a request (the median of back-to-back readings) and subtracted, so that
 * authenticating under trust, which does next to nothing, counts next to
 * nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

#include "utils/guc.h"

#include "http_server.h"

bool		http_track_timing = false;

#define CALIBRATION_READS 31

static bool timing = false;		/* the request being answered is timed */
static int64 request_start;
static int64 auth_start = -1;	/* -1: authentication not being timed */
static int64 auth_total;
static int	inner_reads;		/* clock readings inside the request's interval */
static int64 clock_cost = -1;	/* one reading, from a worker's calibration */

static int64
cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (int64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
cmp_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* What two back-to-back readings measure: the cost to subtract. */
static void
calibrate(void)
{
	int64		d[CALIBRATION_READS];

	for (int i = 0; i < CALIBRATION_READS; i++)
	{
		int64		a = cpu_ns();

		d[i] = cpu_ns() - a;
	}
	qsort(d, CALIBRATION_READS, sizeof(int64), cmp_int64);
	clock_cost = d[CALIBRATION_READS / 2];
}

void
http_timing_define_setting(void)
{
	DefineCustomBoolVariable("stdesign.http_track_timing",
							 "Counts the CPU time of HTTP requests and of their authentication in stdesign.http_status().",
							 "Reading a thread's CPU clock costs a system call per reading: off by default.",
							 &http_track_timing, false, PGC_SIGHUP, 0, NULL, NULL, NULL);
}

void
http_timing_begin(void)
{
	timing = http_track_timing;
	if (!timing)
		return;
	if (clock_cost < 0)
		calibrate();
	auth_start = -1;
	auth_total = 0;
	inner_reads = 0;
	request_start = cpu_ns();
}

void
http_timing_auth_begin(void)
{
	if (!timing)
		return;
	inner_reads++;
	auth_start = cpu_ns();
}

void
http_timing_auth_end(void)
{
	if (!timing || auth_start < 0)
		return;
	inner_reads++;
	auth_total += cpu_ns() - auth_start - clock_cost;
	auth_start = -1;
}

bool
http_timing_end(int64 *request_ns, int64 *auth_ns)
{
	if (!timing)
		return false;
	timing = false;
	*request_ns = cpu_ns() - request_start - clock_cost * (1 + inner_reads);
	*auth_ns = auth_total;
	return true;
}
