// SPDX-License-Identifier: MIT
// Transposes of an n x n uint matrix, work-groups of 16 x 16.
__kernel void transpose_naive(__global const uint *in, __global uint *out, uint n)
{
	size_t x = get_global_id(0), y = get_global_id(1);

	out[x * n + y] = in[y * n + x];
}

__kernel void transpose_local(__global const uint *in, __global uint *out, uint n)
{
	__local uint tile[16][17];
	uint lx = get_local_id(0), ly = get_local_id(1);
	size_t gx = get_group_id(0) * 16, gy = get_group_id(1) * 16;

	tile[ly][lx] = in[(gy + ly) * n + gx + lx];
	barrier(CLK_LOCAL_MEM_FENCE);
	out[(gx + ly) * n + gy + lx] = tile[lx][ly];
}
