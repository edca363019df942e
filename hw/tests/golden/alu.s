# Integer ALU, register and immediate forms, every type.
	mov.u32 r1, 0
	mov.s32 r1, -1
	mov.u64 r2, 0xffffffff
	mov.s64 r2, -2147483648
	mov.u32 r3, r255
	add.u32 r1, r2, r3
	add.s64 r4, r6, 100
	sub.u64 r254, r252, r250
	mul.s32 r9, r9, -7
	mul_hi.u64 r10, r12, r14
	div.s32 r1, r2, 0
	rem.u32 r1, r2, 0x10000
	mad.s64 r16, r18, r20, r22
	and.u32 r1, r2, 0xff00ff00
	or.s32 r1, r2, r3
	xor.u64 r0, r0, 1
	not.u32 r1, r2
	neg.s64 r2, r4
	abs.s32 r5, r5
	shl.u64 r10, r10, 63
	shr.u32 r1, r1, 32
	sar.s64 r2, r2, r7
	popc.u32 r1, r2
	clz.u64 r2, r4
	ctz.s32 r1, r1
	min.s32 r1, r2, -1
	max.u64 r2, r4, r6
	set.eq.u32 r1, r2, 7
	set.ne.s64 r1, r2, r4
	set.lt.s32 r1, r2, r3
	set.le.u64 r1, r2, 0
	set.gt.s32 r1, r2, -3
	set.ge.u32 r1, r2, r3
	sel.u64 r2, r4, r6, r9
	mov.u64 r2, 0x0000000123456789
	mov.s64 r2, 0x00000000ffffffff
	add.s64 r4, r4, 0xfffffffed5fa0e00
	and.u64 r4, r4, 0xffffffff00000000
	add_sat.s32 r1, r2, r3
	sub_sat.u64 r2, r4, 1
	hadd.s64 r2, r4, r6
	rhadd.u32 r1, r2, 0xffffffff
	abs_diff.s32 r1, r2, r3
	brev.u64 r2, r4
	bfe.s32 r1, r2, r3, r4
	bfe.u64 r2, r4, r6, r7
	rotl.u32 r1, r2, 31
	rotr.s64 r2, r4, r9
	nop
	end
