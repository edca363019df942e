#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
kernel void sync_atomics(global int *g, global uint *u, local int *l, global long *g64,
                         global atomic_int *c11)
{
   size_t lid = get_local_id(0);
   if (lid < 16)
      l[lid] = 0;
   barrier(CLK_LOCAL_MEM_FENCE);
   atomic_add(&l[lid % 16], 1);
   work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
   atomic_add(&g[0], l[lid % 16]);
   atomic_sub(&g[1], 2);
   atomic_xchg(&g[2], (int)lid);
   atomic_cmpxchg(&g[3], 0, (int)lid);
   atomic_min(&g[4], (int)lid);
   atomic_max(&g[5], (int)lid);
   atomic_and(&u[0], ~(1u << (lid % 32)));
   atomic_or(&u[1], 1u << (lid % 32));
   atomic_xor(&u[2], (uint)lid);
   atomic_inc(&u[3]);
   atomic_dec(&u[4]);
   atom_add(&g64[0], (long)lid);
   atom_cmpxchg(&g64[1], 0, (long)lid);
   atomic_fetch_add_explicit(&c11[0], 1, memory_order_relaxed, memory_scope_device);
   atomic_store_explicit(&c11[1], (int)lid, memory_order_release, memory_scope_work_group);
   int seen = atomic_load_explicit(&c11[1], memory_order_acquire, memory_scope_work_group);
   atomic_compare_exchange_strong(&c11[2], &seen, 5);
   mem_fence(CLK_GLOBAL_MEM_FENCE);
   read_mem_fence(CLK_LOCAL_MEM_FENCE);
   write_mem_fence(CLK_GLOBAL_MEM_FENCE);
   atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
}
