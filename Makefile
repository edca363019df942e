# SPDX-License-Identifier: MIT
#
# The Weft entry point. `make` builds everything on the host; `make check`
# runs every test tier (host, then the VM) and ends with the line
# "N passed, M failed"; `make demo` runs the demo on the Weft GPU in the VM.
# scripts/setup-host installs what these need (README.md).

BUILD ?= $(CURDIR)/build
# Expensive, reusable build products live outside the clone, keyed by inputs.
WEFT_CACHE ?= $(HOME)/.cache/weft
KVER ?= $(shell scripts/guest-kernel-version)
KDIR ?= /lib/modules/$(KVER)/build

export CCACHE_DIR ?= $(WEFT_CACHE)/ccache
CC := $(shell command -v ccache >/dev/null && echo "ccache gcc" || echo gcc)
export CC

WEFT_ASM := $(BUILD)/hw/weft-asm


# The kselftests build in a tree laid out as the kernel's (its lib.mk and
# harness headers come from Debian's linux-source-6.12 tarball).
LINUX_SOURCE ?= /usr/src/linux-source-6.12.tar.xz
KSELFTEST_TREE := $(BUILD)/kselftest/linux
KSELFTEST_WEFT := tools/testing/selftests/drivers/gpu/weft

.PHONY: all hw module igt kselftest tools bench bench-build mesa cl check check-host check-vm demo \
	install uninstall clean

all: hw module igt kselftest tools bench-build mesa cl

hw:
	$(MAKE) -C hw BUILD=$(BUILD)/hw

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) CC="$(CC)" modules

igt: hw
	$(MAKE) -C igt-tests BUILD=$(BUILD)/igt WEFT_ASM=$(WEFT_ASM) HWBUILD=$(BUILD)/hw

kselftest:
	sh scripts/kselftest-tree $(LINUX_SOURCE) $(KSELFTEST_TREE)
	$(MAKE) -C $(KSELFTEST_TREE)/$(KSELFTEST_WEFT) OUTPUT=$(BUILD)/kselftest

tools: hw
	$(MAKE) -C tools BUILD=$(BUILD)/tools WEFT_ASM=$(WEFT_ASM) LIBWEFT=$(BUILD)/libweft \
		HWBUILD=$(BUILD)/hw

# After tools: both link the one libweft in $(BUILD)/libweft.
bench-build: tools
	$(MAKE) -C bench BUILD=$(BUILD)/bench LIBWEFT=$(BUILD)/libweft HWBUILD=$(BUILD)/hw

# Benchmarks (never timed tests), each against PoCL in the same run (README.md,
# "Benchmarks"): the hardware's roofline (hand-written ISA on the device model
# in-process), then OpenCL C through Rusticl and the weft compiler, with its plot,
# then clpeak on both devices (each test bounded in time), then device-side
# enqueue's child launch and children/s (Weft alone: no peer here has it).
bench: bench-build mesa
	$(BUILD)/bench/builtins
	BUILD=$(BUILD) bench/run-opencl --plot $(BUILD)/bench/opencl.png
	BUILD=$(BUILD) bench/run-clpeak
	BUILD=$(BUILD) bench/run-enqueue-opencl

# Mesa with Rusticl and the weft driver, cached in $(WEFT_CACHE) by the
# hash of its inputs (ISA, uAPI, libweft and the model among them).
mesa: hw
	mkdir -p $(BUILD)
	WEFT_CACHE=$(WEFT_CACHE) sh scripts/build-mesa --prefix-file $(BUILD)/mesa-prefix

cl: mesa
	$(MAKE) -C userspace/cl BUILD=$(BUILD)/cl
	$(MAKE) -C tests/conformance BUILD=$(BUILD)/conformance

check: all
	BUILD=$(BUILD) tests/run-all

check-host: all
	BUILD=$(BUILD) tests/run-all --host-only

check-vm: all
	BUILD=$(BUILD) tests/run-all --vm-only

demo: all
	tools/weft-vm --timeout 600 -- tools/demo-in-guest $(BUILD) "$$(cat $(BUILD)/mesa-prefix)"

# weft.ko through DKMS, Mesa's Rusticl with the weft driver and its ICD file,
# libweft with its pkg-config file (scripts/weft-install; README.md,
# "Installing"). DESTDIR stages the same tree an install on this machine leaves.
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
VENDORSDIR ?= /etc/OpenCL/vendors
INSTALL_ENV = DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" LIBDIR="$(LIBDIR)" \
	INCLUDEDIR="$(INCLUDEDIR)" VENDORSDIR="$(VENDORSDIR)" KVER="$(KVER)"

install: mesa
	$(MAKE) -C userspace/libweft BUILD=$(BUILD)/libweft
	$(INSTALL_ENV) MESA_PREFIX="$$(cat $(BUILD)/mesa-prefix)" LIBWEFT_BUILD=$(BUILD)/libweft \
		sh scripts/weft-install install

uninstall:
	$(INSTALL_ENV) sh scripts/weft-install uninstall

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
