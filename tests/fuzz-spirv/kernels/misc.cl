kernel void misc(global int *out, global float *f, global char *bytes)
{
   size_t i = get_global_id(0);
   global int *gp = &out[i];
   generic int *p = gp;
   local int buf[4];
   buf[get_local_id(0) % 4] = (int)i;
   if (to_global(p))
      *to_global(p) += 1;
   printf("item %d value %f %s\n", (int)i, f[i], "x");
   out[i + 1] = as_int(f[i]) + convert_int_rtp(f[i]) + convert_int_sat(f[i] * 1e10f) + buf[0];
   bytes[i] = convert_char_sat(out[i]);
   uchar4 pk = (uchar4)(1, 2, 3, 4);
   out[i + 2] = dot(pk, as_uchar4(out[i])) + dot_acc_sat(pk, pk, 5u) + dot_4x8packed_uu_uint(7u, 9u);
}
