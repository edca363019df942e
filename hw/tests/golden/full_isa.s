# Control flow, cross-lane, memory spaces, atomics, float ALU, conversions
# (canonical text: branch targets as byte offsets from the instruction).
	set.lt.u32 r1, r2, 10
	if r1, .+24
	add.u32 r3, r3, 1
	else .+16
	sub.u32 r3, r3, 1
	endif
	loop .+40
	set.ge.u32 r4, r3, 8
	break r4
	cont r5
	add.u32 r3, r3, 1
	endloop
	bra .+8
	bra.any r1, .-104
	bra.all r1, .+0
	bra.none r1, .-8
	bar
	fence.wg
	fence.dev
	fence.sg
	shfl.idx.u32 r10, r11, r12
	shfl.xor.f64 r10, r12, 1
	shfl.up.s8 r10, r11, 1
	shfl.down.u64 r10, r12, r14
	shfl.up2.u32 r10, r11, r13, r12
	shfl.down2.f16 r10, r11, r13, r12
	bcast.s64 r10, r12, 0
	vote.any r1, r2
	vote.all r1, r2
	ballot r1, r2
	vote.eq.f32 r1, r2
	red.add.f32 r1, r2
	red.min.s16 r1, r2
	iscan.add.u64 r2, r4
	escan.max.f64 r2, r4
	iscan.xor.u8 r1, r2
	escan.mul.s32 r1, r2
	ld.local.u32 r1, [r2+16]
	st.local.u8 [r2-1], r1
	ld.local.v4.u32 r4, [r2+0]
	st.local.v2.u64 [r2+8], r4
	ld.global.v2.u32 r4, [r6+0]
	st.global.v4.u64 [r6+32], r8
	ld.scratch.s16 r1, [r2+4]
	st.scratch.u64 [r2+8], r4
	ld.scratch.v4.u32 r8, [r2+0]
	st.scratch.v4.u32 [r2+0], r8
	ld.block.u32 r100, [r2+0]
	ld.block8.u16 r100, [r2+64]
	st.block4.u64 [r2+0], r100
	ld.img4.u32 r100, [r2], r4
	st.img8.u8 [r2], r4, r100
	atom.global.add.u32 r1, [r2], r3
	atom.global.cmpxchg.s64 r4, [r2], r6, r8
	atom.global.inc.u64 r4, [r2]
	atom.local.max.s32 r1, [r2], r3
	atom.local.xchg.u64 r4, [r2], r6
	atom.global.fadd.f32 r1, [r2], r3
	atom.local.fmax.f64 r4, [r2], r6
	fadd.f32 r1, r2, 0x3f800000
	fmul.f64 r2, r4, 0x4000000000000000
	fsub.f64 r2, r4, 0x3fb999999999999a
	ffma.f16 r1, r2, r3, r4
	fdiv.f32 r1, r2, r3
	fsqrt.f64 r2, r4
	fmin.f32 r1, r2, r3
	fexp2.f32 r1, r2
	fsin.f16 r1, r2
	fset.ltu.f64 r1, r2, r4
	fset.ord.f32 r1, r2, 0x7fc00000
	mov.f32 r1, 0x3f800000
	sel.f64 r2, r4, r6, r1
	cvt.rte.f32.s32 r1, r2
	cvt.rtz.s32.f64 r1, r2
	cvt.rtp.sat.u8.f32 r1, r2
	cvt.rtn.f16.f64 r1, r2
	cvt.rte.sat.s8.s64 r1, r2
	add.u8 r1, r2, 255
	mul_hi.s16 r1, r2, r3
	shl.u16 r1, r2, 17
	bra .-2147483648
	bra.any r1, .+2147483640
	end
