// SPDX-License-Identifier: MIT
// The same scan as scan_local.cl with work_group_scan_inclusive_add.
__kernel void scan_workgroup(__global const uint *in, __global uint *out)
{
	size_t g = get_global_id(0);

	out[g] = work_group_scan_inclusive_add(in[g]);
}
