// SPDX-License-Identifier: GPL-2.0
/*
 * s61-failnth: run one mount(2) or mkdir(2) with the N-th fault-injection
 * point of this task failing (/proc/thread-self/fail-nth), with no other
 * system call in between, and report whether the fault was injected.
 *
 *   s61-failnth N mount SOURCE TARGET FSTYPE
 *   s61-failnth N mkdir PATH
 *
 * Prints "rc=<0|-1> errno=<e> injected=<0|1>". Exit: 0 the operation
 * succeeded, 1 it failed, 2 usage or setup error, 3 the operation succeeded
 * and the N-th point was never reached (the sweep is complete).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[32];
	int fd, n, rc, err, left;
	ssize_t len;

	if (argc < 4)
		return 2;
	n = atoi(argv[1]);
	fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fd < 0 || n <= 0) {
		perror("fail-nth");
		return 2;
	}
	len = snprintf(buf, sizeof(buf), "%d", n);
	if (write(fd, buf, len) != len) {
		perror("write fail-nth");
		return 2;
	}
	if (!strcmp(argv[2], "mount") && argc == 6)
		rc = mount(argv[3], argv[4], argv[5], 0, NULL);
	else if (!strcmp(argv[2], "mkdir"))
		rc = mkdir(argv[3], 0755);
	else
		rc = -2;
	err = errno;
	memset(buf, 0, sizeof(buf));
	if (pread(fd, buf, sizeof(buf) - 1, 0) < 0) {
		perror("read fail-nth");
		return 2;
	}
	left = atoi(buf);
	if (write(fd, "0", 1) != 1)
		return 2;
	if (rc == -2)
		return 2;
	printf("rc=%d errno=%d injected=%d\n", rc, rc ? err : 0, left == 0);
	if (rc)
		return 1;
	return left ? 3 : 0;
}
