/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Copyright (C) 2026 The Weft authors */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM weft

#if !defined(__WEFT_TRACE_H__) || defined(TRACE_HEADER_MULTI_READ)
#define __WEFT_TRACE_H__

#include <linux/tracepoint.h>
#include <linux/types.h>

TRACE_EVENT(weft_job_submit,
	    TP_PROTO(u32 hwq, u32 ctx_id, u64 seqno, u64 batch_va,
		     u32 batch_size),
	    TP_ARGS(hwq, ctx_id, seqno, batch_va, batch_size),
	    TP_STRUCT__entry(__field(u32, hwq)
			     __field(u32, ctx_id)
			     __field(u64, seqno)
			     __field(u64, batch_va)
			     __field(u32, batch_size)),
	    TP_fast_assign(__entry->hwq = hwq;
			   __entry->ctx_id = ctx_id;
			   __entry->seqno = seqno;
			   __entry->batch_va = batch_va;
			   __entry->batch_size = batch_size;),
	    TP_printk("hwq=%u ctx=%u seqno=%llu batch=0x%llx+%u",
		      __entry->hwq, __entry->ctx_id, __entry->seqno,
		      __entry->batch_va, __entry->batch_size)
);

DECLARE_EVENT_CLASS(weft_job_error,
		    TP_PROTO(u32 hwq, u32 ctx_id, u64 seqno, int error),
		    TP_ARGS(hwq, ctx_id, seqno, error),
		    TP_STRUCT__entry(__field(u32, hwq)
				     __field(u32, ctx_id)
				     __field(u64, seqno)
				     __field(int, error)),
		    TP_fast_assign(__entry->hwq = hwq;
				   __entry->ctx_id = ctx_id;
				   __entry->seqno = seqno;
				   __entry->error = error;),
		    TP_printk("hwq=%u ctx=%u seqno=%llu error=%d", __entry->hwq,
			      __entry->ctx_id, __entry->seqno, __entry->error)
);

/* A job's hardware fence signalled, with @error or 0. */
DEFINE_EVENT(weft_job_error, weft_job_complete,
	     TP_PROTO(u32 hwq, u32 ctx_id, u64 seqno, int error),
	     TP_ARGS(hwq, ctx_id, seqno, error)
);

/* A hardware queue was reset for the job @seqno of context @ctx_id. */
DEFINE_EVENT(weft_job_error, weft_reset,
	     TP_PROTO(u32 hwq, u32 ctx_id, u64 seqno, int error),
	     TP_ARGS(hwq, ctx_id, seqno, error)
);

TRACE_EVENT(weft_fault,
	    TP_PROTO(u32 hwq, u64 addr, u32 info),
	    TP_ARGS(hwq, addr, info),
	    TP_STRUCT__entry(__field(u32, hwq)
			     __field(u64, addr)
			     __field(u32, info)),
	    TP_fast_assign(__entry->hwq = hwq;
			   __entry->addr = addr;
			   __entry->info = info;),
	    TP_printk("hwq=%u addr=0x%llx info=0x%x", __entry->hwq,
		      __entry->addr, __entry->info)
);

#endif /* __WEFT_TRACE_H__ */

/* Out of tree: the Makefile adds this directory to the include path. */
#undef TRACE_INCLUDE_PATH
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE weft_trace
#include <trace/define_trace.h>
