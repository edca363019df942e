/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Weft GPU MMU page-table format.
 *
 * 48-bit GPU virtual addresses, 4 KiB pages, four levels of 512 64-bit
 * entries each (level 0 is the root, indexed by VA bits 47:39; level 3
 * entries map pages). Every table is one 4 KiB page of guest physical
 * memory. An entry holds the physical address of the next table (levels
 * 0-2) or of the page (level 3) in bits 47:12.
 *
 * A level-2 entry with WEFT_PTE_HUGE maps a 2 MiB page instead of a table:
 * its address must be 2 MiB aligned and its WRITE/EXEC bits apply. HUGE is
 * reserved at levels 0 and 1 (the entry reads as not present) and ignored at
 * level 3.
 */
#ifndef __WEFT_MMU_REGS_H__
#define __WEFT_MMU_REGS_H__

#define WEFT_MMU_PAGE_SHIFT		12
#define WEFT_MMU_PAGE_SIZE		0x1000
#define WEFT_MMU_VA_BITS		48
#define WEFT_MMU_LEVELS			4
#define WEFT_MMU_LEVEL_BITS		9
#define WEFT_MMU_ENTRIES		512

#define WEFT_PTE_VALID			0x0000000000000001ULL
#define WEFT_PTE_WRITE			0x0000000000000002ULL	/* leaf only */
#define WEFT_PTE_EXEC			0x0000000000000004ULL	/* leaf only */
#define WEFT_PTE_HUGE			0x0000000000000080ULL	/* level 2 only: 2 MiB page */
#define WEFT_PTE_ADDR_MASK		0x0000fffffffff000ULL

#endif /* __WEFT_MMU_REGS_H__ */
