/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Weft GPU register file.
 *
 * The register file is the ivshmem BAR2 shared memory. Every register is a
 * little-endian 32-bit word written by exactly one side (driver or device),
 * so neither side needs atomics on the shared page: the device publishes
 * sequence numbers and the driver acknowledges them by writing its own.
 *
 * This header is the register-level source of truth for both the driver and
 * the device model (hw/), so it uses plain constants only.
 */
#ifndef __WEFT_REGS_H__
#define __WEFT_REGS_H__

/* Size of the register file; BAR2 is at least this large. */
#define WEFT_REGS_SIZE			0x10000

/* Identification block, written by the device before the guest starts. */
#define WEFT_REG_SIGNATURE		0x0000	/* "WEFT" */
#define   WEFT_SIGNATURE		0x54464557
#define WEFT_REG_VERSION		0x0004	/* major << 16 | minor */
#define   WEFT_HW_VERSION_MAJOR		1
#define   WEFT_HW_VERSION_MINOR		0
#define WEFT_REG_CAPS			0x0008
#define   WEFT_CAP_SIMD8		0x00000001
#define   WEFT_CAP_SIMD16		0x00000002
#define   WEFT_CAP_SIMD32		0x00000004
#define WEFT_REG_NUM_QUEUES		0x000c
#define WEFT_REG_DOORBELL_PEER		0x0010	/* ivshmem peer id of the device */
#define WEFT_REG_MAX_WG_SIZE		0x0014	/* work-items per work-group */
#define WEFT_REG_SLM_SIZE		0x0018	/* shared local memory, bytes */
#define WEFT_REG_VA_BITS		0x001c
#define WEFT_REG_NUM_CORES		0x0020	/* host threads running groups */
#define WEFT_REG_NUM_VECTORS		0x0024	/* MSI-X vectors in use */

/*
 * Handshake. The driver writes WEFT_DRIVER_READY once MSI-X is enabled and
 * rings the doorbell; the device answers by setting DEVICE_STATUS to
 * WEFT_DEVICE_RUNNING and only then sends interrupts. Writing 0 to
 * DRIVER_READY (and ringing) stops the device: it finishes nothing more,
 * drops all queue state and answers WEFT_DEVICE_STOPPED.
 */
#define WEFT_REG_DRIVER_READY		0x0040
#define   WEFT_DRIVER_READY		0x00000001
#define WEFT_REG_DEVICE_STATUS		0x0044
#define   WEFT_DEVICE_STOPPED		0x00000000
#define   WEFT_DEVICE_RUNNING		0x00000001

/*
 * Interrupt cause. The device increments IRQ_SEQ before every MSI-X
 * message; the driver then scans the queue blocks and the fault block.
 */
#define WEFT_REG_IRQ_SEQ		0x0048

/*
 * MMU fault block. On a fault the device stops the faulting queue, fills
 * these registers and increments FAULT_SEQ; it records no further fault
 * until the driver writes FAULT_ACK = FAULT_SEQ.
 */
#define WEFT_REG_FAULT_SEQ		0x0080
#define WEFT_REG_FAULT_ADDR_LO		0x0084
#define WEFT_REG_FAULT_ADDR_HI		0x0088
#define WEFT_REG_FAULT_INFO		0x008c
#define   WEFT_FAULT_ACCESS_MASK	0x00000003
#define   WEFT_FAULT_ACCESS_READ	0x00000000
#define   WEFT_FAULT_ACCESS_WRITE	0x00000001
#define   WEFT_FAULT_ACCESS_EXEC	0x00000002
#define   WEFT_FAULT_NOT_PRESENT	0x00000000	/* bit 2 clear */
#define   WEFT_FAULT_PERMISSION		0x00000004	/* bit 2 set */
#define   WEFT_FAULT_QUEUE_SHIFT	8		/* bits 15:8 */
#define   WEFT_FAULT_QUEUE_MASK		0x0000ff00
#define WEFT_REG_FAULT_ACK		0x0090

/*
 * Queue blocks, one per hardware queue, at WEFT_QUEUE_BASE + n *
 * WEFT_QUEUE_STRIDE. A ring is a physically contiguous, power-of-two sized
 * buffer of 32-bit command words in guest memory. HEAD and TAIL are
 * free-running dword counters; the ring offset is counter % (size / 4).
 * The driver publishes TAIL and rings the doorbell; the device consumes
 * commands up to TAIL and publishes HEAD after each completed command.
 */
#define WEFT_QUEUE_BASE			0x0100
#define WEFT_QUEUE_STRIDE		0x0040
#define WEFT_QUEUE_REG(n, reg)		(WEFT_QUEUE_BASE + (n) * WEFT_QUEUE_STRIDE + (reg))
#define WEFT_Q_RING_BASE_LO		0x00	/* driver: guest physical */
#define WEFT_Q_RING_BASE_HI		0x04
#define WEFT_Q_RING_SIZE		0x08	/* driver: bytes, power of two */
#define WEFT_Q_ENABLE			0x0c	/* driver: 1 runs the queue */
#define WEFT_Q_TAIL			0x10	/* driver */
#define WEFT_Q_RESET_REQ		0x14	/* driver: increment to reset */
#define WEFT_Q_HEAD			0x20	/* device */
#define WEFT_Q_STATUS			0x24	/* device */
#define   WEFT_Q_STATUS_IDLE		0x00000000
#define   WEFT_Q_STATUS_BUSY		0x00000001
#define   WEFT_Q_STATUS_ERROR		0x00000002	/* stopped until reset */
#define WEFT_Q_ERROR_SEQ		0x28	/* device: increments per error */
#define WEFT_Q_ERROR_CODE		0x2c	/* device: enum weft_queue_error */
#define WEFT_Q_ERROR_ADDR_LO		0x30	/* device: command or fault address */
#define WEFT_Q_ERROR_ADDR_HI		0x34
#define WEFT_Q_RESET_ACK		0x38	/* device: copies RESET_REQ when done */

/* Values of WEFT_Q_ERROR_CODE. */
#define WEFT_QERR_NONE			0
#define WEFT_QERR_BAD_COMMAND		1	/* unknown or malformed command */
#define WEFT_QERR_PRIVILEGED_IN_BATCH	2	/* ring command found in a batch */
#define WEFT_QERR_MMU_FAULT		3	/* details in the fault block */
#define WEFT_QERR_BAD_INSTRUCTION	4	/* undefined or malformed instruction */
#define WEFT_QERR_BAD_DISPATCH		5	/* invalid dispatch parameters */
#define WEFT_QERR_WATCHDOG		6	/* dispatch exceeded its budget */
/*
 * A shared local memory or private (scratch) access outside the dispatch's
 * size, or a misaligned atomic; ERROR_ADDR = the instruction's VA.
 */
#define WEFT_QERR_BAD_ACCESS		7

#endif /* __WEFT_REGS_H__ */
