/* SPDX-License-Identifier: MIT */
/*
 * Packing: branch targets resolved to byte offsets, then every
 * instruction encoded by the encoder generated from the ISA table.
 */
#include "util/hash_table.h"
#include "util/ralloc.h"

#include "weft_ir.h"

uint64_t *
weft_ir_pack(struct weft_ir *ir, void *mem_ctx, unsigned *nwords)
{
   unsigned n = 0, cap = 64, off = 0;
   uint64_t *words = ralloc_array(mem_ctx, uint64_t, cap);
   struct hash_table *offsets = _mesa_pointer_hash_table_create(NULL);

   /* Byte offsets of every instruction, then the branch targets. */
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      _mesa_hash_table_insert(offsets, I, (void *)(uintptr_t)off);
      off += I->in.nwords * 8;
   }
   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      if (I->target) {
         uint32_t from = (uintptr_t)_mesa_hash_table_search(offsets, I)->data;
         uint32_t to = (uintptr_t)_mesa_hash_table_search(offsets, I->target)->data;
         I->in.imm = (uint32_t)((int32_t)to - (int32_t)from);
      }
   }
   _mesa_hash_table_destroy(offsets, NULL);

   list_for_each_entry(struct weft_ir_instr, I, &ir->instrs, link) {
      uint64_t w[2];
      int k = weft_isa_encode(&I->in, w);

      if (k < 0)
         return NULL;
      if (n + 2 > cap) {
         cap *= 2;
         words = reralloc(mem_ctx, words, uint64_t, cap);
      }
      for (int i = 0; i < k; i++)
         words[n++] = w[i];
   }
   *nwords = n;
   return words;
}
