// SPDX-License-Identifier: MIT
// The same scan as scan_local.cl: sub_group_scan_inclusive_add, plus the
// totals of the sub-groups before this one, through local memory.
__kernel void scan_subgroup(__global const uint *in, __global uint *out)
{
	__local uint totals[256];
	size_t g = get_global_id(0);
	uint sg = get_sub_group_id();
	uint s = sub_group_scan_inclusive_add(in[g]);

	if (get_sub_group_local_id() == get_sub_group_size() - 1)
		totals[sg] = s;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint i = 0; i < sg; i++)
		s += totals[i];
	out[g] = s;
}
