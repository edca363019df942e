typedef struct { int a; float b[3]; long c; } item_t;
constant int table[8] = { 3, 1, 4, 1, 5, 9, 2, 6 };

static int helper(int x, private int *acc)
{
   for (int k = 0; k < x % 7; k++) {
      if (k & 1)
         continue;
      *acc += table[k];
   }
   return *acc;
}

kernel void control(global const item_t *items, global int *out, local int *scratch, int n)
{
   int priv[16];
   size_t i = get_global_id(0);
   int acc = 0, s = 0;
   for (int k = 0; k < 16; k++)
      priv[k] = items[(i + k) % n].a;
   switch (priv[i % 16] & 3) {
   case 0: s = helper(priv[3], &acc); break;
   case 1: s = -1;
   case 2: s += 2; break;
   default:
      while (s < 100 && acc >= 0) {
         s = s * 3 + 1;
         if (s == 40)
            break;
      }
   }
   do {
      s ^= (int)items[i].b[s & 1] + (int)items[i].c;
   } while (s > 1000 && --n > 0);
   scratch[get_local_id(0)] = s;
   barrier(CLK_LOCAL_MEM_FENCE);
   out[i] = scratch[(get_local_id(0) + 1) % get_local_size(0)] + priv[s & 15];
}
