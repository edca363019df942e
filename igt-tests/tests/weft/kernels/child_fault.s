	# A child that faults: it stores to the address its argument buffer
	# holds (unmapped).
	s2r.u64 r0, sr.args
	ld.global.u64 r2, [r0+0]
	s2r.u32 r4, sr.lane_id
	st.global.u32 [r2+0], r4
	end
