// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Copyright (C) 2026 The Weft authors */

#include <linux/delay.h>
#include <linux/devcoredump.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/pci.h>

#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "weft_device.h"
#include "weft_gem.h"
#include "weft_mmu.h"
#include "weft_mmu_regs.h"
#include "weft_sched.h"
#include "weft_trace.h"

/* How long the device may take to answer the handshake. */
#define WEFT_HANDSHAKE_TIMEOUT_US	(2 * USEC_PER_SEC)

/**
 * weft_device_ring_doorbell() - Tell the device to look at its registers.
 * @wdev: The device.
 *
 * Writes the ivshmem doorbell of the device's peer, vector 0. The writel()
 * orders every earlier register and ring write before the doorbell.
 */
void weft_device_ring_doorbell(struct weft_device *wdev)
{
	writel(wdev->doorbell_peer << 16, wdev->bar0 + IVSHMEM_REG_DOORBELL);
}

static int weft_device_set_ready(struct weft_device *wdev, bool ready)
{
	u32 want = ready ? WEFT_DEVICE_RUNNING : WEFT_DEVICE_STOPPED;
	u32 status;
	int ret;

	weft_write(wdev, WEFT_REG_DRIVER_READY, ready ? WEFT_DRIVER_READY : 0);
	weft_device_ring_doorbell(wdev);
	ret = readl_poll_timeout(wdev->regs + WEFT_REG_DEVICE_STATUS, status,
				 status == want, 1000, WEFT_HANDSHAKE_TIMEOUT_US);
	if (ret)
		drm_err(&wdev->base, "device did not answer %s (status %u)\n",
			ready ? "DRIVER_READY=1" : "DRIVER_READY=0", status);
	return ret;
}

static void weft_device_handle_fault(struct weft_device *wdev)
{
	u32 seq = weft_read(wdev, WEFT_REG_FAULT_SEQ);
	u64 addr;
	u32 info;

	if (seq == wdev->fault.seq)
		return;

	addr = weft_read(wdev, WEFT_REG_FAULT_ADDR_LO) |
	       (u64)weft_read(wdev, WEFT_REG_FAULT_ADDR_HI) << 32;
	info = weft_read(wdev, WEFT_REG_FAULT_INFO);

	spin_lock(&wdev->fault.lock);
	wdev->fault.seq = seq;
	wdev->fault.addr = addr;
	wdev->fault.info = info;
	spin_unlock(&wdev->fault.lock);

	drm_dbg_driver(&wdev->base,
		       "GPU fault on queue %u: %s %s at 0x%llx\n",
		       (info & WEFT_FAULT_QUEUE_MASK) >> WEFT_FAULT_QUEUE_SHIFT,
		       (info & WEFT_FAULT_PERMISSION) ? "permission" : "not-present",
		       (info & WEFT_FAULT_ACCESS_MASK) == WEFT_FAULT_ACCESS_WRITE ? "write" :
		       (info & WEFT_FAULT_ACCESS_MASK) == WEFT_FAULT_ACCESS_EXEC ? "exec" :
		       "read", addr);

	trace_weft_fault((info & WEFT_FAULT_QUEUE_MASK) >> WEFT_FAULT_QUEUE_SHIFT,
			 addr, info);
	weft_write(wdev, WEFT_REG_FAULT_ACK, seq);
	weft_device_ring_doorbell(wdev);
}

static irqreturn_t weft_device_irq(int irq, void *data)
{
	return IRQ_WAKE_THREAD;
}

static irqreturn_t weft_device_irq_thread(int irq, void *data)
{
	struct weft_device *wdev = data;
	unsigned int i;

	if (!READ_ONCE(wdev->running))
		return IRQ_HANDLED;

	/*
	 * IRQ_SEQ only tells that something happened: the fault block, the
	 * queue error counters and the fence values say what.
	 */
	weft_read(wdev, WEFT_REG_IRQ_SEQ);
	weft_device_handle_fault(wdev);
	for (i = 0; i < wdev->num_hwq; i++)
		weft_hwq_irq(wdev->hwq[i]);

	return IRQ_HANDLED;
}

static void weft_device_release_ctx_ids(struct drm_device *ddev, void *data)
{
	struct weft_device *wdev = data;

	xa_destroy(&wdev->ctx_ids);
}

static void weft_device_read_info(struct weft_device *wdev)
{
	struct weft_device_info *info = &wdev->info;

	info->signature = weft_read(wdev, WEFT_REG_SIGNATURE);
	info->hw_version = weft_read(wdev, WEFT_REG_VERSION);
	info->caps = weft_read(wdev, WEFT_REG_CAPS);
	info->num_queues = weft_read(wdev, WEFT_REG_NUM_QUEUES);
	info->max_wg_size = weft_read(wdev, WEFT_REG_MAX_WG_SIZE);
	info->slm_size = weft_read(wdev, WEFT_REG_SLM_SIZE);
	info->va_bits = weft_read(wdev, WEFT_REG_VA_BITS);
	info->num_cores = weft_read(wdev, WEFT_REG_NUM_CORES);
	if (!info->va_bits || info->va_bits > WEFT_MMU_VA_BITS)
		info->va_bits = WEFT_MMU_VA_BITS;

	/* Page 0 stays unmapped so a NULL pointer faults. */
	info->user_va_start = SZ_1M;
	info->user_va_end = 1ULL << (info->va_bits - 1);
	wdev->doorbell_peer = weft_read(wdev, WEFT_REG_DOORBELL_PEER);
}

/**
 * weft_device_init() - Bring up a Weft device.
 * @wdev: The device, with @wdev->pdev set.
 *
 * Maps the BARs, refuses an ivshmem function without the Weft signature,
 * sets up MSI-X and the hardware queues and handshakes with the device.
 *
 * Return: 0 or a negative error code (-ENODEV if the function is not a
 * Weft GPU).
 */
int weft_device_init(struct weft_device *wdev)
{
	struct pci_dev *pdev = wdev->pdev;
	unsigned int i;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	if (pci_resource_len(pdev, 2) < WEFT_REGS_SIZE ||
	    pci_resource_len(pdev, 0) < IVSHMEM_REG_DOORBELL + 4)
		return -ENODEV;

	ret = pcim_iomap_regions(pdev, BIT(0) | BIT(2), "weft");
	if (ret)
		return ret;
	wdev->bar0 = pcim_iomap_table(pdev)[0];
	wdev->regs = pcim_iomap_table(pdev)[2];

	if (weft_read(wdev, WEFT_REG_SIGNATURE) != WEFT_SIGNATURE)
		return -ENODEV;

	weft_device_read_info(wdev);
	if (wdev->info.hw_version >> 16 != WEFT_HW_VERSION_MAJOR) {
		drm_err(&wdev->base, "unsupported hardware version %#x\n",
			wdev->info.hw_version);
		return -ENODEV;
	}
	if (!wdev->info.num_queues) {
		drm_err(&wdev->base, "device has no queue\n");
		return -ENODEV;
	}
	wdev->num_hwq = min_t(u32, wdev->info.num_queues, WEFT_MAX_HWQ);
	INIT_LIST_HEAD(&wdev->queues);
	ret = drmm_mutex_init(&wdev->base, &wdev->queues_lock);
	if (ret)
		return ret;

	spin_lock_init(&wdev->fault.lock);
	wdev->fault.seq = weft_read(wdev, WEFT_REG_FAULT_SEQ);

	/* VMs, and so their context ids, may outlive an unbind. */
	xa_init_flags(&wdev->ctx_ids, XA_FLAGS_ALLOC1);
	ret = drmm_add_action_or_reset(&wdev->base, weft_device_release_ctx_ids,
				       wdev);
	if (ret)
		return ret;

	ret = weft_gem_init(wdev);
	if (ret)
		return ret;

	ret = weft_vm_bind_sched_init(wdev);
	if (ret)
		return ret;

	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(WEFT_MMU_VA_BITS));
	if (ret)
		return ret;

	pci_set_master(pdev);

	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX);
	if (ret < 0)
		return ret;
	wdev->irq = pci_irq_vector(pdev, 0);

	/*
	 * The queues (rings, schedulers) live as long as the DRM device, so
	 * files still open after an unbind can tear their entities down.
	 */
	for (i = 0; i < wdev->num_hwq; i++) {
		wdev->hwq[i] = weft_hwq_create(wdev, i);
		if (IS_ERR(wdev->hwq[i])) {
			ret = PTR_ERR(wdev->hwq[i]);
			wdev->hwq[i] = NULL;
			goto err_vectors;
		}
	}

	ret = request_threaded_irq(wdev->irq, weft_device_irq,
				   weft_device_irq_thread, 0, "weft", wdev);
	if (ret)
		goto err_vectors;

	ret = weft_device_set_ready(wdev, true);
	if (ret)
		goto err_irq;

	for (i = 0; i < wdev->num_hwq; i++)
		weft_hwq_start(wdev->hwq[i]);
	WRITE_ONCE(wdev->running, true);

	drm_info(&wdev->base,
		 "Weft GPU v%u.%u, %u queue(s), %u core(s), caps %#x\n",
		 wdev->info.hw_version >> 16, wdev->info.hw_version & 0xffff,
		 wdev->info.num_queues, wdev->info.num_cores, wdev->info.caps);
	return 0;

err_irq:
	free_irq(wdev->irq, wdev);
err_vectors:
	pci_free_irq_vectors(pdev);
	pci_clear_master(pdev);
	return ret;
}

/**
 * weft_device_fini() - Stop the device and release its resources.
 * @wdev: The device.
 *
 * Fails every job still in flight, stops the device (DRIVER_READY=0) and
 * releases the interrupt. The rings are freed with the DRM device, once
 * the device no longer reads them and every file is closed.
 */
void weft_device_fini(struct weft_device *wdev)
{
	unsigned int i;

	WRITE_ONCE(wdev->running, false);
	for (i = 0; i < wdev->num_hwq; i++)
		weft_hwq_stop(wdev->hwq[i]);
	for (i = 0; i < wdev->num_hwq; i++)
		weft_hwq_flush_capture(wdev->hwq[i]);
	dev_coredump_put(wdev->base.dev);

	weft_device_set_ready(wdev, false);
	free_irq(wdev->irq, wdev);
	pci_free_irq_vectors(wdev->pdev);
	pci_clear_master(wdev->pdev);
}
