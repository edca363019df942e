// cl_intel_subgroups and its siblings (SPV_INTEL_subgroups): shuffles on
// scalars and vectors, buffer block reads and writes of 1 to 16 elements,
// block reads and writes on local memory (cl_intel_subgroup_local_block_io)
// and on read_only, write_only and read_write images.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
// Declared here: the corpus is built without the extensions' headers.
#define OVLD __attribute__((overloadable))
float4 OVLD intel_sub_group_shuffle(float4 x, uint c);
float4 OVLD intel_sub_group_shuffle_xor(float4 x, uint c);
half OVLD intel_sub_group_shuffle_up(half prev, half cur, uint d);
ulong OVLD intel_sub_group_shuffle_up(ulong prev, ulong cur, uint d);
uint4 OVLD intel_sub_group_block_read4(const __global uint *p);
void OVLD intel_sub_group_block_write8(__global uint *p, uint8 v);
ushort2 OVLD intel_sub_group_block_read_us2(const __global ushort *p);
void OVLD intel_sub_group_block_write_us2(__global ushort *p, ushort2 v);
uchar16 OVLD intel_sub_group_block_read_uc16(const __global uchar *p);
void OVLD intel_sub_group_block_write_ul2(__global ulong *p, ulong2 v);
char4 OVLD intel_sub_group_shuffle_down(char4 cur, char4 next, uint d);
uint4 OVLD intel_sub_group_block_read4(const __local uint *p);
void OVLD intel_sub_group_block_write_us(__local ushort *p, ushort v);

kernel void intel_shuffles(global const uint *in, global float4 *f, global char4 *c,
                           global half *h, global ulong *l)
{
   size_t i = get_global_id(0);
   uint x = in[i];
   f[i] = intel_sub_group_shuffle(f[i], x & 7) + intel_sub_group_shuffle_xor(f[i], 3);
   c[i] = intel_sub_group_shuffle_down(c[i], c[i + 1], x);
   h[i] = intel_sub_group_shuffle_up(h[i], h[i + 1], 2);
   l[i] = intel_sub_group_shuffle_up(l[i], l[i + 1], x);
}

kernel void intel_blocks(global uint *p, global uchar *b, global ushort *s, global ulong *l,
                         local uint *slm)
{
   uint4 v = intel_sub_group_block_read4(p);
   intel_sub_group_block_write8(p + 64, (uint8)(v, v + 1));
   uchar16 c = intel_sub_group_block_read_uc16(b);
   vstore16(c, get_global_id(0), b + 1024);
   intel_sub_group_block_write_us2(s, intel_sub_group_block_read_us2(s + 32));
   intel_sub_group_block_write_ul2(l, (ulong2)(get_global_id(0), 7));
   slm[get_local_id(0)] = v.x;
   barrier(CLK_LOCAL_MEM_FENCE);
   uint4 w = intel_sub_group_block_read4(slm);
   intel_sub_group_block_write_us((local ushort *)slm + 8, (ushort)w.y);
   p[get_global_id(0)] = w.x + w.z;
}

uint2 OVLD intel_sub_group_block_read2(read_only image2d_t img, int2 coord);
ushort8 OVLD intel_sub_group_block_read_us8(read_write image2d_t img, int2 coord);
void OVLD intel_sub_group_block_write4(write_only image2d_t img, int2 coord, uint4 v);
void OVLD intel_sub_group_block_write_us8(read_write image2d_t img, int2 coord, ushort8 v);
uchar16 OVLD intel_sub_group_block_read_uc16(read_only image2d_t img, int2 coord);

kernel void intel_image_blocks(read_only image2d_t src, write_only image2d_t dst,
                               read_write image2d_t rw, global uint *out, int2 at)
{
   uint2 v = intel_sub_group_block_read2(src, at);
   intel_sub_group_block_write4(dst, at + (int2)(4, 1), (uint4)(v, v.y, v.x));
   ushort8 s = intel_sub_group_block_read_us8(rw, at);
   intel_sub_group_block_write_us8(rw, at - (int2)(2, 3), s + (ushort8)(1));
   uchar16 c = intel_sub_group_block_read_uc16(src, (int2)(-3, at.y));
   out[get_global_id(0)] = v.x + s.s7 + c.sf;
}
