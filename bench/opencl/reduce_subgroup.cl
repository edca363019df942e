// SPDX-License-Identifier: MIT
// The same sums as reduce_local.cl: sub_group_reduce_add, then the
// sub-groups' totals through local memory.
__kernel void reduce_subgroup(__global const uint *in, __global uint *out)
{
	__local uint totals[256];
	uint l = get_local_id(0);
	size_t base = get_group_id(0) * 1024 + l;
	uint s = sub_group_reduce_add(in[base] + in[base + 256] + in[base + 512] + in[base + 768]);

	if (get_sub_group_local_id() == 0)
		totals[get_sub_group_id()] = s;
	barrier(CLK_LOCAL_MEM_FENCE);
	if (l == 0) {
		for (uint i = 1; i < get_num_sub_groups(); i++)
			s += totals[i];
		out[get_group_id(0)] = s;
	}
}
