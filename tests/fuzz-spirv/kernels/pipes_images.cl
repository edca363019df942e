// Pipes with reservations, and images of every dimension.
constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                             CLK_FILTER_NEAREST;

kernel void
pipe_reserve(read_only pipe int in, write_only pipe float4 out)
{
   reserve_id_t r = reserve_read_pipe(in, 2);
   int a = 0, b = 0;

   if (is_valid_reserve_id(r)) {
      read_pipe(in, r, 0, &a);
      read_pipe(in, r, 1, &b);
      commit_read_pipe(in, r);
   }
   reserve_id_t w = work_group_reserve_write_pipe(out, get_local_size(0));
   if (is_valid_reserve_id(w)) {
      float4 v = (float4)(a, b, get_pipe_num_packets(in), get_pipe_max_packets(out));
      write_pipe(out, w, get_local_id(0), &v);
      work_group_commit_write_pipe(out, w);
   }
}

kernel void
image_dims(read_only image1d_t i1, read_only image3d_t i3, read_only image2d_array_t ia,
           write_only image1d_buffer_t ob, read_write image2d_t rw, global int4 *out)
{
   int x = get_global_id(0);
   int4 c3 = (int4)(x, x + 1, x + 2, 0);

   float4 a = read_imagef(i1, nearest, x) + read_imagef(i3, nearest, c3) +
              read_imagef(ia, nearest, (float4)(x, 0.5f, 1, 0));
   write_imagef(ob, x, a);
   uint4 u = read_imageui(rw, (int2)(x, 0));
   write_imageui(rw, (int2)(x, 1), u + 1);
   out[x] = (int4)(get_image_channel_order(i1), get_image_channel_data_type(i3),
                   get_image_array_size(ia), get_image_dim(rw).x) +
            read_imagei(i3, nearest, c3);
}
