// SPDX-License-Identifier: MIT
// Inclusive scan of each work-group's 256 uints: Hillis-Steele in local
// memory.
__kernel void scan_local(__global const uint *in, __global uint *out)
{
	__local uint t[256];
	uint l = get_local_id(0);
	size_t g = get_global_id(0);

	t[l] = in[g];
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint d = 1; d < 256; d <<= 1) {
		uint v = l >= d ? t[l - d] : 0;

		barrier(CLK_LOCAL_MEM_FENCE);
		t[l] += v;
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	out[g] = t[l];
}
