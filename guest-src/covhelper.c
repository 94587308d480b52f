// SPDX-License-Identifier: GPL-2.0
/*
 * s61-covhelper: user-space workloads for the runtime coverage suite
 * (rootfs-overlay/s61/tests/coverage/), which fill the caches that a
 * shrinker frees.
 *
 *   s61-covhelper thp-zero                map the huge zero page, then exit
 *   s61-covhelper thp-split READY         THPs, partly unmapped (deferred
 *                                         split queue); touch READY, pause
 *   s61-covhelper zram-frag DEV MB        MB of compressible pages, then every
 *                                         other page zeroed (zsmalloc holes)
 *   s61-covhelper binder DEV READY        a one-way binder transaction to
 *                                         ourselves, buffers freed: pages on
 *                                         the binder LRU; touch READY, pause
 *   s61-covhelper dmz-format DEV ZONE_MB NR_ZONES RESERVED
 *                                         write dm-zoned (v2) metadata for a
 *                                         single zoned device whose first zone
 *                                         is conventional (what dmzadm --format
 *                                         does; Debian 12 has no dmzadm);
 *                                         prints the target length in sectors
 *
 * Exit: 0 done, 1 a system call failed (the message says which), 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>
#include <linux/android/binder.h>

#define MB (1UL << 20)
#define HPAGE (2 * MB)
#define PAGE 4096UL

static int die(const char *what)
{
	fprintf(stderr, "s61-covhelper: %s: %s\n", what, strerror(errno));
	return 1;
}

static void ready(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0)
		close(fd);
	for (;;)
		pause();
}

/* n bytes of anonymous memory aligned to 2 MB, THP advised. */
static char *thp_area(size_t n)
{
	char *p = mmap(NULL, n + HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)p + HPAGE - 1) & ~(HPAGE - 1));
	madvise(p, n, MADV_HUGEPAGE);
	return p;
}

static int thp_zero(void)
{
	size_t n = 8 * HPAGE, i;
	volatile char *p = thp_area(n);
	unsigned long sum = 0;

	if (!p)
		return die("mmap");
	for (i = 0; i < n; i += PAGE)
		sum += p[i];
	printf("read %zu MB of untouched THP-advised memory (sum %lu)\n", n / MB, sum);
	return 0;
}

static int thp_split(const char *readyfile)
{
	size_t n = 16 * HPAGE, i;
	char *p = thp_area(n);

	if (!p)
		return die("mmap");
	memset(p, 0x5a, n);
	/* Unmap one small page of each huge page: each THP becomes partly
	 * mapped and is queued for deferred splitting. */
	for (i = 0; i < n; i += HPAGE)
		if (munmap(p + i + PAGE, PAGE))
			return die("munmap");
	printf("%zu THP-advised huge pages written and partly unmapped\n", n / HPAGE);
	fflush(stdout);
	ready(readyfile);
	return 0;
}

static int zram_frag(const char *dev, long mb)
{
	long pages = mb * (long)(MB / PAGE), i;
	uint32_t x = 12345;
	char *buf;
	int fd, j;

	fd = open(dev, O_WRONLY);
	if (fd < 0)
		return die(dev);
	if (posix_memalign((void **)&buf, PAGE, PAGE))
		return die("posix_memalign");
	for (i = 0; i < pages; i++) {
		/* about 1 kB of noise and 3 kB of zeros: compresses to ~1 kB */
		memset(buf, 0, PAGE);
		for (j = 0; j < 1024; j++) {
			x = x * 1103515245 + 12345;
			buf[j] = (char)(x >> 16);
		}
		if (pwrite(fd, buf, PAGE, i * PAGE) != (ssize_t)PAGE)
			return die("pwrite data");
	}
	if (fsync(fd))
		return die("fsync");
	memset(buf, 0, PAGE);
	for (i = 1; i < pages; i += 2)
		if (pwrite(fd, buf, PAGE, i * PAGE) != (ssize_t)PAGE)
			return die("pwrite zeros");
	if (fsync(fd))
		return die("fsync");
	printf("%s: wrote %ld pages, then zeroed every other one\n", dev, pages);
	return 0;
}

static int bwr(int fd, void *wbuf, size_t wsize, void *rbuf, size_t rsize,
	       size_t *consumed)
{
	struct binder_write_read bwr = {
		.write_size = wsize,
		.write_buffer = (uintptr_t)wbuf,
		.read_size = rsize,
		.read_buffer = (uintptr_t)rbuf,
	};

	if (ioctl(fd, BINDER_WRITE_READ, &bwr) < 0)
		return -1;
	if (consumed)
		*consumed = bwr.read_consumed;
	return 0;
}

/* Four one-way transactions of 64 kB from a child process (binder refuses
 * a context manager's transactions to itself). */
static int binder_client(const char *dev, int done)
{
	static char payload[64 * 1024];
	int cli, i;

	cli = open(dev, O_RDWR | O_CLOEXEC);
	if (cli < 0)
		return die(dev);
	if (mmap(NULL, MB, PROT_READ, MAP_PRIVATE, cli, 0) == MAP_FAILED)
		return die("mmap binder (client)");
	memset(payload, 0x42, sizeof(payload));
	for (i = 0; i < 4; i++) {
		struct {
			uint32_t cmd;
			struct binder_transaction_data tr;
		} __attribute__((packed)) w = { .cmd = BC_TRANSACTION };

		w.tr.target.handle = 0;
		w.tr.code = 1;
		w.tr.flags = TF_ONE_WAY;
		w.tr.data_size = sizeof(payload);
		w.tr.data.ptr.buffer = (uintptr_t)payload;
		if (bwr(cli, &w, sizeof(w), NULL, 0, NULL))
			return die("BC_TRANSACTION");
	}
	if (write(done, "x", 1) != 1)
		return die("write pipe");
	for (;;)
		pause();
}

static int binder(const char *dev, const char *readyfile)
{
	int mgr, i, freed = 0, p[2];
	char rbuf[4096], c;
	pid_t child;

	mgr = open(dev, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (mgr < 0)
		return die(dev);
	if (mmap(NULL, MB, PROT_READ, MAP_PRIVATE, mgr, 0) == MAP_FAILED)
		return die("mmap binder");
	if (ioctl(mgr, BINDER_SET_CONTEXT_MGR, 0) < 0)
		return die("BINDER_SET_CONTEXT_MGR");
	{
		uint32_t cmd = BC_ENTER_LOOPER;

		if (bwr(mgr, &cmd, sizeof(cmd), NULL, 0, NULL))
			return die("BC_ENTER_LOOPER");
	}
	if (pipe(p))
		return die("pipe");
	child = fork();
	if (child < 0)
		return die("fork");
	if (child == 0)
		_exit(binder_client(dev, p[1]));
	if (read(p[0], &c, 1) != 1) {
		fprintf(stderr, "s61-covhelper: the binder client failed\n");
		return 1;
	}
	/* Receive them and free each buffer: its pages go to the binder LRU. */
	for (i = 0; i < 200 && freed < 4; i++) {
		size_t got = 0, off = 0;

		if (bwr(mgr, NULL, 0, rbuf, sizeof(rbuf), &got)) {
			if (errno == EAGAIN) {
				usleep(50000);
				continue;
			}
			return die("BINDER_WRITE_READ read");
		}
		while (off + sizeof(uint32_t) <= got) {
			uint32_t cmd;

			memcpy(&cmd, rbuf + off, sizeof(cmd));
			off += sizeof(cmd);
			if (cmd == BR_TRANSACTION) {
				struct binder_transaction_data tr;
				struct {
					uint32_t cmd;
					binder_uintptr_t ptr;
				} __attribute__((packed)) f = { .cmd = BC_FREE_BUFFER };

				memcpy(&tr, rbuf + off, sizeof(tr));
				off += sizeof(tr);
				f.ptr = tr.data.ptr.buffer;
				if (bwr(mgr, &f, sizeof(f), NULL, 0, NULL))
					return die("BC_FREE_BUFFER");
				freed++;
			} else if (_IOC_SIZE(cmd)) {
				off += _IOC_SIZE(cmd);
			}
		}
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (freed < 4) {
		fprintf(stderr, "s61-covhelper: received %d of 4 transactions\n", freed);
		return 1;
	}
	printf("binder: 4 one-way transactions of 64 kB received and freed\n");
	fflush(stdout);
	ready(readyfile);
	return 0;
}

/* The kernel's crc32_le(): reflected CRC-32, seed as given, no final xor. */
static uint32_t crc32_le(uint32_t crc, const unsigned char *p, size_t n)
{
	int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
	}
	return crc;
}

struct dmz_super {
	uint32_t magic, version;
	uint64_t gen, sb_block;
	uint32_t nr_meta_blocks, nr_reserved_seq, nr_chunks, nr_map_blocks;
	uint32_t nr_bitmap_blocks, crc;
	uint8_t label[32], uuid[16], dev_uuid[16], reserved[400];
} __attribute__((packed));

/* Primary metadata set in zone 0: super block, chunk mapping (all
 * unmapped), zone bitmaps (all clear). The kernel recovers the secondary
 * set from it. Little-endian host assumed (x86). */
static int dmz_format(const char *dev, long zone_mb, long nr_zones, long reserved)
{
	const size_t blk = 4096;
	long zone_blocks = zone_mb * (long)(MB / blk);
	long bitmap_per_zone = zone_blocks / 8 / (long)blk;
	long map_blocks, bitmap_blocks, meta_blocks, meta_zones, chunks, i;
	static unsigned char buf[4096];
	struct dmz_super *sb = (struct dmz_super *)buf;
	int fd;

	if (bitmap_per_zone < 1)
		bitmap_per_zone = 1;
	bitmap_blocks = nr_zones * bitmap_per_zone;
	/* chunks depend on the metadata size and vice versa: iterate */
	chunks = nr_zones;
	for (i = 0; i < 3; i++) {
		map_blocks = (chunks * 8 + blk - 1) / blk;
		meta_blocks = 1 + map_blocks + bitmap_blocks;
		meta_zones = (meta_blocks + zone_blocks - 1) / zone_blocks;
		chunks = nr_zones - (meta_zones * 2 + reserved);
	}
	if (chunks <= 0) {
		fprintf(stderr, "s61-covhelper: too few zones\n");
		return 1;
	}
	fd = open(dev, O_WRONLY);
	if (fd < 0)
		return die(dev);
	memset(buf, 0, sizeof(buf));
	sb->magic = ('D' << 24) | ('Z' << 16) | ('B' << 8) | 'D';
	sb->version = 2;
	sb->gen = 1;
	sb->sb_block = 0;
	sb->nr_meta_blocks = meta_blocks;
	sb->nr_reserved_seq = reserved;
	sb->nr_chunks = chunks;
	sb->nr_map_blocks = map_blocks;
	sb->nr_bitmap_blocks = bitmap_blocks;
	memcpy(sb->label, "s61cov", 6);
	memset(sb->uuid, 0x61, sizeof(sb->uuid));
	memset(sb->dev_uuid, 0x62, sizeof(sb->dev_uuid));
	sb->crc = crc32_le((uint32_t)sb->gen, buf, blk);
	if (pwrite(fd, buf, blk, 0) != (ssize_t)blk)
		return die("pwrite super block");
	memset(buf, 0xff, blk);
	for (i = 0; i < map_blocks; i++)
		if (pwrite(fd, buf, blk, (1 + i) * blk) != (ssize_t)blk)
			return die("pwrite mapping");
	memset(buf, 0, blk);
	for (i = 0; i < bitmap_blocks; i++)
		if (pwrite(fd, buf, blk, (1 + map_blocks + i) * blk) != (ssize_t)blk)
			return die("pwrite bitmap");
	if (fsync(fd))
		return die("fsync");
	close(fd);
	printf("%ld\n", chunks * zone_blocks * 8);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "thp-zero"))
		return thp_zero();
	if (argc >= 3 && !strcmp(argv[1], "thp-split"))
		return thp_split(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "zram-frag"))
		return zram_frag(argv[2], atol(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "binder"))
		return binder(argv[2], argv[3]);
	if (argc >= 6 && !strcmp(argv[1], "dmz-format"))
		return dmz_format(argv[2], atol(argv[3]), atol(argv[4]), atol(argv[5]));
	fprintf(stderr, "usage: s61-covhelper thp-zero | thp-split READY | zram-frag DEV MB | binder DEV READY | dmz-format DEV ZONE_MB NR_ZONES RESERVED\n");
	return 2;
}
