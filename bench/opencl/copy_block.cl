// SPDX-License-Identifier: MIT
// A copy by sub-group block reads and writes (cl_intel_subgroups): each
// sub-group moves one uint per lane, contiguous.
__kernel void copy_block(__global const uint *in, __global uint *out)
{
	size_t base = get_group_id(0) * get_local_size(0) +
		      get_sub_group_id() * get_max_sub_group_size();
	uint v = intel_sub_group_block_read(in + base);

	intel_sub_group_block_write(out + base, v);
}
