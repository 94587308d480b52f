// SPDX-License-Identifier: GPL-2.0
/*
 * s61_shrinker_test: a shrinker whose behaviour the guest tests control, to
 * check the properties of the lockless slab shrink port on Linux 6.1.
 *
 * The shrinker counts nr_objects objects; a scan "frees" up to nr_to_scan of
 * them. With block=1 the first scan to arrive waits (interruptibly) until
 * "release" is written or block is set to 0, so a test can keep a reclaimer
 * inside a shrinker while it mounts, unmounts or reclaims elsewhere. Only one
 * scan blocks at a time: the others go through, so that a second reclaimer
 * can show whether it still reaches the shrinkers behind this one.
 *
 * Load-time parameters: nr_objects, block, sleep_ms, memcg_aware, numa_aware,
 * nonslab (needs memcg_aware), leak (a negative control for kmemleak: load
 * leaks one 256-byte object on purpose, from s61_leak_object()). Run-time
 * control and state are in debugfs,
 * /sys/kernel/debug/s61_shrinker_test/:
 *   nr_objects  (rw) objects that count_objects reports
 *   block       (rw) 1: the next scan waits for release
 *   sleep_ms    (rw) every scan sleeps this long first
 *   release     (w)  wake the blocked scan; also sets block to 0
 *   in_scan     (r)  1 while a scan is blocked
 *   scans, counts, freed (r) calls of scan and count, objects freed
 *   memcg_item  (w)  with memcg_aware=1 and kmem accounting off: put an
 *                    item of the writer's memcg on the shrinker's list_lru
 *                    (see s61_memcg_item_write()); memcg_items (r) counts them
 *   churn       (w)  "CYCLES WIDTH ITEMS HOLD_MS": memcg-aware shrinkers
 *                    that come and go while their bits are set in the
 *                    writer's memcg (see s61_churn_write())
 *   churn_stats (r)  what reclaim did to them (see s61_churn_stats_show())
 *   api         (r)  "new" (shrinker_alloc) or "old" (register_shrinker)
 *   lockless    (r)  "yes" when the kernel's shrinker header has the
 *                    lockless pinning (shrinker_try_get), else "no"
 *   kasan_uaf   (w)  negative control for KASAN: read an object the
 *                    module has just freed (see s61_kasan_uaf_write())
 *   lockdep_abba (w) negative control for lockdep: take two mutexes in
 *                    both orders (see s61_lockdep_abba_write())
 * The shrinker is named "s61-test" (debugfs: shrinker/s61-test-<id>).
 *
 * It builds against both shrinker APIs: the shrinker_alloc() family where
 * include/linux/shrinker.h defines SHRINKER_ALLOCATED (preferred where both
 * exist), else register_shrinker() with the shrinker embedded here.
 * Building with S61_FORCE_OLD_API=y selects the old API where both exist.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/list_lru.h>
#include <linux/memcontrol.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>

#if defined(SHRINKER_ALLOCATED) && !defined(S61_FORCE_OLD_API)
#define S61_NEW_API 1
#define S61_API "new"
#else
#define S61_API "old"
#endif

/* Kbuild defines this when the shrinker header has shrinker_try_get(). */
#ifdef S61_LOCKLESS_SHRINK
#define S61_LOCKLESS "yes"
#else
#define S61_LOCKLESS "no"
#endif

#define S61_SHRINKER_NAME "s61-test"
#define S61_MAX_ITEMS 16

static unsigned long nr_objects = 1024;
module_param(nr_objects, ulong, 0444);
MODULE_PARM_DESC(nr_objects, "objects reported by count_objects at load (debugfs: nr_objects)");

static bool block;
module_param(block, bool, 0444);
MODULE_PARM_DESC(block, "1: the first scan waits for a write to debugfs release");

static unsigned int sleep_ms;
module_param(sleep_ms, uint, 0444);
MODULE_PARM_DESC(sleep_ms, "every scan sleeps this many milliseconds");

static bool memcg_aware;
module_param(memcg_aware, bool, 0444);
MODULE_PARM_DESC(memcg_aware, "register with SHRINKER_MEMCG_AWARE");

static bool numa_aware;
module_param(numa_aware, bool, 0444);
MODULE_PARM_DESC(numa_aware, "register with SHRINKER_NUMA_AWARE");

static bool nonslab;
module_param(nonslab, bool, 0444);
MODULE_PARM_DESC(nonslab, "register with SHRINKER_NONSLAB (needs memcg_aware)");

static bool leak;
module_param(leak, bool, 0444);
MODULE_PARM_DESC(leak, "1: leak one 256-byte object at load, so that kmemleak has something to report");

/* kmalloc-256: kmemleak reports the cache's object size, so this one. */
#define S61_LEAK_SIZE 256

/* An item on the list_lru, in a pinned user page (see memcg_item). */
struct s61_item {
	struct page *page;
	struct list_head *node;
};

struct s61_test {
#ifdef S61_NEW_API
	struct shrinker *shrinker;
#else
	struct shrinker shrinker;
#endif
	atomic_long_t nr_objects;
	atomic_long_t scans;
	atomic_long_t counts;
	atomic_long_t freed;
	/* Scans wait on @wq while @block is set; @blocked: one is waiting. */
	wait_queue_head_t wq;
	bool block;
	atomic_t blocked;
	u32 sleep_ms;
	/* Set by module exit: nothing waits or sleeps any more. */
	bool exiting;
	/* The memcg_item list_lru (memcg_aware=1 only) and its items. */
	struct list_lru lru;
	bool lru_ready;
	struct mutex items_lock;	/* nr_items, items */
	u32 nr_items;
	struct s61_item items[S61_MAX_ITEMS];
	struct dentry *dir;
};

static struct s61_test s61;

static struct s61_test *s61_from_shrinker(struct shrinker *shrink)
{
#ifdef S61_NEW_API
	return shrink->private_data;
#else
	return container_of(shrink, struct s61_test, shrinker);
#endif
}

static bool s61_may_go(struct s61_test *t)
{
	return !READ_ONCE(t->block) || READ_ONCE(t->exiting);
}

static void s61_set_block(struct s61_test *t, bool on)
{
	WRITE_ONCE(t->block, on);
	if (!on)
		wake_up_all(&t->wq);
}

/*
 * With block set, the first scan waits until release (or block=0 or module
 * exit); scans arriving meanwhile do not wait. Returns -ERESTARTSYS when a
 * signal ended the wait.
 */
static int s61_maybe_block(struct s61_test *t)
{
	int ret;

	if (s61_may_go(t) || atomic_cmpxchg(&t->blocked, 0, 1) != 0)
		return 0;
	pr_info("scan blocked (pid %d, %s)\n", task_pid_nr(current), current->comm);
	ret = wait_event_interruptible(t->wq, s61_may_go(t));
	atomic_set(&t->blocked, 0);
	pr_info("scan released (pid %d)%s\n", task_pid_nr(current),
		ret ? " by a signal" : "");
	return ret;
}

static unsigned long s61_count_objects(struct shrinker *shrink,
				       struct shrink_control *sc)
{
	struct s61_test *t = s61_from_shrinker(shrink);
	long n = atomic_long_read(&t->nr_objects);

	atomic_long_inc(&t->counts);
	return n > 0 ? n : SHRINK_EMPTY;
}

static unsigned long s61_scan_objects(struct shrinker *shrink,
				      struct shrink_control *sc)
{
	struct s61_test *t = s61_from_shrinker(shrink);
	unsigned int ms;
	long old, n;

	atomic_long_inc(&t->scans);
	if (s61_maybe_block(t))
		return SHRINK_STOP;

	ms = READ_ONCE(t->sleep_ms);
	if (ms)
		wait_event_interruptible_timeout(t->wq, READ_ONCE(t->exiting),
						 msecs_to_jiffies(ms));

	/* Leave sc->nr_scanned alone: do_shrink_slab() counts it down. */
	old = atomic_long_read(&t->nr_objects);
	do {
		n = clamp_t(long, sc->nr_to_scan, 0, max(old, 0L));
	} while (n && !atomic_long_try_cmpxchg(&t->nr_objects, &old, old - n));

	atomic_long_add(n, &t->freed);
	return n;
}

static int s61_nr_objects_get(void *data, u64 *val)
{
	struct s61_test *t = data;

	*val = max(atomic_long_read(&t->nr_objects), 0L);
	return 0;
}

static int s61_nr_objects_set(void *data, u64 val)
{
	struct s61_test *t = data;

	atomic_long_set(&t->nr_objects, min_t(u64, val, LONG_MAX));
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(s61_nr_objects_fops, s61_nr_objects_get,
			 s61_nr_objects_set, "%llu\n");

static int s61_block_get(void *data, u64 *val)
{
	struct s61_test *t = data;

	*val = READ_ONCE(t->block);
	return 0;
}

static int s61_block_set(void *data, u64 val)
{
	s61_set_block(data, val != 0);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(s61_block_fops, s61_block_get, s61_block_set, "%llu\n");

static int s61_in_scan_get(void *data, u64 *val)
{
	struct s61_test *t = data;

	*val = atomic_read(&t->blocked);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(s61_in_scan_fops, s61_in_scan_get, NULL, "%llu\n");

static int s61_scans_get(void *data, u64 *val)
{
	*val = atomic_long_read(&((struct s61_test *)data)->scans);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(s61_scans_fops, s61_scans_get, NULL, "%llu\n");

static int s61_counts_get(void *data, u64 *val)
{
	*val = atomic_long_read(&((struct s61_test *)data)->counts);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(s61_counts_fops, s61_counts_get, NULL, "%llu\n");

static int s61_freed_get(void *data, u64 *val)
{
	*val = atomic_long_read(&((struct s61_test *)data)->freed);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(s61_freed_fops, s61_freed_get, NULL, "%llu\n");

/* Any write to "release" wakes the blocked scan and clears block. */
static ssize_t s61_release_write(struct file *file, const char __user *buf,
				 size_t len, loff_t *ppos)
{
	s61_set_block(file->private_data, false);
	return len;
}

static const struct file_operations s61_release_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = s61_release_write,
	.llseek = noop_llseek,
};

/*
 * A write to "memcg_item" puts an item of the writer's memcg on the
 * shrinker's memcg-aware list_lru, so that list_lru_add() sets this
 * shrinker's bit in the memcg's shrinker map and shrink_slab_memcg() visits
 * it for that memcg. With kmem accounting off (cgroup.memory=nokmem) no
 * kernel object belongs to a memcg, so the item (a list_head) is placed in
 * the page of the written buffer itself: a user page, charged to the memcg
 * of the writing task, which is pinned until module exit. The item sits 64
 * bytes into the buffer, clear of what a user-space free() may write; the
 * buffer must reach 64 + 16 bytes into its page. With kmem accounting on
 * the memcg would need its own lists, so this is refused.
 */
static ssize_t s61_memcg_item_write(struct file *file, const char __user *buf,
				    size_t len, loff_t *ppos)
{
	struct s61_test *t = file->private_data;
	unsigned long addr = (unsigned long)buf;
	size_t off = ALIGN(offset_in_page(addr) + 64, sizeof(struct list_head));
	struct s61_item *item;
	struct page *page;
	ssize_t ret;

	if (!t->lru_ready || memcg_kmem_enabled())
		return -EOPNOTSUPP;
	if (off + sizeof(struct list_head) > min(offset_in_page(addr) + len, PAGE_SIZE))
		return -EINVAL;

	mutex_lock(&t->items_lock);
	ret = -ENOSPC;
	if (t->nr_items == S61_MAX_ITEMS)
		goto out;
	ret = pin_user_pages_fast(addr, 1, FOLL_WRITE | FOLL_LONGTERM, &page);
	if (ret != 1) {
		ret = ret < 0 ? ret : -EFAULT;
		goto out;
	}
	item = &t->items[t->nr_items];
	item->page = page;
	item->node = page_address(page) + off;
	INIT_LIST_HEAD(item->node);
	list_lru_add(&t->lru, item->node);
	WRITE_ONCE(t->nr_items, t->nr_items + 1);
	ret = len;
out:
	mutex_unlock(&t->items_lock);
	return ret;
}

static const struct file_operations s61_memcg_item_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = s61_memcg_item_write,
	.llseek = noop_llseek,
};

static void s61_items_release(struct s61_test *t)
{
	u32 i;

	if (!t->lru_ready)
		return;
	for (i = 0; i < t->nr_items; i++) {
		list_lru_del(&t->lru, t->items[i].node);
		unpin_user_page(t->items[i].page);
	}
	t->nr_items = 0;
	list_lru_destroy(&t->lru);
	t->lru_ready = false;
}

#ifdef S61_NEW_API
/*
 * Churn: memcg-aware shrinkers registered and freed in a loop while their
 * bits are set in a memcg's shrinker map, the case a lockless
 * shrink_slab_memcg() has to get right: it finds the shrinker through the
 * memcg's map and shrinker_idr, and the shrinker (and what its callbacks
 * use) may be freed at any moment unless it is pinned.
 *
 * A write of "CYCLES WIDTH ITEMS HOLD_MS" to debugfs "churn" runs, in the
 * writing task, CYCLES rounds of: allocate WIDTH shrinkers "s61-churn" with
 * a memcg-aware list_lru each, put ITEMS objects on each list (allocated
 * with kmem_cache_alloc_lru() from a SLAB_ACCOUNT cache, so they are
 * charged to the writer's memcg and list_lru_add() sets the shrinker's bit
 * in that memcg's map), wait HOLD_MS, then free the shrinkers and, after
 * shrinker_free() has returned, their lists and private data. Odd rounds
 * add the objects before shrinker_register() (a bit set for a shrinker that
 * is allocated but not yet registered), even rounds after it. A WIDTH
 * above 64 makes the shrinker ids cross the units of the memcg maps, so
 * that the first rounds expand every memcg's shrinker_info.
 *
 * The callbacks count what reached them: count_objects() calls for a
 * non-root memcg (only shrink_slab_memcg() makes them; the race test does
 * not read the debugfs "count" file of these shrinkers, the other caller),
 * those among them that came after the owner started to free the shrinker,
 * scans and objects freed. Private data that a broken core let a callback
 * use after shrinker_free() is freed memory: KASAN reports it.
 */
struct s61_churn_item {
	struct list_head node;
	unsigned long pad[6];
};

struct s61_churn {
	struct shrinker *shrinker;
	struct list_lru lru;
	bool freeing;
};

#define S61_CHURN_MAX_WIDTH 512
#define S61_CHURN_MAX_ITEMS 64
#define S61_CHURN_MAX_HOLD_MS 1000

static struct kmem_cache *s61_churn_cache;
static atomic_long_t s61_churn_cycles;
static atomic_long_t s61_churn_registered;
static atomic_long_t s61_churn_memcg_counts;
static atomic_long_t s61_churn_counts_freeing;
static atomic_long_t s61_churn_scans;
static atomic_long_t s61_churn_freed;

static unsigned long s61_churn_count(struct shrinker *shrink,
				     struct shrink_control *sc)
{
	struct s61_churn *c = shrink->private_data;

	if (sc->memcg && parent_mem_cgroup(sc->memcg)) {
		atomic_long_inc(&s61_churn_memcg_counts);
		if (READ_ONCE(c->freeing))
			atomic_long_inc(&s61_churn_counts_freeing);
	}
	return list_lru_shrink_count(&c->lru, sc);
}

static enum lru_status s61_churn_isolate(struct list_head *item,
					 struct list_lru_one *list,
					 spinlock_t *lock, void *arg)
{
	list_lru_isolate_move(list, item, arg);
	return LRU_REMOVED;
}

static void s61_churn_dispose(struct list_head *dispose)
{
	struct s61_churn_item *item, *next;

	list_for_each_entry_safe(item, next, dispose, node) {
		list_del(&item->node);
		kmem_cache_free(s61_churn_cache, item);
	}
}

static unsigned long s61_churn_scan(struct shrinker *shrink,
				    struct shrink_control *sc)
{
	struct s61_churn *c = shrink->private_data;
	unsigned long freed;
	LIST_HEAD(dispose);

	atomic_long_inc(&s61_churn_scans);
	freed = list_lru_shrink_walk(&c->lru, sc, s61_churn_isolate, &dispose);
	s61_churn_dispose(&dispose);
	atomic_long_add(freed, &s61_churn_freed);
	return freed;
}

static struct s61_churn *s61_churn_alloc(void)
{
	struct s61_churn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->shrinker = shrinker_alloc(SHRINKER_MEMCG_AWARE, "s61-churn");
	if (!c->shrinker)
		goto free_c;
	c->shrinker->count_objects = s61_churn_count;
	c->shrinker->scan_objects = s61_churn_scan;
	c->shrinker->seeks = DEFAULT_SEEKS;
	c->shrinker->private_data = c;
	if (list_lru_init_memcg(&c->lru, c->shrinker))
		goto free_shrinker;
	return c;

free_shrinker:
	shrinker_free(c->shrinker);
free_c:
	kfree(c);
	return NULL;
}

/* Charged to the current task's memcg; sets the shrinker's bit there. */
static void s61_churn_fill(struct s61_churn *c, unsigned int items)
{
	struct s61_churn_item *item;
	unsigned int i;

	for (i = 0; i < items; i++) {
		item = kmem_cache_alloc_lru(s61_churn_cache, &c->lru, GFP_KERNEL);
		if (!item)
			return;
		INIT_LIST_HEAD(&item->node);
		list_lru_add(&c->lru, &item->node);
	}
}

/*
 * Free the shrinker first: once shrinker_free() returns no callback runs
 * or can start, so the objects still listed and @c go without a lock.
 */
static void s61_churn_free(struct s61_churn *c)
{
	unsigned long nr;
	LIST_HEAD(dispose);
	int nid;

	WRITE_ONCE(c->freeing, true);
	shrinker_free(c->shrinker);
	for_each_node(nid) {
		nr = ULONG_MAX;
		list_lru_walk_node(&c->lru, nid, s61_churn_isolate, &dispose, &nr);
	}
	s61_churn_dispose(&dispose);
	list_lru_destroy(&c->lru);
	kfree(c);
}

static int s61_churn_round(unsigned int width, unsigned int items,
			   unsigned int hold_ms, bool fill_first)
{
	struct s61_churn **set;
	unsigned int i, n;
	int ret = 0;

	set = kcalloc(width, sizeof(*set), GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	for (n = 0; n < width; n++) {
		set[n] = s61_churn_alloc();
		if (!set[n]) {
			ret = -ENOMEM;
			break;
		}
		if (fill_first)
			s61_churn_fill(set[n], items);
		shrinker_register(set[n]->shrinker);
		atomic_long_inc(&s61_churn_registered);
		if (!fill_first)
			s61_churn_fill(set[n], items);
	}
	if (hold_ms && !ret)
		msleep_interruptible(hold_ms);
	for (i = 0; i < n; i++)
		s61_churn_free(set[i]);
	kfree(set);
	return ret;
}

static ssize_t s61_churn_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	unsigned int cycles, width, items, hold_ms, i;
	char buf[64];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u %u %u", &cycles, &width, &items, &hold_ms) != 4 ||
	    !width || width > S61_CHURN_MAX_WIDTH || items > S61_CHURN_MAX_ITEMS ||
	    hold_ms > S61_CHURN_MAX_HOLD_MS)
		return -EINVAL;
	for (i = 0; i < cycles; i++) {
		if (fatal_signal_pending(current))
			return -EINTR;
		ret = s61_churn_round(width, items, hold_ms, i & 1);
		if (ret)
			return ret;
		atomic_long_inc(&s61_churn_cycles);
		cond_resched();
	}
	return len;
}

static const struct file_operations s61_churn_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = s61_churn_write,
	.llseek = noop_llseek,
};

static int s61_churn_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "cycles=%ld registered=%ld memcg_counts=%ld counts_while_freeing=%ld scans=%ld freed=%ld\n",
		   atomic_long_read(&s61_churn_cycles),
		   atomic_long_read(&s61_churn_registered),
		   atomic_long_read(&s61_churn_memcg_counts),
		   atomic_long_read(&s61_churn_counts_freeing),
		   atomic_long_read(&s61_churn_scans),
		   atomic_long_read(&s61_churn_freed));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(s61_churn_stats);

static int s61_churn_init(struct dentry *dir)
{
	s61_churn_cache = kmem_cache_create("s61_churn_item",
					    sizeof(struct s61_churn_item), 0,
					    SLAB_ACCOUNT, NULL);
	if (!s61_churn_cache)
		return -ENOMEM;
	debugfs_create_file("churn", 0200, dir, NULL, &s61_churn_fops);
	debugfs_create_file("churn_stats", 0444, dir, NULL, &s61_churn_stats_fops);
	return 0;
}

/* After debugfs is gone: no round runs, every churn object is freed. */
static void s61_churn_exit(void)
{
	kmem_cache_destroy(s61_churn_cache);
}
#else
/* The churn needs shrinker_alloc(); on the old API there is nothing to do. */
static int s61_churn_init(struct dentry *dir)
{
	return 0;
}

static void s61_churn_exit(void)
{
}
#endif

/*
 * Negative controls: deliberate bugs that the debug kernel's checkers must
 * report, each fired by a guest test only when the kernel command line
 * asks for it (rootfs-overlay/s61/tests/controls/). The host requires the
 * report (qemu/run --expect-splat and --expect-in-splat name this
 * module's functions, lock names and object size), so a checker that
 * stopped working fails make check.
 */

/*
 * leak=1: one object nobody frees or points to. Not __init: the module
 * stays loaded, so kmemleak's backtrace of the object names this function
 * when it is printed after the scan (the init text is gone by then). The
 * message after the allocation keeps the call from being a tail call,
 * which would take this frame out of the backtrace.
 */
static noinline bool s61_leak_object(void)
{
	void *p = kmalloc(S61_LEAK_SIZE, GFP_KERNEL);

	if (!p)
		return false;
	pr_info("leak=1: leaked a %d-byte object on purpose (s61_leak_object)\n",
		S61_LEAK_SIZE);
	return true;
}

struct s61_uaf_obj {
	unsigned long magic;
	char pad[120];
};

/*
 * kasan_uaf: any write allocates a 128-byte object (kmalloc-128), frees
 * it and reads 8 bytes of it: KASAN reports "BUG: KASAN: use-after-free in
 * s61_kasan_uaf_write", read of size 8, the object freed by this task, and
 * taints the kernel B (and turns lockdep off). Without KASAN the read
 * finds stale slab memory and nothing is reported.
 */
static ssize_t s61_kasan_uaf_write(struct file *file, const char __user *buf,
				   size_t len, loff_t *ppos)
{
	struct s61_uaf_obj *obj;
	unsigned long v;

	obj = kmalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	obj->magic = 0x5361;
	kfree(obj);
	/* The use after free, on purpose. */
	v = READ_ONCE(obj->magic);
	pr_info("kasan_uaf: read %#lx from a freed %zu-byte object\n", v, sizeof(*obj));
	return len;
}

static const struct file_operations s61_kasan_uaf_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = s61_kasan_uaf_write,
	.llseek = noop_llseek,
};

/*
 * lockdep_abba: any write takes s61_lock_a then s61_lock_b, drops both,
 * then takes them the other way round. Lockdep reports "possible circular
 * locking dependency" naming both locks and turns itself off. Nothing can
 * deadlock: the writer takes s61_abba_gate around it all, so two writers
 * never hold one lock each.
 */
static DEFINE_MUTEX(s61_abba_gate);
static DEFINE_MUTEX(s61_lock_a);
static DEFINE_MUTEX(s61_lock_b);

static ssize_t s61_lockdep_abba_write(struct file *file, const char __user *buf,
				      size_t len, loff_t *ppos)
{
	mutex_lock(&s61_abba_gate);
	mutex_lock(&s61_lock_a);
	mutex_lock(&s61_lock_b);
	mutex_unlock(&s61_lock_b);
	mutex_unlock(&s61_lock_a);
	/* The other order, on purpose: b -> a after a -> b. */
	mutex_lock(&s61_lock_b);
	mutex_lock(&s61_lock_a);
	mutex_unlock(&s61_lock_a);
	mutex_unlock(&s61_lock_b);
	mutex_unlock(&s61_abba_gate);
	pr_info("lockdep_abba: took s61_lock_a and s61_lock_b in both orders\n");
	return len;
}

static const struct file_operations s61_lockdep_abba_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = s61_lockdep_abba_write,
	.llseek = noop_llseek,
};

/* Read-only constant strings ("api", "lockless"). */
static ssize_t s61_str_read(struct file *file, char __user *buf, size_t len,
			    loff_t *ppos)
{
	const char *s = file->private_data;

	return simple_read_from_buffer(buf, len, ppos, s, strlen(s));
}

static const struct file_operations s61_str_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = s61_str_read,
	.llseek = default_llseek,
};

static void s61_debugfs_init(struct s61_test *t)
{
	struct dentry *dir = debugfs_create_dir(KBUILD_MODNAME, NULL);

	t->dir = dir;
	debugfs_create_file_unsafe("nr_objects", 0644, dir, t, &s61_nr_objects_fops);
	debugfs_create_file_unsafe("block", 0644, dir, t, &s61_block_fops);
	debugfs_create_u32("sleep_ms", 0644, dir, &t->sleep_ms);
	debugfs_create_file("release", 0200, dir, t, &s61_release_fops);
	debugfs_create_file_unsafe("in_scan", 0444, dir, t, &s61_in_scan_fops);
	debugfs_create_file_unsafe("scans", 0444, dir, t, &s61_scans_fops);
	debugfs_create_file_unsafe("counts", 0444, dir, t, &s61_counts_fops);
	debugfs_create_file_unsafe("freed", 0444, dir, t, &s61_freed_fops);
	debugfs_create_file("memcg_item", 0200, dir, t, &s61_memcg_item_fops);
	debugfs_create_u32("memcg_items", 0444, dir, &t->nr_items);
	debugfs_create_file("api", 0444, dir, (void *)(S61_API "\n"), &s61_str_fops);
	debugfs_create_file("lockless", 0444, dir, (void *)(S61_LOCKLESS "\n"),
			    &s61_str_fops);
	debugfs_create_file("kasan_uaf", 0200, dir, NULL, &s61_kasan_uaf_fops);
	debugfs_create_file("lockdep_abba", 0200, dir, NULL, &s61_lockdep_abba_fops);
}

static unsigned int s61_shrinker_flags(void)
{
	unsigned int flags = 0;

	if (memcg_aware)
		flags |= SHRINKER_MEMCG_AWARE;
	if (numa_aware)
		flags |= SHRINKER_NUMA_AWARE;
	if (nonslab)
		flags |= SHRINKER_NONSLAB;
	return flags;
}

#ifdef S61_NEW_API
static int s61_shrinker_register(struct s61_test *t)
{
	struct shrinker *shrinker;

	shrinker = shrinker_alloc(s61_shrinker_flags(), S61_SHRINKER_NAME);
	if (!shrinker)
		return -ENOMEM;
	shrinker->count_objects = s61_count_objects;
	shrinker->scan_objects = s61_scan_objects;
	shrinker->seeks = DEFAULT_SEEKS;
	shrinker->private_data = t;
	t->shrinker = shrinker;
	if (memcg_aware) {
		if (list_lru_init_memcg(&t->lru, shrinker)) {
			shrinker_free(shrinker);
			t->shrinker = NULL;
			return -ENOMEM;
		}
		t->lru_ready = true;
	}
	shrinker_register(shrinker);
	return 0;
}

static void s61_shrinker_unregister(struct s61_test *t)
{
	s61_items_release(t);
	shrinker_free(t->shrinker);
	t->shrinker = NULL;
}
#else
static int s61_shrinker_register(struct s61_test *t)
{
	int ret;

	t->shrinker.count_objects = s61_count_objects;
	t->shrinker.scan_objects = s61_scan_objects;
	t->shrinker.seeks = DEFAULT_SEEKS;
	t->shrinker.flags = s61_shrinker_flags();
	ret = register_shrinker(&t->shrinker, S61_SHRINKER_NAME);
	if (ret || !memcg_aware)
		return ret;
	/* The lru takes the memcg shrinker id that registering assigned. */
	if (list_lru_init_memcg(&t->lru, &t->shrinker)) {
		unregister_shrinker(&t->shrinker);
		return -ENOMEM;
	}
	t->lru_ready = true;
	return 0;
}

static void s61_shrinker_unregister(struct s61_test *t)
{
	s61_items_release(t);
	unregister_shrinker(&t->shrinker);
}
#endif

static int __init s61_init(void)
{
	struct s61_test *t = &s61;
	int ret;

	if (nonslab && !memcg_aware) {
		pr_err("nonslab=1 needs memcg_aware=1\n");
		return -EINVAL;
	}

	atomic_long_set(&t->nr_objects, min_t(unsigned long, nr_objects, LONG_MAX));
	init_waitqueue_head(&t->wq);
	mutex_init(&t->items_lock);
	t->block = block;
	t->sleep_ms = sleep_ms;

	s61_debugfs_init(t);
	ret = s61_churn_init(t->dir);
	if (ret) {
		debugfs_remove_recursive(t->dir);
		return ret;
	}
	ret = s61_shrinker_register(t);
	if (ret) {
		debugfs_remove_recursive(t->dir);
		s61_churn_exit();
		pr_err("cannot register the shrinker: %d\n", ret);
		return ret;
	}
	/* Unreferenced once it returns: kmemleak must report it. */
	if (leak && !s61_leak_object())
		pr_warn("leak=1: the allocation to leak failed\n");
	pr_info("loaded: %s API, lockless %s, nr_objects %lu, block %d, flags %#x\n",
		S61_API, S61_LOCKLESS, nr_objects, block,
		s61_shrinker_flags());
	return 0;
}

static void __exit s61_exit(void)
{
	struct s61_test *t = &s61;

	/* No more writes to block/release; then let every scan go ... */
	debugfs_remove_recursive(t->dir);
	WRITE_ONCE(t->exiting, true);
	wake_up_all(&t->wq);
	/* ... so that unregistering, which waits for running scans, finishes. */
	s61_shrinker_unregister(t);
	s61_churn_exit();
	pr_info("unloaded: %ld scans, %ld counts, %ld objects freed\n",
		atomic_long_read(&t->scans), atomic_long_read(&t->counts),
		atomic_long_read(&t->freed));
}

module_init(s61_init);
module_exit(s61_exit);

MODULE_DESCRIPTION("Controllable shrinker for testing the lockless slab shrink port");
MODULE_LICENSE("GPL");
