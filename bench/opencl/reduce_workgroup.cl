// SPDX-License-Identifier: MIT
// The same sums as reduce_local.cl with work_group_reduce_add.
__kernel void reduce_workgroup(__global const uint *in, __global uint *out)
{
	size_t base = get_group_id(0) * 1024 + get_local_id(0);
	uint s = work_group_reduce_add(in[base] + in[base + 256] + in[base + 512] + in[base + 768]);

	if (get_local_id(0) == 0)
		out[get_group_id(0)] = s;
}
