kernel void relational(global const float4 *a, global int4 *out, global uint *m)
{
   size_t i = get_global_id(0);
   float4 x = a[i], y = a[i + 1];
   int4 r = isequal(x, y) + isnotequal(x, y) + isgreater(x, y) + isgreaterequal(x, y) +
            isless(x, y) + islessequal(x, y) + islessgreater(x, y) + isfinite(x) + isinf(y) +
            isnan(x) + isnormal(y) + isordered(x, y) + isunordered(x, y) + signbit(x);
   out[i] = select(r, (int4)(1, 2, 3, 4), r > 0) + (any(r) ? 1 : 0) + (all(r < 0) ? 2 : 0);
   m[i] = bitselect(m[i], ~m[i], 0xf0f0f0f0u) + select(3u, 4u, (uint)(x.x < y.y));
}
