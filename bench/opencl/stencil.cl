// SPDX-License-Identifier: MIT
// One Jacobi step of a 5-point stencil on an n x n float grid; the border
// is copied.
__kernel void stencil(__global const float *in, __global float *out, uint n)
{
	size_t x = get_global_id(0), y = get_global_id(1), i = y * n + x;

	if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
		out[i] = in[i];
		return;
	}
	out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);
}
