/* fsync-latency: how long fsync() of a file on a filesystem waits for its device,
 * the wait a loop device's flush (loop.c lo_req_flush() -> vfs_fsync() of the backing
 * file) adds to every journal commit of a filesystem mounted on the loop device.
 * Each of ROUNDS rounds rewrites one 4 KiB block of FILE and fsyncs it, timed with
 * CLOCK_MONOTONIC (wall time: the caller sleeps while the device works).
 *
 * Build and run: cc -O2 -o fsync-latency fsync-latency.c && ./fsync-latency FILE [ROUNDS]
 * Output: rounds, then median, mean, p90 of the fsync() calls in µs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fsync-latency FILE [ROUNDS]\n");
		return 2;
	}
	int rounds = argc > 2 ? atoi(argv[2]) : 200;
	if (rounds < 1 || rounds > 100000) {
		fprintf(stderr, "fsync-latency: ROUNDS must be 1 to 100000\n");
		return 2;
	}
	int fd = open(argv[1], O_RDWR | O_CREAT, 0600);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	char buf[4096];
	memset(buf, 'x', sizeof buf);
	double *t = malloc(rounds * sizeof *t), sum = 0;
	for (int i = 0; i < rounds; i++) {
		if (pwrite(fd, buf, sizeof buf, (off_t)(i % 16) * 4096) != sizeof buf) {
			perror("pwrite");
			return 1;
		}
		double t0 = now_us();
		if (fsync(fd)) {
			perror("fsync");
			return 1;
		}
		t[i] = now_us() - t0;
		sum += t[i];
	}
	qsort(t, rounds, sizeof *t, cmp);
	printf("%d %.0f %.0f %.0f\n", rounds, t[rounds / 2], sum / rounds, t[rounds * 9 / 10]);
	close(fd);
	unlink(argv[1]);
	return 0;
}
