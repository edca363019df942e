kernel void integer_ops(global const int *a, global const uint *b, global long *out)
{
   size_t i = get_global_id(0);
   int x = a[i], y = a[i + 1];
   uint u = b[i], v = b[i + 1];
   long l = (long)x << 20;
   out[i] = abs(x) + abs_diff(x, y) + add_sat(x, y) + hadd(x, y) + rhadd(u, v) +
            clamp(x, -5, 5) + clz(u) + ctz(v) + popcount(u) + mad24(x, y, 3) + mul24(x, y) +
            mad_hi(x, y, 7) + mul_hi(u, v) + mad_sat(x, y, x) + rotate(u, v) + sub_sat(x, y) +
            upsample((short)x, (ushort)y) + max(x, y) + min(u, v) + (x / (y | 1)) + (u % (v | 1)) +
            (x >> (y & 31)) + (u << (v & 31)) + mul_hi(l, l) + rotate(l, (long)y) + popcount(l) +
            clz(l) + (l / ((long)y | 1)) + (ulong)u * v;
}

kernel void narrow(global const char4 *a, global short8 *out, global uchar16 *bytes)
{
   size_t i = get_global_id(0);
   char4 c = a[i];
   short8 s = convert_short8((char8)(c, c.wzyx));
   out[i] = add_sat(s, (short8)7) * mul_hi(s, s) + (s >> 2) + hadd(s, s.s76543210);
   bytes[i] = convert_uchar16_sat((short16)(s, s * s)) ^ rotate(bytes[i], (uchar16)3);
}
