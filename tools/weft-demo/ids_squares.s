# The demo's kernel. Argument buffer: one u64, the output VA. Work-item i
# writes four dwords at out + i * 16: i * i, its work-group, its sub-group
# and its lane in the sub-group.
	s2r.u64 r0, sr.args
	ld.global.u64 r2, [r0+0]
	s2r.u32 r4, sr.global_id.x
	mul.u32 r5, r4, r4
	s2r.u32 r6, sr.group_id.x
	s2r.u32 r7, sr.subgroup_id
	s2r.u32 r8, sr.lane_id
	cvt.u64.u32 r10, r4
	shl.u64 r10, r10, 4
	add.u64 r10, r2, r10
	st.global.u32 [r10+0], r5
	st.global.u32 [r10+4], r6
	st.global.u32 [r10+8], r7
	st.global.u32 [r10+12], r8
	end
