#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every host test of hw/ (called by `make -C hw check`); prints the
# output of each and a final "N passed, M failed" over all of them.
# Environment: BUILD (build dir), SRC (hw/), TOP (repository), PYTHON.
set -u
: "${PYTHON:=python3}"
passed=0
failed=0
tmp=$(mktemp -d /tmp/weft-hw-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# A binary test prints "N passed, M failed" last.  The binary tests run
# side by side, as many at once as there are CPUs (each uses one, and
# together they are most of this suite's time): bin_test queues one,
# longest first; run_bin_tests runs the queue, says on stderr as each one
# ends (the suite would be silent for minutes otherwise), then prints the
# output of each in the order queued and adds its counts.
# `bin_test --shards N cmd...` queues N processes of one test program, the
# Kth with WEFT_TEST_SHARD=K/N (hw/tests/harness.h): between them they run
# each of its tests, or each case of a test that h_run_cases shares out.
# Their tests count by name: once each, failed if any shard failed it.
queued=0
bin_test() {
	shards=1
	if [ "$1" = --shards ]; then
		shards=$2
		shift 2
	fi
	first=$((queued + 1))
	for k in $(seq 1 "$shards"); do
		queued=$((queued + 1))
		{
			[ "$shards" -eq 1 ] || printf "env WEFT_TEST_SHARD=%s/%s " "$k" "$shards"
			for arg in "$@"; do
				printf "'%s' " "$(printf '%s' "$arg" | sed "s/'/'\\\\''/g")"
			done
		} >"$tmp/cmd.$queued"
		{
			[ "$shards" -eq 1 ] || printf "shard %s/%s of " "$k" "$shards"
			for arg in "$@"; do
				printf '%s ' "${arg##*/}"
			done
		} >"$tmp/name.$queued"
		[ "$shards" -eq 1 ] || echo "$first $((first + shards - 1))" >"$tmp/group.$queued"
	done
}

# The counts of queue entries $1..$2, the shards of one program, by test name.
add_shard_counts() {
	for k in $(seq "$1" "$2"); do
		cat "$tmp/out.$k"
	done >"$tmp/shards"
	sed -n 's/^ok   //p' "$tmp/shards" | sort -u >"$tmp/shards.ok"
	sed -n 's/^FAIL \(.*\) ([0-9]* failed checks)$/\1/p' "$tmp/shards" | sort -u >"$tmp/shards.fail"
	p=$(comm -23 "$tmp/shards.ok" "$tmp/shards.fail" | wc -l)
	f=$(wc -l <"$tmp/shards.fail")
	echo "    $(sed 's/^shard [0-9]*\/[0-9]* of //' "$tmp/name.$1")in $(($2 - $1 + 1)) shards:" \
	     "$p tests passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
}

run_bin_tests() {
	seq 1 "$queued" | xargs -P "$(nproc)" -I{} sh -c '
		started=$(date +%s)
		WEFT_COVERAGE="$0/coverage.$1" sh "$0/cmd.$1" >"$0/out.$1" 2>&1
		echo $? >"$0/rc.$1"
		echo "hw: finished $(cat "$0/name.$1")($(tail -n 1 "$0/out.$1")) in $(($(date +%s) - started)) s" >&2
		' "$tmp" {}
	for k in $(seq 1 "$queued"); do
		cat "$tmp/out.$k"
		rc=$(cat "$tmp/rc.$k" 2>/dev/null || echo 127)
		last=$(tail -n 1 "$tmp/out.$k")
		p=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
		f=$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
		group=$(cat "$tmp/group.$k" 2>/dev/null)
		if [ -n "$group" ] && [ "$k" -eq "${group#* }" ]; then
			add_shard_counts $group
		fi
		if [ -z "$p" ]; then
			echo "FAIL $(cat "$tmp/cmd.$k")(crashed or no summary, exit $rc)"
			failed=$((failed + 1))
			continue
		fi
		if [ -z "$group" ]; then
			passed=$((passed + p))
			failed=$((failed + f))
		fi
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "FAIL $(cat "$tmp/cmd.$k")(exit $rc)"
			failed=$((failed + 1))
		fi
	done
	rm -f "$tmp"/cmd.* "$tmp"/name.* "$tmp"/out.* "$tmp"/rc.* "$tmp"/group.* "$tmp"/shards*
	queued=0
}

# A shell check: one line, ok or FAIL.
check() {
	name=$1
	shift
	if "$@" >"$tmp/log" 2>&1; then
		echo "ok   $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name"
		sed 's/^/    /' "$tmp/log" | head -20
		failed=$((failed + 1))
	fi
}

# The ALU, execution and model tests record what they checked against C,
# each in a file of its own; test_coverage compares that with the ISA table,
# after all of them.  The ISA tests run again with every dispatch translated
# (execution.rst, "The translator"): the same checks against C must hold
# both ways.  LLVM takes some 12 ms of CPU to translate one of their
# programs (an AVX-512 host; a quarter of test_alu, 1222 translations, in
# 16 s), and these two have thousands: their translated runs take most of
# this suite's CPU time and run in shards, so that no single process is
# the suite's long pole.  test_jit (one process, about 30 s of CPU: its
# last tests count what the earlier ones translated) goes first, so that
# the shards fill the other core beside it instead of leaving it idle at
# the end.
bin_test "$BUILD/tests/test_jit"
bin_test --shards 4 env WEFT_MODEL_JIT=1 "$BUILD/tests/test_exec"
bin_test --shards 4 env WEFT_MODEL_JIT=1 "$BUILD/tests/test_alu"
bin_test "$BUILD/tests/test_exec"
bin_test "$BUILD/tests/test_alu"
bin_test "$BUILD/tests/test_model"
bin_test "$BUILD/tests/test_enqueue"
bin_test "$BUILD/tests/test_server" "$BUILD/weft-model-server"
bin_test "$BUILD/tests/test_isa" "$SRC/tests/golden"
run_bin_tests
cat "$tmp"/coverage.* >"$tmp/coverage" 2>/dev/null
bin_test "$BUILD/tests/test_coverage" "$tmp/coverage"
run_bin_tests

check "docs: Documentation/gpu/weft/isa.rst is up to date with the ISA table" \
	"$PYTHON" "$SRC/isa/weft_isa_gen.py" --check-rst "$TOP/Documentation/gpu/weft/isa.rst"
check "contract: the driver's headers, registers.rst, commands.rst and mmu.rst match hw/regs" \
	"$PYTHON" "$SRC/regs/weft_regs_gen.py" --check "$TOP"
stale_copy_fails() {
	rm -rf "$tmp/top" && mkdir -p "$tmp/top" &&
	cp -r "$TOP/drivers" "$TOP/Documentation" "$tmp/top/" &&
	sed -i 's/WEFT_CMD_BATCH_LEN\t*4/WEFT_CMD_BATCH_LEN\t5/' \
		"$tmp/top/drivers/gpu/drm/weft/weft_cs_regs.h" &&
	! "$PYTHON" "$SRC/regs/weft_regs_gen.py" --check "$tmp/top" 2>/dev/null
}
check "contract: a stale copy of a generated header fails the check" stale_copy_fails

tools_roundtrip() {
	for s in "$SRC"/tests/golden/*.s; do
		n=$(basename "$s" .s)
		"$BUILD/weft-asm" "$s" -o "$tmp/$n.bin" || return 1
		od -An -tx8 -w8 -v "$tmp/$n.bin" | tr -d ' ' | cmp - "$SRC/tests/golden/$n.hex" || return 1
		# (exit status 1 when the corpus holds deliberate .dword words)
		"$BUILD/weft-dis" "$tmp/$n.bin" >"$tmp/$n.dis"
		[ -s "$tmp/$n.dis" ] || return 1
		"$BUILD/weft-asm" "$tmp/$n.dis" -o "$tmp/$n.bin2" || return 1
		cmp "$tmp/$n.bin" "$tmp/$n.bin2" || return 1
	done
}
check "tools: weft-asm/weft-dis on the golden corpus (text -> bytes -> text -> bytes)" tools_roundtrip

c_array() {
	"$BUILD/weft-asm" --c-array weft_kernel "$SRC/tests/golden/igt_dispatch.s" -o "$tmp/k.h" &&
	printf '#include <stddef.h>\n#include "k.h"\nint main(void) { return !(weft_kernel_size == 14 * 8 && weft_kernel[0] == 0x%s); }\n' \
		"$(head -n 1 "$SRC/tests/golden/igt_dispatch.hex" | cut -c9-16)" >"$tmp/k.c" &&
	${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$tmp" "$tmp/k.c" -o "$tmp/k" && "$tmp/k"
}
check "tools: weft-asm --c-array header compiles and holds the words" c_array

asm_error() {
	printf 'end\n\tadd.u64 r1, r2, r3\n' >"$tmp/bad.s"
	if "$BUILD/weft-asm" "$tmp/bad.s" -o "$tmp/bad.bin" 2>"$tmp/err"; then return 1; fi
	grep -q "bad.s:2: 'r1': a 64-bit operand needs an even register pair" "$tmp/err"
}
check "tools: weft-asm errors name file:line and exit nonzero" asm_error

dis_bad() {
	printf '\001\001\000\000\000\000\000\000' >"$tmp/bad.bin"
	if "$BUILD/weft-dis" "$tmp/bad.bin" >"$tmp/out"; then return 1; fi
	grep -q '.dword 0x0000000000000101' "$tmp/out"
}
check "tools: weft-dis prints undecodable words as .dword and exits nonzero" dis_bad

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
