kernel void common_geom(global const float4 *a, global float4 *out, global float *s)
{
   size_t i = get_global_id(0);
   float4 x = a[i], y = a[i + 1];
   out[i] = clamp(x, 0.0f, 1.0f) + degrees(x) + radians(y) + mix(x, y, 0.25f) + step(y, x) +
            smoothstep(0.0f, 1.0f, x) + sign(y) + fmax(x, y) + normalize(x) + fast_normalize(y) +
            cross(x, y);
   s[i] = dot(x, y) + distance(x, y) + length(x) + fast_length(y) + fast_distance(x, y) +
          dot(x.xy, y.zw) + length(x.xyz);
}
