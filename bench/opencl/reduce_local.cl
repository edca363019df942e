// SPDX-License-Identifier: MIT
// Sum of 1024 uints per work-group of 256: four coalesced loads per
// work-item, then a tree in local memory.
__kernel void reduce_local(__global const uint *in, __global uint *out)
{
	__local uint t[256];
	uint l = get_local_id(0);
	size_t base = get_group_id(0) * 1024 + l;

	t[l] = in[base] + in[base + 256] + in[base + 512] + in[base + 768];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint s = 128; s > 0; s >>= 1) {
		if (l < s)
			t[l] += t[l + s];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	if (l == 0)
		out[get_group_id(0)] = t[0];
}
