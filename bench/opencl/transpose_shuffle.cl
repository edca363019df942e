// SPDX-License-Identifier: MIT
// A transpose of an n x n uint matrix by sub-group shuffles
// (cl_intel_subgroups): each sub-group of 16 takes one 16 x 16 tile. Lane l
// reads column l of the tile, one row per register, so every read is 16
// consecutive words; four butterfly stages of shuffle_xor then leave lane l
// with row l, which it writes as a column of the output, again 16
// consecutive words per write. No local memory and no barrier.
//
// Stage b swaps, between lanes l and l ^ b, the registers whose index
// differs from the lane in bit b: the lane with bit b clear sends its
// register i | b and receives into it, its partner sends register i and
// receives into that. After the four stages the lane and register bits of
// every element have been exchanged: a transpose.
#define SWAP(b, i, j)                                                  \
	do {                                                           \
		uint sent = upper ? v.s##i : v.s##j;                   \
		uint got = intel_sub_group_shuffle_xor(sent, b);       \
		v.s##i = upper ? got : v.s##i;                         \
		v.s##j = upper ? v.s##j : got;                         \
	} while (0)

#define STAGE(b, i0, j0, i1, j1, i2, j2, i3, j3, i4, j4, i5, j5, i6, j6, i7, j7) \
	do {                                                           \
		bool upper = (lane & (b)) != 0;                        \
		SWAP(b, i0, j0); SWAP(b, i1, j1); SWAP(b, i2, j2);     \
		SWAP(b, i3, j3); SWAP(b, i4, j4); SWAP(b, i5, j5);     \
		SWAP(b, i6, j6); SWAP(b, i7, j7);                      \
	} while (0)

// Global size (n, n / 16): get_global_id(1) numbers the tile rows.
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void transpose_shuffle(__global const uint *in, __global uint *out, uint n)
{
	uint lane = get_sub_group_local_id();
	size_t gx = get_group_id(0) * 16, gy = get_global_id(1) * 16;
	__global const uint *src = in + gy * n + gx + lane;
	__global uint *dst = out + gx * n + gy + lane;
	uint16 v;

	v.s0 = src[0 * n];  v.s1 = src[1 * n];  v.s2 = src[2 * n];  v.s3 = src[3 * n];
	v.s4 = src[4 * n];  v.s5 = src[5 * n];  v.s6 = src[6 * n];  v.s7 = src[7 * n];
	v.s8 = src[8 * n];  v.s9 = src[9 * n];  v.sa = src[10 * n]; v.sb = src[11 * n];
	v.sc = src[12 * n]; v.sd = src[13 * n]; v.se = src[14 * n]; v.sf = src[15 * n];

	STAGE(1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, a, b, c, d, e, f);
	STAGE(2, 0, 2, 1, 3, 4, 6, 5, 7, 8, a, 9, b, c, e, d, f);
	STAGE(4, 0, 4, 1, 5, 2, 6, 3, 7, 8, c, 9, d, a, e, b, f);
	STAGE(8, 0, 8, 1, 9, 2, a, 3, b, 4, c, 5, d, 6, e, 7, f);

	dst[0 * n] = v.s0;  dst[1 * n] = v.s1;  dst[2 * n] = v.s2;  dst[3 * n] = v.s3;
	dst[4 * n] = v.s4;  dst[5 * n] = v.s5;  dst[6 * n] = v.s6;  dst[7 * n] = v.s7;
	dst[8 * n] = v.s8;  dst[9 * n] = v.s9;  dst[10 * n] = v.sa; dst[11 * n] = v.sb;
	dst[12 * n] = v.sc; dst[13 * n] = v.sd; dst[14 * n] = v.se; dst[15 * n] = v.sf;
}
