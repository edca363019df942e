kernel void math_f32(global const float *a, global float *out)
{
   size_t i = get_global_id(0);
   float x = a[i], y = a[i + 1];
   int e;
   float ip;
   out[i] = sin(x) + cos(y) + tan(x) + asin(x) + acos(y) + atan(x) + atan2(x, y) + sinh(x) +
            cosh(y) + tanh(x) + exp(x) + exp2(y) + exp10(x) + expm1(y) + log(x) + log2(y) +
            log10(x) + log1p(y) + pow(x, y) + pown(x, 3) + powr(x, y) + rootn(x, 3) + sqrt(x) +
            rsqrt(y) + cbrt(x) + hypot(x, y) + fma(x, y, 1.0f) + mad(x, y, 2.0f) + fmin(x, y) +
            fmax(x, y) + fdim(x, y) + fmod(x, y) + remainder(x, y) + floor(x) + ceil(y) +
            round(x) + rint(y) + trunc(x) + fabs(y) + copysign(x, y) + frexp(x, &e) + e +
            ldexp(y, 3) + modf(x, &ip) + ip + logb(x) + ilogb(y) + nextafter(x, y) + erf(x) +
            erfc(y) + lgamma(x) + tgamma(y) + sinpi(x) + cospi(y) + tanpi(x) + asinpi(x) +
            acospi(y) + atanpi(x) + atan2pi(x, y) + maxmag(x, y) + minmag(x, y) + nan(3u);
   out[i + 1] = native_sin(x) + native_cos(y) + native_exp(x) + native_log(y) +
                native_sqrt(x) + native_rsqrt(y) + native_recip(x) + native_divide(x, y) +
                native_powr(x, y) + half_sin(x) + half_exp(y) + half_sqrt(x) + half_recip(y);
}

kernel void math_f64(global const double *a, global double *out)
{
   size_t i = get_global_id(0);
   double x = a[i], y = a[i + 1];
   out[i] = sin(x) * cos(y) + exp(x) - log(y) + pow(x, y) + sqrt(x) + fma(x, y, x) +
            floor(x) + fmod(x, y) + atan2(x, y) + hypot(x, y) + cbrt(y);
}
