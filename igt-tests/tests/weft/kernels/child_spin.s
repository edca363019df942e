	# A child that never ends: it branches to itself.
	bra .+0
	end
