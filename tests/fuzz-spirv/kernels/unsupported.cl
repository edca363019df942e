kernel void images(read_only image2d_t img, write_only image2d_t dst, sampler_t s)
{
   int2 p = (int2)(get_global_id(0), get_global_id(1));
   float4 c = read_imagef(img, s, p) + read_imagef(img, p);
   write_imagef(dst, p, c * 0.5f + (float4)(get_image_width(img), get_image_height(img), 0, 1));
}

kernel void pipes(read_only pipe int in, write_only pipe int out)
{
   int v;
   if (read_pipe(in, &v) == 0)
      write_pipe(out, &v);
}
