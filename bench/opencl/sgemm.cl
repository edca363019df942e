// SPDX-License-Identifier: MIT
// C = A B for n x n floats, 16 x 16 tiles of A and B in local memory.
__kernel void sgemm(__global const float *a, __global const float *b, __global float *c, uint n)
{
	__local float at[16][16], bt[16][16];
	uint tx = get_local_id(0), ty = get_local_id(1);
	size_t row = get_global_id(1), col = get_global_id(0);
	float acc = 0.0f;

	for (uint t = 0; t < n; t += 16) {
		at[ty][tx] = a[row * n + t + tx];
		bt[ty][tx] = b[(t + ty) * n + col];
		barrier(CLK_LOCAL_MEM_FENCE);
		for (uint k = 0; k < 16; k++)
			acc += at[ty][k] * bt[k][tx];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	c[row * n + col] = acc;
}
