/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Weft GPU command streams.
 *
 * A command is a header dword followed by its payload dwords. The header
 * holds the opcode in bits 31:24 and the total length of the command in
 * dwords, header included, in bits 15:0; bits 23:16 must be zero. 64-bit
 * payload values are two dwords, low first.
 *
 * Ring commands (0x80-0xff) are privileged: only the kernel's ring may
 * hold them. Batch commands (0x00-0x7f) live in a batch buffer in the
 * queue's VM. A ring command inside a batch stops the queue with
 * WEFT_QERR_PRIVILEGED_IN_BATCH; an unknown opcode, a wrong length or a
 * nonzero reserved field with WEFT_QERR_BAD_COMMAND.
 */
#ifndef __WEFT_CS_REGS_H__
#define __WEFT_CS_REGS_H__

#define WEFT_CMD_OPCODE_SHIFT		24
#define WEFT_CMD_LEN_MASK		0x0000ffff
#define WEFT_CMD_RSVD_MASK		0x00ff0000
#define WEFT_CMD_HEADER(op, len)	(((unsigned int)(op) << WEFT_CMD_OPCODE_SHIFT) | (len))
#define WEFT_CMD_PRIVILEGED		0x80

/* Batch commands. */
#define WEFT_CMD_NOP			0x00	/* len >= 1, payload ignored */
#define WEFT_CMD_END			0x01	/* len 1: end of batch */
/*
 * DISPATCH, len 16:
 *  [1..2]   code VA, 8-byte aligned, in executable pages
 *  [3..4]   argument buffer VA, read by the kernel with loads
 *  [5]      SIMD width: 8, 16 or 32
 *  [6..8]   global size x, y, z in work-items (each >= 1)
 *  [9..11]  local size x, y, z in work-items (each >= 1, product <=
 *           WEFT_REG_MAX_WG_SIZE); the last group in each dimension may
 *           be partial when the global size is not a multiple
 *  [12..14] global offset x, y, z
 *  [15]     shared local memory bytes per work-group (<= WEFT_REG_SLM_SIZE)
 * Dispatches in a batch run in order; the next command starts when every
 * work-group of the dispatch has finished and its writes are visible.
 */
#define WEFT_CMD_DISPATCH		0x02
#define WEFT_CMD_DISPATCH_LEN		16
/*
 * DISPATCH_SCRATCH, len 17: the 15 payload dwords of DISPATCH, then
 *  [16]     private (scratch) bytes per work-item (<= WEFT_CMD_DISPATCH_SCRATCH_MAX),
 *           reached with ld.scratch / st.scratch; zero at the start of the
 *           dispatch, contents live as long as the work-item.
 */
#define WEFT_CMD_DISPATCH_SCRATCH	0x04
#define WEFT_CMD_DISPATCH_SCRATCH_LEN	17
#define WEFT_CMD_DISPATCH_SCRATCH_MAX	0x4000
/* WRITE_DATA, len 5: [1..2] VA (8-byte aligned), [3..4] 64-bit value. */
#define WEFT_CMD_WRITE_DATA		0x03
#define WEFT_CMD_WRITE_DATA_LEN		5
/*
 * SEM_WAIT, len 6: [1..2] VA (8-byte aligned), [3..4] 64-bit operand,
 * [5] flags. The batch stops until the 64-bit value at VA compares true
 * against the operand (unsigned), then continues. Other queues keep
 * running meanwhile; a queue reset or DRIVER_READY = 0 ends the wait.
 */
#define WEFT_CMD_SEM_WAIT		0x05
#define WEFT_CMD_SEM_WAIT_LEN		6
#define   WEFT_SEM_WAIT_OP_MASK		0x0000000f
#define   WEFT_SEM_WAIT_OP_GTE		0x00000000	/* value >= operand */
#define   WEFT_SEM_WAIT_OP_EQ		0x00000001	/* value == operand */
#define   WEFT_SEM_WAIT_RSVD_MASK	0xfffffff0

/* Ring commands. */
/*
 * SET_VM, len 4: [1..2] physical address of the level-0 page table,
 * [3] context id reported with faults and errors.
 */
#define WEFT_CMD_SET_VM			0x80
#define WEFT_CMD_SET_VM_LEN		4
/* BATCH, len 4: [1..2] batch VA in the current VM, [3] size in bytes. */
#define WEFT_CMD_BATCH			0x81
#define WEFT_CMD_BATCH_LEN		4
/*
 * FENCE, len 6: [1..2] physical address (8-byte aligned), [3..4] 64-bit
 * value written there once every previous command completed, [5] flags.
 */
#define WEFT_CMD_FENCE			0x82
#define WEFT_CMD_FENCE_LEN		6
#define   WEFT_FENCE_FLAG_IRQ		0x00000001	/* then raise MSI-X 0 */

#endif /* __WEFT_CS_REGS_H__ */
