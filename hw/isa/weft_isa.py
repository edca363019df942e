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

Instruction classes beyond the integer ALU (all declared below, once):

- cf: structured control flow on a per-sub-group mask stack (if / else /
  endif, loop / break / cont / endloop) and uniform branches (bra,
  bra.any/all/none); targets are a signed imm32 byte offset (role target).
- bar: the work-group barrier; fence: memory fences by scope.
- xlane: shuffles, broadcast, votes, ballot, reductions and scans.
- ldx / stx: SLM, scratch, vector, sub-group block and image block I/O
  (vec: the data operand is that many consecutive elements).
- atom: global and local atomics (role addr: [rA] without offset).
- alu with T in f16/f32/f64: the float ALU (f-prefixed names); cvtf:
  conversions with a rounding mode and saturation.

Free opcode ranges are listed in RESERVED_RANGES.
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
                 sem=None, types2=None, vec=1):
        self.name = name
        self.opcode = opcode
        self.cls = cls
        self.operands = operands
        self.types = types
        self.types2 = types2 or []
        self.summary = summary
        self.sem = sem
        self.vec = vec      # registers (elements) of the dst / sdata operand


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


# ---------------------------------------------------------------------------
# The full ISA: control flow, cross-lane, memory spaces, atomics, float ALU.
# ---------------------------------------------------------------------------

FLOAT = ['f16', 'f32', 'f64']
NUM = INT_ALL + FLOAT          # every type
INT_ALU_SMALL = ['u8', 's8', 'u16', 's16']

# Extend the integer ALU to 8/16-bit types (registers hold them zero- or
# sign-extended to 32 bits; results are truncated and re-extended).
for _i in INSTRS:
    if _i.cls == 'alu' and _i.types == INT:
        _i.types = INT_ALU_SMALL + INT
_MOV = [i for i in INSTRS if i.name == 'mov'][0]
_MOV.types = INT_ALU_SMALL + INT + FLOAT
_SEL = [i for i in INSTRS if i.name == 'sel'][0]
_SEL.types = INT_ALU_SMALL + INT + FLOAT

TGT = ('b', 'target', 'u32')     # signed byte offset from this instruction (imm32)
C32 = ('a', 'src', 'u32')        # a 32-bit lane-mask / condition register

INSTRS += [
    Instr('bra', 0x004, 'cf', [TGT], [],
          'Uniform branch: the whole sub-group jumps to the target (pc + offset).'),
    Instr('bra.any', 0x005, 'cf', [C32, TGT], [],
          'Jump if a != 0 in any active lane (uniform: the sub-group stays together).'),
    Instr('bra.all', 0x006, 'cf', [C32, TGT], [],
          'Jump if a != 0 in every active lane.'),
    Instr('bra.none', 0x007, 'cf', [C32, TGT], [],
          'Jump if a == 0 in every active lane.'),
    Instr('if', 0x008, 'cf', [C32, TGT], [],
          'Push the active mask; the active lanes become those with a != 0.  If none is '
          'left, jump to the target (the matching else or endif).'),
    Instr('else', 0x009, 'cf', [TGT], [],
          'The active lanes become the lanes of the matching if whose condition was 0 '
          '(minus lanes that left by break/cont).  If none, jump to the target (endif).'),
    Instr('endif', 0x00a, 'cf', [], [],
          'Pop: the active mask of the matching if is restored (minus lanes that left by '
          'break/cont).'),
    Instr('loop', 0x00b, 'cf', [TGT], [],
          'Open a loop (target: its endloop); the body starts at the next instruction and '
          'repeats until every lane has left it by break.'),
    Instr('break', 0x00c, 'cf', [C32], [],
          'The active lanes with a != 0 leave the innermost loop (they resume after its '
          'endloop).'),
    Instr('cont', 0x00d, 'cf', [C32], [],
          'The active lanes with a != 0 skip to the next iteration of the innermost loop.'),
    Instr('endloop', 0x00e, 'cf', [], [],
          'Lanes that continued rejoin; if any lane is active, jump to the loop body, '
          'else close the loop and restore the mask at the loop.'),
    Instr('bar', 0x00f, 'bar', [], [],
          'Work-group barrier: the sub-group waits until every sub-group of its work-group '
          'reached a barrier (or ended); implies fence.wg.  Executed by the sub-group as a '
          'whole, whatever its active mask.'),
]

XT = NUM
SH_B = ('b', 'srci', 'u32')
INSTRS += [
    Instr('shfl.idx', 0x0c0, 'xlane', [D, A, SH_B], XT,
          'd = a of lane (b % simd) (lanes read from inactive lanes see their register)'),
    Instr('shfl.xor', 0x0c1, 'xlane', [D, A, SH_B], XT,
          'd = a of lane ((lane ^ b) % simd)'),
    Instr('shfl.up', 0x0c2, 'xlane', [D, A, SH_B], XT,
          'd = a of lane ((lane - b) mod simd) (a rotation)'),
    Instr('shfl.down', 0x0c3, 'xlane', [D, A, SH_B], XT,
          'd = a of lane ((lane + b) mod simd) (a rotation)'),
    Instr('shfl.up2', 0x0c4, 'xlane', [D, A, ('c', 'src', 'T'), ('b', 'src', 'u32')], XT,
          'two sources (intel_sub_group_shuffle_up(prev = c, cur = a, delta = b)): '
          'j = lane - b; d = j >= 0 ? a of lane j : j + simd >= 0 ? c of lane j + simd : 0'),
    Instr('shfl.down2', 0x0c5, 'xlane', [D, A, ('c', 'src', 'T'), ('b', 'src', 'u32')], XT,
          'two sources (intel_sub_group_shuffle_down(cur = a, next = c, delta = b)): '
          'j = lane + b; d = j < simd ? a of lane j : j - simd < simd ? c of lane j - simd : 0'),
    Instr('bcast', 0x0c6, 'xlane', [D, A, SH_B], XT,
          'd = a of lane (b % simd), b taken from the first active lane (sub_group_broadcast)'),
    Instr('vote.any', 0x0c8, 'xlane', [D32, ('a', 'src', 'u32')], [],
          'd = 0xffffffff if a != 0 in any active lane, else 0'),
    Instr('vote.all', 0x0c9, 'xlane', [D32, ('a', 'src', 'u32')], [],
          'd = 0xffffffff if a != 0 in every active lane, else 0'),
    Instr('ballot', 0x0ca, 'xlane', [D32, ('a', 'src', 'u32')], [],
          'd = bit l set for every active lane l with a != 0'),
    Instr('vote.eq', 0x0cb, 'xlane', [D32, A], NUM,
          'd = 0xffffffff if a has the same bits in every active lane, else 0'),
]
RED_OPS = [('add', NUM, 'sum (floats: in lane order, rounded at each step)'),
           ('mul', NUM, 'product (floats: in lane order)'),
           ('min', NUM, 'minimum (signed for s types; floats: IEEE minNum, NaN only if all NaN, -0 < +0)'),
           ('max', NUM, 'maximum (floats: IEEE maxNum)'),
           ('and', INT_ALL, 'bitwise and'), ('or', INT_ALL, 'bitwise or'),
           ('xor', INT_ALL, 'bitwise xor')]
for _k, (_op, _ty, _what) in enumerate(RED_OPS):
    INSTRS += [
        Instr('red.' + _op, 0x0d0 + _k, 'xlane', [D, A], _ty,
              'd = %s of a over the active lanes, in every active lane' % _what),
        Instr('iscan.' + _op, 0x0d8 + _k, 'xlane', [D, A], _ty,
              'inclusive scan: d = %s of a over the active lanes <= this lane' % _what),
        Instr('escan.' + _op, 0x0e0 + _k, 'xlane', [D, A], _ty,
              'exclusive scan: d = %s of a over the active lanes < this lane (the identity: '
              '0, 1, the type\'s max / +inf, min / -inf, all ones, 0, 0 in the first)' % _what),
    ]

MEMA32 = ('a', 'mem', 'u32')
MEMA64 = ('a', 'mem', 'u64')
SD = ('d', 'sdata', 'T')
INSTRS += [
    Instr('ld.local', 0x102, 'ldx', [D, MEMA32], INT_ALL,
          'd = shared local memory at a + imm (a byte offset into the work-group\'s SLM); '
          'an access past the dispatch\'s SLM size rounded up to the SLM granule stops the '
          'queue with WEFT_QERR_BAD_ACCESS'),
    Instr('st.local', 0x103, 'stx', [MEMA32, SD], INT_ALL,
          'shared local memory at a + imm = d'),
    Instr('ld.global.v2', 0x104, 'ldx', [D, MEMA64], ['u32', 'u64'],
          'd, d+1 (pairs for u64) = 2 consecutive elements at a + imm (64 or 128 bits)',
          vec=2),
    Instr('ld.global.v4', 0x105, 'ldx', [D, MEMA64], ['u32', 'u64'],
          '4 consecutive elements (128 or 256 bits) into d .. d+3 (d .. d+7 for u64)', vec=4),
    Instr('st.global.v2', 0x106, 'stx', [MEMA64, SD], ['u32', 'u64'],
          'store 2 consecutive elements from d, d+1', vec=2),
    Instr('st.global.v4', 0x107, 'stx', [MEMA64, SD], ['u32', 'u64'],
          'store 4 consecutive elements from d .. d+3', vec=4),
    Instr('ld.local.v2', 0x108, 'ldx', [D, MEMA32], ['u32', 'u64'],
          'SLM load of 2 consecutive elements', vec=2),
    Instr('ld.local.v4', 0x109, 'ldx', [D, MEMA32], ['u32', 'u64'],
          'SLM load of 4 consecutive elements', vec=4),
    Instr('st.local.v2', 0x10a, 'stx', [MEMA32, SD], ['u32', 'u64'],
          'SLM store of 2 consecutive elements', vec=2),
    Instr('st.local.v4', 0x10b, 'stx', [MEMA32, SD], ['u32', 'u64'],
          'SLM store of 4 consecutive elements', vec=4),
    Instr('ld.scratch', 0x10c, 'ldx', [D, MEMA32], INT_ALL,
          'd = the lane\'s private (scratch) memory at a + imm; past the dispatch\'s '
          'per-work-item scratch size: WEFT_QERR_BAD_ACCESS'),
    Instr('st.scratch', 0x10d, 'stx', [MEMA32, SD], INT_ALL,
          'the lane\'s private memory at a + imm = d'),
    Instr('ld.scratch.v4', 0x10e, 'ldx', [D, MEMA32], ['u32'],
          'private load of 4 consecutive u32 (spill / fill of 4 registers)', vec=4),
    Instr('st.scratch.v4', 0x10f, 'stx', [MEMA32, SD], ['u32'],
          'private store of 4 consecutive u32', vec=4),
    Instr('fence.wg', 0x110, 'fence', [], [],
          'memory fence, work-group scope (orders this sub-group\'s global and local accesses '
          'for the work-group)'),
    Instr('fence.dev', 0x111, 'fence', [], [],
          'memory fence, device scope (sequentially consistent for every other work-group '
          'and queue)'),
    Instr('fence.sg', 0x112, 'fence', [], [],
          'memory fence / barrier, sub-group scope (a sub-group executes in lockstep: '
          'orders nothing more)'),
]
BLK_T = ['u8', 'u16', 'u32', 'u64']
for _k, _n in enumerate([1, 2, 4, 8]):
    _sfx = '' if _n == 1 else str(_n)
    INSTRS += [
        Instr('ld.block' + _sfx, 0x118 + _k, 'ldx', [D, MEMA64], BLK_T,
              'sub-group block read of %d element%s per lane: element i of lane l is at '
              'base + (i * simd + l) * size, base = a + imm of the first active lane '
              '(intel_sub_group_block_read%s); element i goes to register d + i '
              '(pair d + 2i for u64); inactive lanes do not access memory'
              % (_n, 's' if _n > 1 else '', _sfx), vec=_n),
        Instr('st.block' + _sfx, 0x11c + _k, 'stx', [MEMA64, SD], BLK_T,
              'sub-group block write of %d element%s per lane (same layout)'
              % (_n, 's' if _n > 1 else ''), vec=_n),
    ]
IMG_T = ['u8', 'u16', 'u32']
for _k, _n in enumerate([1, 2, 4, 8]):
    _sfx = '' if _n == 1 else str(_n)
    INSTRS += [
        Instr('ld.img' + _sfx, 0x120 + _k, 'ldx',
              [D, ('a', 'addr', 'u64'), ('b', 'src', 'u64')], IMG_T,
              '2D image block read of %d row%s: a = VA of an image descriptor (first active '
              'lane), b = byte x (rB) and row y (rB+1), s32, of the first active lane; element '
              'i of lane l is the T at byte x + l * size of row y + i; an element not entirely '
              'inside the image reads the edge element: x clamped to [0, width - size], y to '
              '[0, height - 1] (0 when the image is narrower than T)'
              % (_n, 's' if _n > 1 else ''), vec=_n),
        Instr('st.img' + _sfx, 0x124 + _k, 'stx',
              [('a', 'addr', 'u64'), ('b', 'src', 'u64'), SD], IMG_T,
              '2D image block write of %d row%s (same layout); elements outside the image '
              'are dropped' % (_n, 's' if _n > 1 else ''), vec=_n),
    ]

AT = ['u32', 's32', 'u64', 's64']
ATOM_OPS = [('add', 'old + b'), ('sub', 'old - b'), ('min', 'min(old, b) (signed for s types)'),
            ('max', 'max(old, b)'), ('and', 'old & b'), ('or', 'old | b'),
            ('xor', 'old ^ b'), ('xchg', 'b'), ('cmpxchg', 'old == b ? c : old'),
            ('inc', 'old + 1'), ('dec', 'old - 1')]
for _sp, _base, _at in (('global', 0x140, 'u64'), ('local', 0x160, 'u32')):
    for _k, (_op, _new) in enumerate(ATOM_OPS):
        _ops = [D, ('a', 'addr', _at)]
        if _op not in ('inc', 'dec'):
            _ops.append(B)
        if _op == 'cmpxchg':
            _ops.append(C)
        INSTRS.append(Instr(
            'atom.%s.%s' % (_sp, _op), _base + _k, 'atom', _ops, AT,
            'atomically, per active lane in lane order: old = %s memory at a; memory = %s; '
            'd = old.  Sequentially consistent; a must be aligned to the size of T '
            '(else WEFT_QERR_BAD_ACCESS)' % ('global' if _sp == 'global' else 'SLM', _new)))

# Float atomics (cl_ext_float_atomics): 0x14b.. global, 0x16b.. local.
for _sp, _base, _at in (('global', 0x14b, 'u64'), ('local', 0x16b, 'u32')):
    for _k, (_op, _new) in enumerate([('fadd', 'old + b (rounded to nearest even)'),
                                      ('fmin', 'IEEE minNum(old, b)'),
                                      ('fmax', 'IEEE maxNum(old, b)')]):
        INSTRS.append(Instr(
            'atom.%s.%s' % (_sp, _op), _base + _k, 'atom', [D, ('a', 'addr', _at), B],
            ['f32', 'f64'],
            'atomically, per active lane in lane order: old = %s memory at a; memory = %s; '
            'd = old.  Sequentially consistent; a must be aligned to the size of T'
            % ('global' if _sp == 'global' else 'SLM', _new)))

FA = ('a', 'src', 'T')
INSTRS += [
    Instr('fadd', 0x060, 'alu', [D, FA, BI], FLOAT, 'd = a + b (IEEE, round to nearest even)', 'a + b'),
    Instr('fsub', 0x061, 'alu', [D, FA, BI], FLOAT, 'd = a - b', 'a - b'),
    Instr('fmul', 0x062, 'alu', [D, FA, BI], FLOAT, 'd = a * b', 'a * b'),
    Instr('ffma', 0x063, 'alu', [D, FA, B, C], FLOAT,
          'd = a * b + c with a single rounding',
          'weft_fma_T(a, b, c)'),
    Instr('fdiv', 0x064, 'alu', [D, FA, BI], FLOAT, 'd = a / b, correctly rounded', 'a / b'),
    Instr('fsqrt', 0x065, 'alu', [D, FA], FLOAT, 'd = sqrt(a), correctly rounded',
          'weft_sqrt_T(a)'),
    Instr('fmin', 0x066, 'alu', [D, FA, BI], FLOAT,
          'd = IEEE minNum(a, b): a NaN operand gives the other; -0 < +0', 'weft_fmin_T(a, b)'),
    Instr('fmax', 0x067, 'alu', [D, FA, BI], FLOAT,
          'd = IEEE maxNum(a, b); -0 < +0', 'weft_fmax_T(a, b)'),
    Instr('fneg', 0x068, 'alu', [D, FA], FLOAT, 'd = -a (flips the sign bit, NaN too)', 'weft_fneg_T(a)'),
    Instr('fabs', 0x069, 'alu', [D, FA], FLOAT, 'd = |a| (clears the sign bit)', 'weft_fabs_T(a)'),
    Instr('ffloor', 0x06a, 'alu', [D, FA], FLOAT, 'd = a rounded toward -inf', 'weft_floor_T(a)'),
    Instr('fceil', 0x06b, 'alu', [D, FA], FLOAT, 'd = a rounded toward +inf', 'weft_ceil_T(a)'),
    Instr('ftrunc', 0x06c, 'alu', [D, FA], FLOAT, 'd = a rounded toward zero', 'weft_trunc_T(a)'),
    Instr('frint', 0x06d, 'alu', [D, FA], FLOAT, 'd = a rounded to nearest even integer',
          'weft_rint_T(a)'),
    Instr('frcp', 0x06e, 'alu', [D, FA], FLOAT, 'd = 1 / a, correctly rounded',
          'weft_rcp_T(a)'),
    Instr('frsqrt', 0x06f, 'alu', [D, FA], FLOAT,
          'd = 1 / sqrt(a): f16/f32 correctly rounded from an f64 computation, f64 within 1 ulp',
          'weft_rsqrt_T(a)'),
    Instr('fexp2', 0x070, 'alu', [D, FA], FLOAT,
          'd = 2^a: f16/f32 rounded from an f64 computation (<= 1 ulp), f64 <= 1 ulp',
          'weft_exp2_T(a)'),
    Instr('flog2', 0x071, 'alu', [D, FA], FLOAT, 'd = log2(a) (same precision as fexp2)',
          'weft_log2_T(a)'),
    Instr('fsin', 0x072, 'alu', [D, FA], FLOAT,
          'd = sin(a) (radians; full range reduction; same precision as fexp2)', 'weft_sin_T(a)'),
    Instr('fcos', 0x073, 'alu', [D, FA], FLOAT, 'd = cos(a)', 'weft_cos_T(a)'),
    Instr('fcopysign', 0x074, 'alu', [D, FA, B], FLOAT, 'd = |a| with the sign of b',
          'weft_copysign_T(a, b)'),
]
FCMP = [('eq', 'a == b', 'ordered equal'), ('ne', '!(a != a) && !(b != b) && a != b', 'ordered not equal'),
        ('lt', 'a < b', 'ordered less'), ('le', 'a <= b', 'ordered less or equal'),
        ('gt', 'a > b', 'ordered greater'), ('ge', 'a >= b', 'ordered greater or equal'),
        ('equ', '!(a < b) && !(a > b)', 'unordered or equal'), ('neu', 'a != b', 'unordered or not equal'),
        ('ltu', '!(a >= b)', 'unordered or less'), ('leu', '!(a > b)', 'unordered or less or equal'),
        ('gtu', '!(a <= b)', 'unordered or greater'), ('geu', '!(a < b)', 'unordered or greater or equal'),
        ('ord', 'a == a && b == b', 'neither is NaN'), ('unord', 'a != a || b != b', 'either is NaN')]
for _k, (_n, _e, _w) in enumerate(FCMP):
    INSTRS.append(Instr('fset.' + _n, 0x080 + _k, 'alu', [D32, FA, BI], FLOAT,
                        'd = 0xffffffff if %s, else 0 (a lane mask)' % _w,
                        '(%s) ? 0xffffffffu : 0u' % _e))
for _k, _rm in enumerate(['rte', 'rtz', 'rtp', 'rtn']):
    for _s, _sat in ((0, ''), (4, '.sat')):
        INSTRS.append(Instr(
            'cvt.%s%s' % (_rm, _sat), 0x0a0 + _k + _s, 'cvtf', [D, ('a', 'src', 'T2')], NUM,
            'd = a converted from t2 to t, rounding %s%s.  Float to integer: NaN gives 0 and '
            'out-of-range values clamp to the integer range (with or without .sat).  '
            'Integer to integer: %s.  Float to float and integer to float: rounded by the '
            'mode (overflow gives inf or the largest finite value as the mode says)'
            % ({'rte': 'to nearest even', 'rtz': 'toward zero', 'rtp': 'toward +inf',
                'rtn': 'toward -inf'}[_rm], ', saturating' if _sat else '',
               'clamped to the destination range' if _sat else 'truncated like cvt'),
            types2=NUM))

# Opcode ranges reserved for the full ISA, so that later additions extend
# the table without moving anything (documented in isa.rst).
RESERVED_RANGES = [
    (0x000, 0x000, 'never defined: zeroed memory is an undefined instruction'),
    (0x012, 0x01f, 'moves and conversions'),
    (0x075, 0x07f, 'float ALU: more transcendentals and helpers'),
    (0x08e, 0x09f, 'float compares and classification'),
    (0x0a8, 0x0bf, 'conversions and packing'),
    (0x0c7, 0x0c7, 'cross-lane'),
    (0x0cc, 0x0cf, 'cross-lane: votes'),
    (0x0e8, 0x0ff, 'cross-lane: clustered reductions'),
    (0x113, 0x117, 'memory: fences and cache control'),
    (0x128, 0x13f, 'memory: more block and image forms'),
    (0x14e, 0x15f, 'atomics: global (load, store, more float forms)'),
    (0x16e, 0x17f, 'atomics: local'),
]


def check():
    seen = {}
    for i in INSTRS:
        assert i.opcode < (1 << FIELDS['op'][1]), i.name
        assert i.opcode not in seen, (i.name, seen.get(i.opcode))
        seen[i.opcode] = i.name
        for t in i.types + i.types2:
            assert t in TYPES, (i.name, t)
    for lo, hi, what in RESERVED_RANGES:
        for op in range(lo, hi + 1):
            assert op not in seen, ('reserved opcode in use', hex(op), seen.get(op))
    names = [s[0] for s in SREGS]
    assert len(set(names)) == len(names)
    return True
