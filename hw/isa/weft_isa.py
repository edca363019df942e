# SPDX-License-Identifier: MIT
"""The Weft ISA table: every instruction is declared exactly once here.

weft_isa_gen.py turns this table into the C encoder/decoder/disassembler
tables (shared by the device model, weft-asm and weft-dis), the model's
per-lane ALU semantics and the rst reference (Documentation/gpu/weft/isa.rst).

Instruction word (64 bits, little endian), fields:

  op    [8:0]    opcode
  t     [12:9]   primary type (TYPES)
  imm   [13]     1: bits 63:32 hold a 32-bit immediate (replaces b/c/t2/mod)
  lit   [14]     1: a 64-bit literal word follows (reserved, must be 0 in v1)
  rsvd  [15]     must be 0
  d     [23:16]  destination register (or store-data register)
  a     [31:24]  source register A (address pair for memory instructions)
  b     [39:32]  source register B
  c     [47:40]  source register C
  t2    [51:48]  secondary type (source type of cvt)
  mod   [63:52]  modifier (special-register number for s2r)
  imm32 [63:32]  immediate, when imm = 1

Every field an instruction does not use must be zero; a decoder rejects
anything else, so every instruction has exactly one encoding.  64-bit
operands live in an even-aligned register pair rN:rN+1 (rN low).  With
lit = 1 the next word is a 64-bit literal for a 64-bit srci operand (only
when imm32 cannot express the value).

How the rest of the ISA fits (no field or format changes needed):

- float ALU: the same alu class and operand roles with T in f16/f32/f64
  (f16 in the low half of a 32-bit register); rounding / ftz modifiers in
  mod (register forms) or as separate opcodes; comparisons like set.*.
- control flow with divergence: structured opcodes (if/else/endif on a
  32-bit lane-mask register, loop/break/continue/endloop, branch with a
  signed imm32 word offset) in 0x004-0x00f; the model keeps a per-sub-group
  mask stack and the per-lane loops already blend with the active mask M.
- barrier / SLM: new classes; ld.local / st.local reuse the mem role.
- atomics: d = old value, [rA] address, b / c data (no imm: the mem role
  without offset, or a literal word for the offset).
- cross-lane: shuffle (idx/xor/up/down: b = lane or delta, srci), broadcast,
  vote/ballot (u32 mask result), reduce/scan (op in the opcode, T any
  integer or float type) as new classes that see all lanes at once.
- block load/store: the element count in the opcode or mod.
"""

# name: (code, bits, kind)  kind: u = unsigned int, s = signed int, f = float
TYPES = {
    'u8': (1, 8, 'u'), 's8': (2, 8, 's'),
    'u16': (3, 16, 'u'), 's16': (4, 16, 's'),
    'u32': (5, 32, 'u'), 's32': (6, 32, 's'),
    'u64': (7, 64, 'u'), 's64': (8, 64, 's'),
    'f16': (9, 16, 'f'), 'f32': (10, 32, 'f'), 'f64': (11, 64, 'f'),
}

FIELDS = {
    'op': (0, 9), 't': (9, 4), 'imm': (13, 1), 'lit': (14, 1), 'rsvd': (15, 1),
    'd': (16, 8), 'a': (24, 8), 'b': (32, 8), 'c': (40, 8),
    't2': (48, 4), 'mod': (52, 12), 'imm32': (32, 32),
}

# Special registers for s2r: (name, number, description).  All are u32
# (s2r.u64 zero-extends) except those marked 64: they need s2r.u64.
SREGS = [
    ('lane_id', 0, 'lane of the work-item in its sub-group (sub-group local id)'),
    ('subgroup_id', 1, 'sub-group of the work-item in its work-group: local_linear_id / simd'),
    ('subgroup_size', 2, 'work-items in this sub-group (smaller for a partial last sub-group)'),
    ('num_subgroups', 3, 'sub-groups in this work-group'),
    ('local_id.x', 4, 'work-item id in the work-group, x'),
    ('local_id.y', 5, 'work-item id in the work-group, y'),
    ('local_id.z', 6, 'work-item id in the work-group, z'),
    ('group_id.x', 7, 'work-group id, x'),
    ('group_id.y', 8, 'work-group id, y'),
    ('group_id.z', 9, 'work-group id, z'),
    ('global_id.x', 10, 'group_id * enqueued_local_size + local_id + global_offset, x'),
    ('global_id.y', 11, 'global id, y'),
    ('global_id.z', 12, 'global id, z'),
    ('local_size.x', 13, 'size of this work-group (smaller for a partial group), x'),
    ('local_size.y', 14, 'size of this work-group, y'),
    ('local_size.z', 15, 'size of this work-group, z'),
    ('global_size.x', 16, 'global size of the dispatch, x'),
    ('global_size.y', 17, 'global size, y'),
    ('global_size.z', 18, 'global size, z'),
    ('num_groups.x', 19, 'work-groups in the dispatch, x'),
    ('num_groups.y', 20, 'work-groups, y'),
    ('num_groups.z', 21, 'work-groups, z'),
    ('global_offset.x', 22, 'global offset of the dispatch, x'),
    ('global_offset.y', 23, 'global offset, y'),
    ('global_offset.z', 24, 'global offset, z'),
    ('local_linear_id', 25, 'local_id.x + local_id.y * local_size.x + local_id.z * local_size.x * local_size.y'),
    ('max_subgroup_size', 26, 'the SIMD width of the dispatch (8, 16 or 32)'),
    ('enqueued_local_size.x', 27, 'local size given in the DISPATCH command, x'),
    ('enqueued_local_size.y', 28, 'enqueued local size, y'),
    ('enqueued_local_size.z', 29, 'enqueued local size, z'),
    ('args', 30, 'argument-buffer VA of the dispatch (64-bit: s2r.u64 only)', 64),
]

INT32 = ['u32', 's32']
INT64 = ['u64', 's64']
INT = INT32 + INT64
INT_ALL = ['u8', 's8', 'u16', 's16'] + INT

# Instruction classes (the model implements one handler per class):
#   alu   d = SEM(a[, b[, c]]) per active lane; SEM is a C expression over
#         a, b, c of the operand C types; U / S name the unsigned / signed
#         C type of the instruction's width, W the width in bits.
#   cvt   d = (dst type) a, with a read as the source type t2
#   s2r   d = special register mod
#   ld    d = memory[a + imm32]
#   st    memory[a + imm32] = d
#   end   the sub-group terminates
#
# Operands: (field, role, type) role: dst | src | srci (register or imm) |
# mem ([rA+imm]) | sreg | sdata (store data, in field d).  Type: 'T' the
# instruction type, 'T2' the secondary type, or a fixed type name.


class Instr:
    def __init__(self, name, opcode, cls, operands, types, summary,
                 sem=None, types2=None):
        self.name = name
        self.opcode = opcode
        self.cls = cls
        self.operands = operands
        self.types = types
        self.types2 = types2 or []
        self.summary = summary
        self.sem = sem


D = ('d', 'dst', 'T')
A = ('a', 'src', 'T')
BI = ('b', 'srci', 'T')
B = ('b', 'src', 'T')
C = ('c', 'src', 'T')
SHIFT = ('b', 'srci', 'u32')
D32 = ('d', 'dst', 'u32')

INSTRS = [
    Instr('end', 0x001, 'end', [], [], 'The sub-group terminates.'),
    Instr('nop', 0x002, 'nop', [], [], 'No operation.'),
    Instr('s2r', 0x003, 's2r', [D, ('mod', 'sreg', 'T')], ['u32', 'u64'],
          'Read a special register (see the table of special registers).'),
    Instr('mov', 0x010, 'alu', [D, ('b', 'srci', 'T')], INT,
          'd = b', 'b'),
    Instr('cvt', 0x011, 'cvt', [D, ('a', 'src', 'T2')], INT_ALL,
          'd = a converted from t2 to t: truncation, zero- or sign-extension '
          'by the source type', types2=INT_ALL),
    Instr('add', 0x020, 'alu', [D, A, BI], INT,
          'd = a + b (wraps)', '(U)a + (U)b'),
    Instr('sub', 0x021, 'alu', [D, A, BI], INT,
          'd = a - b (wraps)', '(U)a - (U)b'),
    Instr('mul', 0x022, 'alu', [D, A, BI], INT,
          'd = low W bits of a * b', '(U)a * (U)b'),
    Instr('mul_hi', 0x023, 'alu', [D, A, BI], INT,
          'd = high W bits of the 2W-bit product a * b (signed for s types)',
          'weft_mulhi_T(a, b)'),
    Instr('div', 0x024, 'alu', [D, A, BI], INT,
          'd = a / b rounded toward zero; b = 0 gives all ones; '
          'INT_MIN / -1 gives INT_MIN', 'weft_div_T(a, b)'),
    Instr('rem', 0x025, 'alu', [D, A, BI], INT,
          'd = a % b (sign of a); b = 0 gives a; INT_MIN % -1 gives 0',
          'weft_rem_T(a, b)'),
    Instr('mad', 0x026, 'alu', [D, A, B, C], INT,
          'd = a * b + c (low W bits)', '(U)a * (U)b + (U)c'),
    Instr('add_sat', 0x027, 'alu', [D, A, BI], INT,
          'd = a + b, saturated to the range of T', 'weft_addsat_T(a, b)'),
    Instr('sub_sat', 0x028, 'alu', [D, A, BI], INT,
          'd = a - b, saturated to the range of T', 'weft_subsat_T(a, b)'),
    Instr('hadd', 0x029, 'alu', [D, A, BI], INT,
          'd = (a + b) >> 1 without intermediate overflow (rounds down)',
          '(U)((a >> 1) + (b >> 1) + (a & b & 1))'),
    Instr('rhadd', 0x02a, 'alu', [D, A, BI], INT,
          'd = (a + b + 1) >> 1 without intermediate overflow',
          '(U)((a >> 1) + (b >> 1) + ((a | b) & 1))'),
    Instr('abs_diff', 0x02b, 'alu', [D, A, BI], INT,
          'd = |a - b| as an unsigned W-bit value (signed compare for s types)',
          'a > b ? (U)a - (U)b : (U)b - (U)a'),
    Instr('and', 0x030, 'alu', [D, A, BI], INT, 'd = a & b', 'a & b'),
    Instr('or', 0x031, 'alu', [D, A, BI], INT, 'd = a | b', 'a | b'),
    Instr('xor', 0x032, 'alu', [D, A, BI], INT, 'd = a ^ b', 'a ^ b'),
    Instr('not', 0x033, 'alu', [D, A], INT, 'd = ~a', '~a'),
    Instr('neg', 0x034, 'alu', [D, A], INT, 'd = -a (wraps)', '-(U)a'),
    Instr('abs', 0x035, 'alu', [D, A], INT,
          'd = absolute value of a for s types (abs(INT_MIN) = INT_MIN), a for u types',
          'weft_abs_T(a)'),
    Instr('shl', 0x038, 'alu', [D, A, SHIFT], INT,
          'd = a << (b % W)', '(U)a << (b & (W - 1))'),
    Instr('shr', 0x039, 'alu', [D, A, SHIFT], INT,
          'd = a >> (b % W), logical (zero fill) for every type',
          '(U)a >> (b & (W - 1))'),
    Instr('sar', 0x03a, 'alu', [D, A, SHIFT], INT,
          'd = a >> (b % W), arithmetic (sign fill) for every type',
          '(U)((S)a >> (b & (W - 1)))'),
    Instr('brev', 0x036, 'alu', [D, A], INT, 'd = a with its W bits reversed',
          'weft_brev_T(a)'),
    Instr('bfe', 0x037, 'alu', [D, A, ('b', 'src', 'u32'), ('c', 'src', 'u32')], INT,
          'bit-field extract: the c bits of a from bit b % W (c >= W - b % W takes the rest), '
          'zero-extended for u types and sign-extended for s types; c = 0 gives 0',
          'weft_bfe_T(a, b, c)'),
    Instr('popc', 0x03b, 'alu', [D, A], INT, 'd = number of set bits of a',
          'weft_popc_T(a)'),
    Instr('clz', 0x03c, 'alu', [D, A], INT,
          'd = leading zero bits of a (W for 0)', 'weft_clz_T(a)'),
    Instr('ctz', 0x03d, 'alu', [D, A], INT,
          'd = trailing zero bits of a (W for 0)', 'weft_ctz_T(a)'),
    Instr('rotl', 0x03e, 'alu', [D, A, SHIFT], INT,
          'd = a rotated left by b % W bits',
          '((U)a << (b & (W - 1))) | ((U)a >> ((W - (b & (W - 1))) & (W - 1)))'),
    Instr('rotr', 0x03f, 'alu', [D, A, SHIFT], INT,
          'd = a rotated right by b % W bits',
          '((U)a >> (b & (W - 1))) | ((U)a << ((W - (b & (W - 1))) & (W - 1)))'),
    Instr('min', 0x040, 'alu', [D, A, BI], INT,
          'd = the smaller of a and b (signed compare for s types)',
          'a < b ? a : b'),
    Instr('max', 0x041, 'alu', [D, A, BI], INT,
          'd = the larger of a and b (signed compare for s types)',
          'a > b ? a : b'),
    Instr('set.eq', 0x048, 'alu', [D32, A, BI], INT,
          'd = a == b ? 0xffffffff : 0 (a 32-bit lane mask)',
          'a == b ? 0xffffffffu : 0u'),
    Instr('set.ne', 0x049, 'alu', [D32, A, BI], INT,
          'd = a != b ? 0xffffffff : 0', 'a != b ? 0xffffffffu : 0u'),
    Instr('set.lt', 0x04a, 'alu', [D32, A, BI], INT,
          'd = a < b ? 0xffffffff : 0', 'a < b ? 0xffffffffu : 0u'),
    Instr('set.le', 0x04b, 'alu', [D32, A, BI], INT,
          'd = a <= b ? 0xffffffff : 0', 'a <= b ? 0xffffffffu : 0u'),
    Instr('set.gt', 0x04c, 'alu', [D32, A, BI], INT,
          'd = a > b ? 0xffffffff : 0', 'a > b ? 0xffffffffu : 0u'),
    Instr('set.ge', 0x04d, 'alu', [D32, A, BI], INT,
          'd = a >= b ? 0xffffffff : 0', 'a >= b ? 0xffffffffu : 0u'),
    Instr('sel', 0x04e, 'alu', [D, A, B, ('c', 'src', 'u32')], INT,
          'd = c != 0 ? a : b (c is a 32-bit lane mask from set.*)',
          'c ? a : b'),
    Instr('ld.global', 0x100, 'ld', [D, ('a', 'mem', 'u64')], INT_ALL,
          'd = global memory at a + imm (8/16-bit loads zero- or '
          'sign-extend to 32 bits by the type); inactive lanes do not access memory'),
    Instr('st.global', 0x101, 'st', [('a', 'mem', 'u64'), ('d', 'sdata', 'T')],
          ['u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64'],
          'global memory at a + imm = d (the low 8/16/32/64 bits); '
          'inactive lanes do not access memory'),
]

# Opcode ranges reserved for the full ISA, so that later additions extend
# the table without moving anything (documented in isa.rst).
RESERVED_RANGES = [
    (0x000, 0x000, 'never defined: zeroed memory is an undefined instruction'),
    (0x004, 0x00f, 'control flow: branches, if/else/endif and loops on lane masks, barrier'),
    (0x060, 0x0bf, 'float ALU on f16/f32/f64 (add, mul, fma, compare, conversions, transcendentals)'),
    (0x0c0, 0x0ff, 'cross-lane: shuffle (idx, xor, up, down), broadcast, vote, ballot, reduce, scan'),
    (0x102, 0x13f, 'memory: local (SLM) loads/stores, sub-group block load/store, fences'),
    (0x140, 0x17f, 'atomics: global and local'),
]


def check():
    seen = {}
    for i in INSTRS:
        assert i.opcode < (1 << FIELDS['op'][1]), i.name
        assert i.opcode not in seen, (i.name, seen.get(i.opcode))
        seen[i.opcode] = i.name
        for t in i.types + i.types2:
            assert t in TYPES, (i.name, t)
    names = [s[0] for s in SREGS]
    assert len(set(names)) == len(names)
    return True
