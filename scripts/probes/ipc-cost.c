/* ipc-cost: the CPU time of one write and one read of hackbench's message
 * (DATASIZE 100 bytes) on an AF_UNIX stream socketpair and on a pipe, in one
 * thread that never blocks: batches of BATCH writes then BATCH reads, each batch
 * timed with CLOCK_THREAD_CPUTIME_ID. No wakeup, context switch or migration is
 * in these figures: they are what hackbench's `work_ns` stands for (the model
 * charges the wakeups and switches itself).
 *
 * Build and run: cc -O2 -o ipc-cost ipc-cost.c && ./ipc-cost [ROUNDS]
 * Output: one line per kind: kind, ns per write, ns per read (median of 5 runs).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#define DATASIZE 100
#define BATCH 100

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void run(int wfd, int rfd, long rounds, double *w_ns, double *r_ns)
{
	char buf[DATASIZE];
	long long tw = 0, tr = 0;
	memset(buf, 'x', sizeof buf);
	for (long i = 0; i < rounds; i++) {
		long long t0 = now_ns();
		for (int j = 0; j < BATCH; j++)
			if (write(wfd, buf, DATASIZE) != DATASIZE) { perror("write"); exit(1); }
		long long t1 = now_ns();
		for (int j = 0; j < BATCH; j++)
			if (read(rfd, buf, DATASIZE) != DATASIZE) { perror("read"); exit(1); }
		long long t2 = now_ns();
		tw += t1 - t0;
		tr += t2 - t1;
	}
	*w_ns = (double)tw / (rounds * BATCH);
	*r_ns = (double)tr / (rounds * BATCH);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	for (int kind = 0; kind < 2; kind++) {
		double w[5], r[5];
		for (int k = 0; k < 5; k++) {
			int fds[2];
			if (kind == 0 ? socketpair(AF_UNIX, SOCK_STREAM, 0, fds) : pipe(fds)) { perror("fds"); return 1; }
			run(fds[kind == 0 ? 0 : 1], fds[kind == 0 ? 1 : 0], rounds, &w[k], &r[k]);
			close(fds[0]);
			close(fds[1]);
		}
		qsort(w, 5, sizeof *w, cmp);
		qsort(r, 5, sizeof *r, cmp);
		printf("%s %.0f %.0f\n", kind == 0 ? "socket" : "pipe", w[2], r[2]);
	}
	return 0;
}
