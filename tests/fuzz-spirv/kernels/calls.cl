/* Calls that stay calls in SPIR-V: structs passed and returned by value
 * (FuncParamAttr ByVal and Sret on Function pointers, a struct kernel
 * argument) and generic pointers to private, local and global memory. */
typedef struct { int a; float b[3]; long c; } pair_t;

__attribute__((noinline)) pair_t scale(pair_t p, float f)
{
   p.a *= 2;
   for (int k = 0; k < 3; k++)
      p.b[k] *= f;
   p.c += p.a;
   return p;
}

__attribute__((noinline)) int sum(const int *p, int n)
{
   int s = 0;
   for (int k = 0; k < n; k++)
      s += p[k];
   return s;
}

kernel void calls(pair_t arg, global pair_t *out, global int *g, local int *l)
{
   size_t i = get_global_id(0);
   int priv[4] = { g[i], g[i + 1], 3, 4 };
   pair_t p = scale(arg, (float)i);

   l[get_local_id(0)] = g[i];
   barrier(CLK_LOCAL_MEM_FENCE);
   p.a += sum(priv, 4) + sum(g + i, 2) + sum(l, (int)get_local_size(0));
   out[i] = p;
}
