// Program-scope global variables, generic pointers and work-group
// collectives of OpenCL C 2.0 / 3.0.
global int counter = 7;
global float table[8] = { 1, 2, 3, 5, 8, 13, 21, 34 };
global int *global_ptr = &counter;
constant int weights[4] = { 4, 3, 2, 1 };

static int
sum_generic(int *p, int n)
{
   int s = 0;
   for (int i = 0; i < n; i++)
      s += p[i];
   return s;
}

static void
bump(int *p)
{
   if (to_global(p))
      atomic_fetch_add_explicit((volatile atomic_int *)p, 1, memory_order_relaxed);
   else if (to_local(p))
      *p += 2;
   else if (to_private(p))
      *p += 3;
}

kernel void
globals(global int *out, global float *fout)
{
   local int shared[64];
   int priv[4] = { 1, 2, 3, 4 };
   size_t i = get_global_id(0), l = get_local_id(0);

   shared[l % 64] = (int)i;
   work_group_barrier(CLK_LOCAL_MEM_FENCE);
   bump(&priv[i & 3]);
   bump(&shared[(l + 1) % 64]);
   bump(&out[0]);
   work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
   out[i] = sum_generic(priv, 4) + sum_generic(shared, 4) + *global_ptr + weights[i & 3];
   fout[i] = table[i & 7] + work_group_reduce_add((float)i) +
             work_group_scan_inclusive_max((float)l);
   counter += work_group_all(i > 3) + work_group_any(i == 0) +
              work_group_broadcast((int)i, 0);
}

kernel void
atomics_c11(global atomic_int *a, global atomic_uint *u, global atomic_long *L,
            global atomic_float *f)
{
   int expected = 0;
   atomic_compare_exchange_strong(a, &expected, 1);
   atomic_fetch_or_explicit(u, 1u << (get_global_id(0) & 31), memory_order_acq_rel,
                            memory_scope_work_group);
   atomic_fetch_min(L, (long)get_global_id(0));
   atomic_store(f, 1.5f);
   atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
   atomic_exchange(a, atomic_load(a) + 1);
}
