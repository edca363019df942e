// SPDX-License-Identifier: MIT
/*
 * The Weft MMU: a 4-level walk of the page tables in guest memory per TLB
 * miss, shortened to the last level by a page-walk cache of level-3 tables.  Every table and page address is bounds-checked against guest
 * memory; an entry pointing outside it reads as not present.
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

/*
 * TLB and page-walk cache slots by Fibonacci hashing of the page (region)
 * number: buffers allocated a power of two apart, walked in the same pattern
 * (a transpose's source and destination rows), would otherwise share their
 * slots and evict each other at every access.
 */
static inline unsigned hash_slot(uint64_t n, unsigned bits)
{
	return (unsigned)((n * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* The level-3 table covering @va (walking levels 0-2); NULL if not present. */
static uint8_t *leaf_table(struct weft_mmu *mmu, uint64_t va)
{
	uint64_t region = va >> (WEFT_MMU_PAGE_SHIFT + WEFT_MMU_LEVEL_BITS);
	struct weft_pwc_entry *c = &mmu->pwc[hash_slot(region, WEFT_PWC_BITS)];
	uint64_t table = mmu->root & WEFT_PTE_ADDR_MASK;
	uint8_t *t;

	if (c->gen == mmu->gen && c->region == region)
		return c->table;
	for (int level = 0; level < WEFT_MMU_LEVELS - 1; level++) {
		unsigned shift = WEFT_MMU_PAGE_SHIFT +
				 (WEFT_MMU_LEVELS - 1 - level) * WEFT_MMU_LEVEL_BITS;
		unsigned idx = (va >> shift) & (WEFT_MMU_ENTRIES - 1);
		uint64_t pte;

		t = weft_gpa(mmu->mem, mmu->mem_size, table, WEFT_MMU_PAGE_SIZE);
		if (!t)
			return NULL;
		pte = __atomic_load_n((uint64_t *)(t + idx * 8), __ATOMIC_ACQUIRE);
		if (!(pte & WEFT_PTE_VALID))
			return NULL;
		table = pte & WEFT_PTE_ADDR_MASK;
	}
	t = weft_gpa(mmu->mem, mmu->mem_size, table, WEFT_MMU_PAGE_SIZE);
	if (t) {
		c->region = region;
		c->gen = mmu->gen;
		c->table = t;
	}
	return t;
}

uint8_t *weft_mmu_translate(struct weft_mmu *mmu, uint64_t va, enum weft_access acc,
			    struct weft_fault *f)
{
	uint64_t vpn = va >> WEFT_MMU_PAGE_SHIFT;
	struct weft_tlb_entry *e = &mmu->tlb[hash_slot(vpn, WEFT_TLB_BITS)];
	uint64_t pte;
	uint8_t *table, *page;

	if (e->gen != mmu->gen || e->vpn != vpn) {
		if (va >> WEFT_MMU_VA_BITS)
			return fault(f, va, acc, false);
		table = leaf_table(mmu, va);
		if (!table)
			return fault(f, va, acc, false);
		pte = __atomic_load_n((uint64_t *)(table + (vpn & (WEFT_MMU_ENTRIES - 1)) * 8),
				      __ATOMIC_ACQUIRE);
		if (!(pte & WEFT_PTE_VALID))
			return fault(f, va, acc, false);
		page = weft_gpa(mmu->mem, mmu->mem_size, pte & WEFT_PTE_ADDR_MASK, WEFT_MMU_PAGE_SIZE);
		if (!page)
			return fault(f, va, acc, false);
		e->vpn = vpn;
		e->gen = mmu->gen;
		e->host = page;
		e->pte = pte;
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
