// SPDX-License-Identifier: MIT
// A 256-bin histogram of the low bytes of n uints: each work-group (of 256)
// counts its stride of the input with local atomics, then adds its counts
// to the global bins.
__kernel void histogram(__global const uint *in, __global uint *bins, uint n)
{
	__local uint h[256];
	uint l = get_local_id(0);

	h[l] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
		atomic_inc(&h[in[i] & 255]);
	barrier(CLK_LOCAL_MEM_FENCE);
	atomic_add(&bins[l], h[l]);
}
