#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void vector_data(global const float *in, global float *out, global half *h)
{
   size_t i = get_global_id(0);
   float2 a = vload2(i, in);
   float4 b = vload4(i, in + 1);
   float8 c = vload8(i, in + 2);
   float16 d = vload16(0, in + 3);
   vstore2(a * 2.0f, i, out);
   vstore4(b + 1.0f, i, out + 8);
   vstore8(c - 3.0f, i, out + 64);
   vstore16(d * d, i, out + 128);
   float4 hf = vload_half4(i, h);
   vstore_half4_rte(hf * 0.5f, i, h + 64);
   vstore_half_rtz(a.x, i, h + 128);
   out[i + 256] = vload_half(i, h) + vloada_half4(0, h).y;
   float4 sh = shuffle(b, (uint4)(3, 2, 1, 0)) + shuffle2(b, b * 2.0f, (uint4)(7, 0, 5, 2));
   vstore4(sh, i, out + 512);
   int4 bits = as_int4(b) ^ convert_int4_sat_rte(b * 1000.0f);
   vstore4(as_float4(bits), i, out + 1024);
}
