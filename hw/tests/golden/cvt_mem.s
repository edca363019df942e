# Conversions, special registers, loads and stores.
	cvt.u64.u32 r2, r1
	cvt.s64.s32 r2, r1
	cvt.u32.u64 r1, r2
	cvt.s8.u32 r1, r2
	cvt.u16.s64 r1, r2
	s2r.u32 r1, sr.local_id.z
	s2r.u32 r1, sr.local_linear_id
	s2r.u32 r1, sr.num_groups.y
	s2r.u64 r2, sr.global_id.x
	s2r.u64 r2, sr.args
	ld.global.u8 r1, [r2+0]
	ld.global.s8 r1, [r2+1]
	ld.global.u16 r1, [r2-2]
	ld.global.s16 r1, [r2+2147483647]
	ld.global.u32 r1, [r2-2147483648]
	ld.global.s64 r4, [r2+8]
	st.global.u8 [r2+0], r1
	st.global.s16 [r2-2], r1
	st.global.u32 [r254+4096], r255
	st.global.u64 [r2+8], r4
	.dword 0x0000000000000000
	end
