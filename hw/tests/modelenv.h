/* SPDX-License-Identifier: MIT */
/*
 * An in-process "driver" for host tests: guest memory, page tables, rings
 * and the handshake, talking to libweftmodel through the register file only.
 */
#ifndef WEFT_MODELENV_H
#define WEFT_MODELENV_H

#include <stdatomic.h>
#include <stdint.h>

#include "weft_model.h"
#include "weft_regs.h"
#include "weft_cs_regs.h"
#include "weft_mmu_regs.h"

/*
 * WEFT_CMD_HEADER() shifts a plain int: ring opcodes (>= 0x80) overflow it
 * (undefined behaviour, caught by -fsanitize=undefined).  Tests use this.
 */
#define CMD(op, len)	WEFT_CMD_HEADER((uint32_t)(op), (uint32_t)(len))

#define ENV_MEM_SIZE	(256u << 20)
#define ENV_RING_SIZE	4096
#define ENV_HUGE_SIZE	(2u << 20)

struct env {
	uint32_t *regs;
	uint8_t *mem;
	uint64_t mem_size;
	uint64_t next_gpa;
	uint64_t root;			/* level-0 table of the test VM */
	uint64_t ring[4];		/* ring GPAs */
	uint32_t tail[4];
	uint64_t fence_gpa;
	uint64_t next_va;
	atomic_uint irqs;
	struct weft_model *m;
	uint64_t batch_va;		/* env_dispatch's batch page, reused */
	uint32_t *batch;
	uint64_t seq;			/* env_dispatch's last fence value */
};

struct env *env_create(unsigned threads, uint64_t watchdog);
/* The same with @mem_size bytes of guest memory (a multiple of 4 KiB). */
struct env *env_create_mem(unsigned threads, uint64_t watchdog, uint64_t mem_size);
void env_destroy(struct env *e);
/* Destroys @old (if any) and creates a new device with two threads. */
struct env *env_renew(struct env *old, uint64_t watchdog);
uint32_t env_reg(struct env *e, uint32_t off);
void env_wreg(struct env *e, uint32_t off, uint32_t v);
uint32_t env_qreg(struct env *e, unsigned q, uint32_t reg);
void env_wqreg(struct env *e, unsigned q, uint32_t reg, uint32_t v);
/* DRIVER_READY = 1, doorbell, wait; returns DEVICE_STATUS. */
uint32_t env_ready(struct env *e);
uint64_t env_alloc(struct env *e, uint64_t bytes);	/* zeroed, page aligned GPA */
void *env_host(struct env *e, uint64_t gpa);
void env_map(struct env *e, uint64_t va, uint64_t gpa, uint64_t bytes, uint64_t flags);
/* The level-@level entry covering @va, allocating the tables above it. */
uint64_t *env_pte(struct env *e, uint64_t va, int level);
/* A zeroed, 2 MiB aligned 2 MiB of guest memory; its GPA. */
uint64_t env_alloc_huge(struct env *e);
/* Maps the 2 MiB page at @gpa at @va (both 2 MiB aligned): a level-2 WEFT_PTE_HUGE entry. */
void env_map_huge(struct env *e, uint64_t va, uint64_t gpa, uint64_t flags);
/* Allocates and maps @bytes at a fresh VA; returns the VA, *host the CPU view. */
uint64_t env_buf(struct env *e, uint64_t bytes, uint64_t flags, void **host);
void env_ring_emit(struct env *e, unsigned q, const uint32_t *dw, unsigned n);
/* Publishes TAIL, rings, waits for idle. */
void env_kick(struct env *e, unsigned q);
/* SET_VM + BATCH(va, bytes) + FENCE(value, irq) on queue q, then kick. */
void env_submit_batch(struct env *e, unsigned q, uint64_t batch_va, uint32_t bytes, uint64_t fence);
uint64_t env_fence(struct env *e);

struct env_dispatch {
	uint64_t code_va, args_va;
	uint32_t simd, gsize[3], lsize[3], goff[3], slm;
	uint32_t scratch;	/* nonzero: DISPATCH_SCRATCH with these private bytes per item */
};
/* Assembles @src into a fresh executable buffer; returns its VA (0 on error, printed). */
uint64_t env_code(struct env *e, const char *src);
/* Runs one DISPATCH in its own batch on @q; returns the queue's ERROR_CODE (0 = ok). */
uint32_t env_dispatch(struct env *e, unsigned q, const struct env_dispatch *d);
/* Resets queue q and waits for RESET_ACK. */
void env_reset_queue(struct env *e, unsigned q);

#endif
