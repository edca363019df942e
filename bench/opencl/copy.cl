// SPDX-License-Identifier: MIT
// Copies: one int, or one float4, per work-item.
__kernel void copy_int(__global const int *in, __global int *out)
{
	size_t i = get_global_id(0);

	out[i] = in[i];
}

__kernel void copy_float4(__global const float4 *in, __global float4 *out)
{
	size_t i = get_global_id(0);

	out[i] = in[i];
}
