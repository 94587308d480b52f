// SPDX-License-Identifier: GPL-2.0
/*
 * s61-bench: the loops of the bench suite that are too slow as shell
 * (a fork and exec per step costs ~0.1 s under TCG).
 *
 *   s61-bench memcg-tmpfs CGROOT MNT FROM TO KB
 *       for i in [FROM, TO): mkdir CGROOT/i and MNT/i, mount a tmpfs on
 *       MNT/i, move this process into CGROOT/i and write a KB KiB file
 *       MNT/i/file (charged to that memcg); then move back to the root
 *   s61-bench mounts MNT FROM TO     mkdir and mount a tmpfs on MNT/i
 *   s61-bench umounts MNT FROM TO    unmount MNT/i
 *   s61-bench mkdirs DIR FROM TO     mkdir DIR/i
 *   s61-bench rmdirs DIR FROM TO     rmdir DIR/i
 *   s61-bench negdentries DIR N [CGROUP]
 *       (in memcg CGROUP, when given) stat N names DIR/n<i> that do not
 *       exist: N negative dentries
 *   s61-bench memcg-write CGROOT DIR FROM TO KB WRITERS
 *       the write phase of P4 at scale: WRITERS processes at once, writer w
 *       taking the memcgs i = FROM + w, FROM + w + WRITERS, ... < TO in
 *       turn: it moves into CGROOT/i and writes a KB KiB file DIR/i/file in
 *       64 KiB write() calls, each timed. Prints "write_ms W", then the
 *       p50, p99 and max of the write() latencies ("wlat_p50_us V" ...)
 *       and "writes N"
 *   s61-bench mount-loop DIR
 *       P6: mount a tmpfs on DIR and unmount it, each call timed, until
 *       SIGTERM or SIGINT; then prints "ops N", the p50, p99 and max of
 *       either call ("mount_p50_ms V" ...) and "mount_dist V..." /
 *       "umount_dist V...": the sorted latencies in ms, at most 400 of
 *       them, evenly spaced in rank
 *   s61-bench timed mount SOURCE TARGET FSTYPE | umount TARGET |
 *                   insmod FILE [PARAMS] | rmmod NAME
 *       one system call (mount, umount, finit_module, delete_module),
 *       timed around the call alone (a fork and exec under TCG costs more
 *       than the call): prints its milliseconds
 *
 * Exit: 0 done, 1 a step failed (says which), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "s61-bench: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static int join_cgroup(const char *dir)
{
	char path[4096], pid[32];
	int fd, len;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	len = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return fail("open", path);
	if (write(fd, pid, len) != len) {
		close(fd);
		return fail("write", path);
	}
	close(fd);
	return 0;
}

static int mkdir_p(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		return fail("mkdir", path);
	return 0;
}

static int write_file(const char *path, long kb)
{
	static char buf[65536];
	long left = kb * 1024;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return fail("create", path);
	while (left > 0) {
		ssize_t n = write(fd, buf, left < (long)sizeof(buf) ? left : (long)sizeof(buf));

		if (n <= 0) {
			close(fd);
			return fail("write", path);
		}
		left -= n;
	}
	close(fd);
	return 0;
}

static int do_mount(const char *mnt, long i)
{
	char path[4096], src[64];

	snprintf(path, sizeof(path), "%s/%ld", mnt, i);
	snprintf(src, sizeof(src), "s61b-%ld", i);
	if (mkdir_p(path))
		return 1;
	if (mount(src, path, "tmpfs", 0, "size=2M"))
		return fail("mount tmpfs on", path);
	return 0;
}

static int memcg_tmpfs(const char *cgroot, const char *mnt, long from, long to, long kb)
{
	char cg[4096], file[4096];
	long i;

	for (i = from; i < to; i++) {
		snprintf(cg, sizeof(cg), "%s/%ld", cgroot, i);
		snprintf(file, sizeof(file), "%s/%ld/file", mnt, i);
		if (mkdir_p(cg) || do_mount(mnt, i) || join_cgroup(cg) || write_file(file, kb))
			return 1;
	}
	return join_cgroup("/sys/fs/cgroup");
}

static int negdentries(const char *dir, long n)
{
	char path[4096];
	struct stat st;
	long i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/n%ld", dir, i);
		if (stat(path, &st) == 0) {
			errno = EEXIST;
			return fail("stat (expected ENOENT)", path);
		}
		if (errno != ENOENT)
			return fail("stat", path);
	}
	return 0;
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static int timed(int argc, char **argv)
{
	const char *op = argv[0];
	long long t0, t1;
	int rc, fd = -1;

	if (!strcmp(op, "insmod") && (argc == 2 || argc == 3)) {
		fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail("open", argv[1]);
	} else if (!(!strcmp(op, "mount") && argc == 4) && !(!strcmp(op, "umount") && argc == 2) &&
		   !(!strcmp(op, "rmmod") && argc == 2)) {
		fprintf(stderr, "s61-bench timed: bad operation or arguments\n");
		return 2;
	}
	t0 = now_us();
	if (!strcmp(op, "mount"))
		rc = mount(argv[1], argv[2], argv[3], 0, NULL);
	else if (!strcmp(op, "umount"))
		rc = umount(argv[1]);
	else if (!strcmp(op, "insmod"))
		rc = syscall(SYS_finit_module, fd, argc == 3 ? argv[2] : "", 0);
	else
		rc = syscall(SYS_delete_module, argv[1], O_NONBLOCK);
	t1 = now_us();
	if (rc)
		return fail(op, argv[1]);
	if (fd >= 0)
		close(fd);
	printf("%lld.%03lld\n", (t1 - t0) / 1000, (t1 - t0) % 1000);
	return 0;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of n sorted values. */
static long long pct(const long long *v, long n, int p)
{
	long r = (n * p + 99) / 100;

	if (n == 0)
		return 0;
	return v[r < 1 ? 0 : r - 1];
}

#define WRITE_CHUNK 65536

static int memcg_write(const char *cgroot, const char *dir, long from, long to, long kb,
		       long writers)
{
	long per = (kb * 1024 + WRITE_CHUNK - 1) / WRITE_CHUNK, nmemcg = to - from;
	long nlat = nmemcg * per, w, i, n = 0, bad = 0;
	long long *lat, t0, t1;
	int status;

	if (nmemcg <= 0 || kb <= 0 || writers <= 0) {
		fprintf(stderr, "s61-bench memcg-write: bad range, size or writer count\n");
		return 2;
	}
	if (writers > nmemcg)
		writers = nmemcg;
	/* One slot per write() of every memcg, shared with the writers. */
	lat = mmap(NULL, nlat * sizeof(*lat), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (lat == MAP_FAILED)
		return fail("mmap", "latency table");
	memset(lat, 0xff, nlat * sizeof(*lat));
	t0 = now_us();
	for (w = 0; w < writers; w++) {
		pid_t pid = fork();

		if (pid < 0)
			return fail("fork", "writer");
		if (pid)
			continue;
		for (i = from + w; i < to; i += writers) {
			static char buf[WRITE_CHUNK];
			char cg[4096], file[4096];
			long left = kb * 1024, k = 0;
			int fd;

			snprintf(cg, sizeof(cg), "%s/%ld", cgroot, i);
			snprintf(file, sizeof(file), "%s/%ld/file", dir, i);
			if (join_cgroup(cg))
				_exit(1);
			fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				_exit(fail("create", file));
			while (left > 0) {
				size_t len = left < WRITE_CHUNK ? left : WRITE_CHUNK;
				long long a = now_us();
				ssize_t r = write(fd, buf, len);

				if (k < per)
					lat[(i - from) * per + k++] = now_us() - a;
				if (r <= 0)
					_exit(fail("write", file));
				left -= r;
			}
			close(fd);
		}
		_exit(0);
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	t1 = now_us();
	if (bad) {
		fprintf(stderr, "s61-bench memcg-write: %ld of %ld writers failed\n", bad, writers);
		return 1;
	}
	for (i = 0; i < nlat; i++)
		if (lat[i] >= 0)
			lat[n++] = lat[i];
	qsort(lat, n, sizeof(*lat), cmp_ll);
	printf("write_ms %lld.%03lld\n", (t1 - t0) / 1000, (t1 - t0) % 1000);
	printf("wlat_p50_us %lld\nwlat_p99_us %lld\nwlat_max_us %lld\nwrites %ld\n",
	       pct(lat, n, 50), pct(lat, n, 99), n ? lat[n - 1] : 0, n);
	return 0;
}

static volatile sig_atomic_t stop_loop;

static void on_stop(int sig)
{
	stop_loop = 1;
}

#define LOOP_MAX 200000
#define DIST_MAX 400

static void print_lat(const char *what, long long *v, long n)
{
	long k, m = n < DIST_MAX ? n : DIST_MAX;

	qsort(v, n, sizeof(*v), cmp_ll);
	printf("%s_p50_ms %.3f\n%s_p99_ms %.3f\n%s_max_ms %.3f\n", what, pct(v, n, 50) / 1000.0,
	       what, pct(v, n, 99) / 1000.0, what, (n ? v[n - 1] : 0) / 1000.0);
	printf("%s_dist", what);
	for (k = 0; k < m; k++)
		printf(" %.3f", v[m > 1 ? k * (n - 1) / (m - 1) : 0] / 1000.0);
	printf("\n");
}

static int mount_loop(const char *dir)
{
	static long long mnt[LOOP_MAX], umnt[LOOP_MAX];
	struct sigaction sa = { .sa_handler = on_stop };
	long n = 0;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (mkdir_p(dir))
		return 1;
	while (!stop_loop && n < LOOP_MAX) {
		long long a = now_us(), b, c;

		if (mount("s61-p6", dir, "tmpfs", 0, "size=1M"))
			return fail("mount tmpfs on", dir);
		b = now_us();
		if (umount(dir))
			return fail("umount", dir);
		c = now_us();
		mnt[n] = b - a;
		umnt[n++] = c - b;
	}
	printf("ops %ld\n", n);
	print_lat("mount", mnt, n);
	print_lat("umount", umnt, n);
	return n ? 0 : 1;
}

int main(int argc, char **argv)
{
	char path[4096];
	long from, to, i;
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "memcg-tmpfs") && argc == 7)
		return memcg_tmpfs(argv[2], argv[3], atol(argv[4]), atol(argv[5]), atol(argv[6]));
	if (!strcmp(cmd, "memcg-write") && argc == 8)
		return memcg_write(argv[2], argv[3], atol(argv[4]), atol(argv[5]), atol(argv[6]),
				   atol(argv[7]));
	if (!strcmp(cmd, "mount-loop") && argc == 3)
		return mount_loop(argv[2]);
	if (!strcmp(cmd, "timed") && argc >= 4)
		return timed(argc - 2, argv + 2);
	if (!strcmp(cmd, "negdentries") && (argc == 4 || argc == 5)) {
		if (argc == 5 && join_cgroup(argv[4]))
			return 1;
		return negdentries(argv[2], atol(argv[3]));
	}
	if (argc != 5 || (strcmp(cmd, "mounts") && strcmp(cmd, "umounts") &&
			  strcmp(cmd, "mkdirs") && strcmp(cmd, "rmdirs"))) {
		fprintf(stderr, "usage: s61-bench memcg-tmpfs CGROOT MNT FROM TO KB |\n"
			"       s61-bench memcg-write CGROOT DIR FROM TO KB WRITERS |\n"
			"       s61-bench mount-loop DIR |\n"
			"       s61-bench mounts|umounts|mkdirs|rmdirs DIR FROM TO |\n"
			"       s61-bench negdentries DIR N [CGROUP] |\n"
			"       s61-bench timed mount SRC TGT FSTYPE|umount TGT|insmod FILE [PARAMS]|rmmod NAME\n");
		return 2;
	}
	from = atol(argv[3]);
	to = atol(argv[4]);
	for (i = from; i < to; i++) {
		snprintf(path, sizeof(path), "%s/%ld", argv[2], i);
		if (!strcmp(cmd, "mounts")) {
			if (do_mount(argv[2], i))
				return 1;
		} else if (!strcmp(cmd, "umounts")) {
			if (umount(path))
				return fail("umount", path);
		} else if (!strcmp(cmd, "mkdirs")) {
			if (mkdir(path, 0755))
				return fail("mkdir", path);
		} else if (rmdir(path)) {
			return fail("rmdir", path);
		}
	}
	return 0;
}
