#pragma OPENCL EXTENSION cl_khr_subgroups : enable
kernel void subgroups(global const uint *in, global uint *out, global float *f)
{
   size_t i = get_global_id(0);
   uint x = in[i];
   out[i] = sub_group_reduce_add(x) + sub_group_reduce_min(x) + sub_group_reduce_max(x) +
            sub_group_scan_inclusive_add(x) + sub_group_scan_exclusive_max(x) +
            sub_group_broadcast(x, 0) + sub_group_any(x > 5) + sub_group_all(x < 100);
   f[i] = sub_group_reduce_add(f[i]) + sub_group_scan_inclusive_min(f[i]);
   sub_group_barrier(CLK_LOCAL_MEM_FENCE);
   out[i + 1] = sub_group_shuffle(x, 3) + sub_group_shuffle_xor(x, 1) +
                sub_group_shuffle_up(x, 1) + sub_group_shuffle_down(x, 2);
}

kernel void workgroups(global const int *in, global int *out)
{
   size_t i = get_global_id(0);
   int x = in[i];
   out[i] = work_group_reduce_add(x) + work_group_scan_inclusive_min(x) +
            work_group_scan_exclusive_add(x) + work_group_broadcast(x, 0) +
            work_group_any(x > 0) + work_group_all(x != 3);
}
