/* Copies the compiler lowers as memcpy: __builtin_memcpy of constant sizes
 * below and above the 1 KiB that nir_lower_memcpy unrolls (Mesa patch
 * 0059), of a size known only at run time, and struct assignments between
 * global, constant, local and private memory. */
typedef struct { int4 v[80]; } block_t; /* 1280 bytes */
typedef struct { uchar tag; int a[5]; } small_t;

__constant block_t table = { { (int4)(1, 2, 3, 4) } };

kernel void copy_sizes(global uchar *dst, global const uchar *src, uint n)
{
   size_t i = get_global_id(0);
   __builtin_memcpy(dst + i * 64, src + i * 64 + 1, 7);
   __builtin_memcpy(dst + 4096 + i * 2048, src + i * 2048 + 3, 2045);
   __builtin_memcpy(dst + 8192, src + 5, n);
}

kernel void copy_structs(global block_t *out, global const block_t *in,
                         local block_t *scratch, global small_t *smalls)
{
   size_t i = get_global_id(0);
   block_t p = in[i];
   p.v[i & 63].x += 1;
   if (get_local_id(0) == 0)
      *scratch = p;
   barrier(CLK_LOCAL_MEM_FENCE);
   out[i] = *scratch;
   out[i + 1] = table;
   small_t s = smalls[i];
   s.tag++;
   smalls[i + 1] = s;
}
