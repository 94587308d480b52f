// SPDX-License-Identifier: GPL-2.0
/*
 * s61-negdent: create negative dentries below a directory by looking up
 * names that do not exist ("DIR/n0" .. "DIR/n<N-1>"), one stat(2) each.
 * The shell loop that does the same costs several seconds per 100000
 * names under TCG; this does it with no interpreter in between.
 *
 *   s61-negdent DIR N
 *
 * A name that exists is looked up too and is not an error (as in the
 * shell loop). Exit: 0 done, 1 DIR is not a directory or a lookup failed
 * with something other than ENOENT (the message says which), 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	char path[4096];
	struct stat st;
	long i, n;
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: s61-negdent DIR N\n");
		return 2;
	}
	n = strtol(argv[2], &end, 10);
	if (*argv[2] == '\0' || *end != '\0' || n < 0) {
		fprintf(stderr, "s61-negdent: bad count '%s'\n", argv[2]);
		return 2;
	}
	if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "s61-negdent: %s is not a directory\n", argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/n%ld", argv[1], i) >= (int)sizeof(path)) {
			fprintf(stderr, "s61-negdent: path too long\n");
			return 2;
		}
		if (stat(path, &st) != 0 && errno != ENOENT) {
			fprintf(stderr, "s61-negdent: stat %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	return 0;
}
