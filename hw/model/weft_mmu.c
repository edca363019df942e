// SPDX-License-Identifier: MIT
/*
 * The Weft MMU: a 4-level walk of the page tables in guest memory per TLB
 * miss, shortened to the last level by a page-walk cache of level-3 tables
 * (or of the level-2 entry when it maps a 2 MiB page, WEFT_PTE_HUGE).  Every
 * table and page address is bounds-checked against guest memory; an entry
 * pointing outside it reads as not present.  The TLB holds 4 KiB
 * translations only: an access in a 2 MiB page fills the entry of its 4 KiB
 * part, so a TLB hit costs the same whatever the page size.
 */
#include <string.h>

#include "weft_model_priv.h"

void weft_mmu_init(struct weft_mmu *mmu, uint8_t *mem, uint64_t mem_size, uint64_t root)
{
	mmu->mem = mem;
	mmu->mem_size = mem_size;
	mmu->root = root;
	mmu->gen++;
	if (!mmu->gen) {
		memset(mmu->tlb, 0, sizeof(mmu->tlb));
		memset(mmu->pwc, 0, sizeof(mmu->pwc));
		mmu->gen = 1;
	}
}

static uint8_t *fault(struct weft_fault *f, uint64_t va, enum weft_access acc, bool perm)
{
	f->va = va;
	f->info = acc | (perm ? WEFT_FAULT_PERMISSION : WEFT_FAULT_NOT_PRESENT);
	return NULL;
}

/* Page-walk cache slots as weft_tlb_slot() (weft_model_priv.h) for the same reason. */
static inline unsigned pwc_slot(uint64_t region)
{
	return (unsigned)((region * 0x9e3779b97f4a7c15ull) >> (64 - WEFT_PWC_BITS));
}

/* The size of the page a level-2 WEFT_PTE_HUGE entry maps: 2 MiB. */
#define HUGE_SIZE	((uint64_t)WEFT_MMU_PAGE_SIZE << WEFT_MMU_LEVEL_BITS)

/*
 * The page-walk cache entry of the 2 MiB region of @va, filled by walking
 * levels 0-2 on a miss: its level-3 table, or (->huge set) its 2 MiB page.
 * NULL if not present: an invalid entry, a table outside guest memory,
 * WEFT_PTE_HUGE at level 0 or 1 (reserved), or a huge entry whose address is
 * not 2 MiB aligned or whose page is not entirely in guest memory.
 */
static struct weft_pwc_entry *walk_region(struct weft_mmu *mmu, uint64_t va)
{
	uint64_t region = va >> (WEFT_MMU_PAGE_SHIFT + WEFT_MMU_LEVEL_BITS);
	struct weft_pwc_entry *c = &mmu->pwc[pwc_slot(region)];
	uint64_t table = mmu->root & WEFT_PTE_ADDR_MASK, pte = 0;
	uint8_t *t;

	if (c->gen == mmu->gen && c->region == region)
		return c;
	for (int level = 0; level < WEFT_MMU_LEVELS - 1; level++) {
		unsigned shift = WEFT_MMU_PAGE_SHIFT +
				 (WEFT_MMU_LEVELS - 1 - level) * WEFT_MMU_LEVEL_BITS;
		unsigned idx = (va >> shift) & (WEFT_MMU_ENTRIES - 1);

		t = weft_gpa(mmu->mem, mmu->mem_size, table, WEFT_MMU_PAGE_SIZE);
		if (!t)
			return NULL;
		pte = __atomic_load_n((uint64_t *)(t + idx * 8), __ATOMIC_ACQUIRE);
		if (!(pte & WEFT_PTE_VALID))
			return NULL;
		table = pte & WEFT_PTE_ADDR_MASK;
		if ((pte & WEFT_PTE_HUGE) && level < WEFT_MMU_LEVELS - 2)
			return NULL;
	}
	if (pte & WEFT_PTE_HUGE) {
		if (table & (HUGE_SIZE - 1))
			return NULL;
		t = weft_gpa(mmu->mem, mmu->mem_size, table, HUGE_SIZE);
	} else {
		t = weft_gpa(mmu->mem, mmu->mem_size, table, WEFT_MMU_PAGE_SIZE);
		pte = 0;
	}
	if (!t)
		return NULL;
	c->region = region;
	c->gen = mmu->gen;
	c->table = t;
	c->huge = pte;
	return c;
}

/*
 * The host address and entry of page @vpn of the region @c walked to, or
 * NULL if the level-3 entry is not present or points outside guest memory.
 */
static uint8_t *page_of(struct weft_mmu *mmu, const struct weft_pwc_entry *c, uint64_t vpn,
			uint64_t *pte)
{
	unsigned idx = vpn & (WEFT_MMU_ENTRIES - 1);

	if (c->huge) {
		/* The 4 KiB part of the 2 MiB page (in guest memory as a whole). */
		*pte = c->huge;
		return c->table + ((uint64_t)idx << WEFT_MMU_PAGE_SHIFT);
	}
	*pte = __atomic_load_n((uint64_t *)c->table + idx, __ATOMIC_ACQUIRE);
	if (!(*pte & WEFT_PTE_VALID))
		return NULL;
	return weft_gpa(mmu->mem, mmu->mem_size, *pte & WEFT_PTE_ADDR_MASK, WEFT_MMU_PAGE_SIZE);
}

uint8_t *weft_mmu_translate(struct weft_mmu *mmu, uint64_t va, enum weft_access acc,
			    struct weft_fault *f)
{
	uint64_t vpn = va >> WEFT_MMU_PAGE_SHIFT;
	struct weft_tlb_entry *e = &mmu->tlb[weft_tlb_slot(vpn)];
	struct weft_pwc_entry *c;

	if (e->gen != mmu->gen || e->vpn != vpn) {
		struct weft_tlb_entry missed = { .vpn = vpn, .gen = mmu->gen };

		if (va >> WEFT_MMU_VA_BITS)
			return fault(f, va, acc, false);
		c = walk_region(mmu, va);
		if (!c || !(missed.host = page_of(mmu, c, vpn, &missed.pte)))
			return fault(f, va, acc, false);
		/*
		 * A stream (one of the two pages below is in the TLB: two
		 * cores may take turns at its pages, as at copy int's while
		 * dispatches share the cores, a page per claim of four
		 * work-groups) walks on: its pages up to the end of the
		 * aligned run of WEFT_TLB_RUN are translated
		 * now, from the same level-3 table, so a stream misses once per
		 * run.  The manual lets the TLB hold any translation of the
		 * batch's tables: a change to them need not be seen before the
		 * next batch.
		 */
		if (weft_tlb_holds(mmu, vpn - 1) || weft_tlb_holds(mmu, vpn - 2)) {
			for (uint64_t n = vpn + 1; n & (WEFT_TLB_RUN - 1); n++) {
				struct weft_tlb_entry ahead = { .vpn = n, .gen = mmu->gen };

				ahead.host = page_of(mmu, c, n, &ahead.pte);
				if (ahead.host)
					mmu->tlb[weft_tlb_slot(n)] = ahead;
			}
		}
		*e = missed;
	}
	if ((acc == WEFT_ACC_WRITE && !(e->pte & WEFT_PTE_WRITE)) ||
	    (acc == WEFT_ACC_EXEC && !(e->pte & WEFT_PTE_EXEC)))
		return fault(f, va, acc, true);
	return e->host + (va & (WEFT_MMU_PAGE_SIZE - 1));
}

enum copy_dir { CHECK_ONLY, TO_BUF, FROM_BUF };

/* Walks [va, va + n) page by page, checking @acc and copying per @dir. */
static int copy_pages(struct weft_mmu *mmu, uint64_t va, uint8_t *buf, size_t n,
		      enum weft_access acc, enum copy_dir dir, struct weft_fault *f)
{
	while (n) {
		size_t chunk = WEFT_MMU_PAGE_SIZE - (va & (WEFT_MMU_PAGE_SIZE - 1));
		uint8_t *p = weft_mmu_translate(mmu, va, acc, f);

		if (!p)
			return -1;
		if (chunk > n)
			chunk = n;
		if (dir == TO_BUF)
			memcpy(buf, p, chunk);
		else if (dir == FROM_BUF)
			memcpy(p, buf, chunk);
		if (buf)	/* CHECK_ONLY has none: no arithmetic on NULL */
			buf += chunk;
		va += chunk;
		n -= chunk;
	}
	return 0;
}

int weft_mmu_read(struct weft_mmu *mmu, uint64_t va, void *dst, size_t n,
		  enum weft_access acc, struct weft_fault *f)
{
	return copy_pages(mmu, va, dst, n, acc, TO_BUF, f);
}

int weft_mmu_write(struct weft_mmu *mmu, uint64_t va, const void *src, size_t n,
		   struct weft_fault *f)
{
	/* Check every page first so a faulting write writes nothing. */
	if (copy_pages(mmu, va, NULL, n, WEFT_ACC_WRITE, CHECK_ONLY, f))
		return -1;
	return copy_pages(mmu, va, (uint8_t *)src, n, WEFT_ACC_WRITE, FROM_BUF, f);
}
