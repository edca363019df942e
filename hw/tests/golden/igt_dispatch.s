# The kernel of the IGT dispatch test: each work-item writes
# global_id.x, group_id.x, subgroup_id, lane_id at out + global_id.x * 16.
	s2r.u64 r0, sr.args
	ld.global.u64 r2, [r0+0]
	s2r.u32 r4, sr.global_id.x
	s2r.u32 r5, sr.group_id.x
	s2r.u32 r6, sr.subgroup_id
	s2r.u32 r7, sr.lane_id
	cvt.u64.u32 r10, r4
	shl.u64 r10, r10, 4
	add.u64 r10, r2, r10
	st.global.u32 [r10+0], r4
	st.global.u32 [r10+4], r5
	st.global.u32 [r10+8], r6
	st.global.u32 [r10+12], r7
	end
