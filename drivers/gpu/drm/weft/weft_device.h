/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Copyright (C) 2026 The Weft authors */

#ifndef __WEFT_DEVICE_H__
#define __WEFT_DEVICE_H__

#include <linux/io.h>
#include <linux/llist.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <drm/drm_device.h>
#include <drm/drm_file.h>

#include "weft_regs.h"

struct drm_gpu_scheduler;
struct weft_hwq;

/* ivshmem BAR0 registers. */
#define IVSHMEM_REG_INTR_MASK		0x00
#define IVSHMEM_REG_INTR_STATUS		0x04
#define IVSHMEM_REG_IV_POSITION		0x08
#define IVSHMEM_REG_DOORBELL		0x0c

/*
 * Most hardware queues the driver drives (the device may have more): one
 * per queue priority, high on queue 0, which the device favours.
 */
#define WEFT_MAX_HWQ			3

/**
 * struct weft_device_info - Identification registers, read once at probe.
 */
struct weft_device_info {
	/** @signature: WEFT_REG_SIGNATURE. */
	u32 signature;

	/** @hw_version: WEFT_REG_VERSION, major << 16 | minor. */
	u32 hw_version;

	/** @caps: WEFT_REG_CAPS. */
	u32 caps;

	/** @num_queues: WEFT_REG_NUM_QUEUES. */
	u32 num_queues;

	/** @max_wg_size: WEFT_REG_MAX_WG_SIZE. */
	u32 max_wg_size;

	/** @slm_size: WEFT_REG_SLM_SIZE. */
	u32 slm_size;

	/** @va_bits: WEFT_REG_VA_BITS. */
	u32 va_bits;

	/** @num_cores: WEFT_REG_NUM_CORES. */
	u32 num_cores;

	/** @user_va_start: First VA userspace may bind. */
	u64 user_va_start;

	/** @user_va_end: End (exclusive) of the VA userspace may bind. */
	u64 user_va_end;
};

/**
 * struct weft_device - A bound Weft GPU.
 */
struct weft_device {
	/** @base: The DRM device. */
	struct drm_device base;

	/** @pdev: The ivshmem PCI function. */
	struct pci_dev *pdev;

	/** @bar0: ivshmem registers (doorbell). */
	void __iomem *bar0;

	/**
	 * @regs: The Weft register file (BAR2). Mapped uncached with
	 * pcim_iomap(): every access is a single 32-bit word whose ordering
	 * against the doorbell matters more than its speed.
	 */
	void __iomem *regs;

	/** @doorbell_peer: ivshmem peer id of the device model. */
	u32 doorbell_peer;

	/** @info: Identification registers. */
	struct weft_device_info info;

	/** @irq: Linux interrupt number of MSI-X vector 0. */
	int irq;

	/** @running: Set while the handshake says the device runs. */
	bool running;

	/** @num_hwq: Hardware queues in use, 1 to %WEFT_MAX_HWQ. */
	u32 num_hwq;

	/** @hwq: The hardware queues the driver drives. */
	struct weft_hwq *hwq[WEFT_MAX_HWQ];

	/** @queues_lock: Protects @queues. */
	struct mutex queues_lock;

	/** @queues: Every &struct weft_queue of every file, for debugfs. */
	struct list_head queues;

	/** @fault: Last MMU fault, for the error path and debugging. */
	struct {
		/** @fault.lock: Protects the fields below. */
		spinlock_t lock;

		/** @fault.seq: Last FAULT_SEQ acknowledged. */
		u32 seq;

		/** @fault.addr: Faulting GPU VA. */
		u64 addr;

		/** @fault.info: WEFT_REG_FAULT_INFO. */
		u32 info;
	} fault;

	/**
	 * @deferred_puts: Buffers whose last reference @put_work drops, see
	 * weft_gem_put_deferred().
	 */
	struct llist_head deferred_puts;

	/** @put_work: Drops the references of @deferred_puts. */
	struct work_struct put_work;

	/** @bind_sched: Scheduler of the asynchronous VM binds. */
	struct drm_gpu_scheduler *bind_sched;

	/**
	 * @last_reset_ns: When a hardware queue was last reset: the queues'
	 * dispatches share the device's workers, so a hang slows every
	 * queue until then.
	 */
	u64 last_reset_ns;

	/** @ctx_ids: Allocator of the context ids written by SET_VM. */
	struct xarray ctx_ids;
};

/**
 * struct weft_file - Per-open-file state.
 */
struct weft_file {
	/** @wdev: The device. */
	struct weft_device *wdev;

	/**
	 * @lock: Serializes VM and queue creation and destruction, so a VM
	 * cannot be destroyed while a queue is being created on it.
	 */
	struct mutex lock;

	/** @vms: VM id to &struct weft_vm. */
	struct xarray vms;

	/** @queues: Queue id to &struct weft_queue. */
	struct xarray queues;

	/**
	 * @retired_busy_ns: GPU time of the file's destroyed queues, for
	 * fdinfo.
	 */
	atomic64_t retired_busy_ns;
};

static inline struct weft_device *to_weft_device(struct drm_device *ddev)
{
	return container_of(ddev, struct weft_device, base);
}

static inline u32 weft_read(struct weft_device *wdev, u32 reg)
{
	return readl(wdev->regs + reg);
}

static inline void weft_write(struct weft_device *wdev, u32 reg, u32 val)
{
	writel(val, wdev->regs + reg);
}

void weft_device_ring_doorbell(struct weft_device *wdev);
int weft_device_init(struct weft_device *wdev);
void weft_device_fini(struct weft_device *wdev);

#endif /* __WEFT_DEVICE_H__ */
