# SPDX-License-Identifier: Apache-2.0
# Front door: `make` builds, `make test` runs every test, `make demo` runs the
# main job, `make bench` measures.  The real build is CMake in $(BUILD).
#   BLST_DIR=/path/to/blst   build against a local blst checkout
#   SANITIZE=address,undefined   build and test under sanitizers
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
SANITIZE ?=
ifneq ($(SANITIZE),)
BUILD := build-san
CMAKE_EXTRA := -DPL_SANITIZE=$(SANITIZE) -DCMAKE_BUILD_TYPE=RelWithDebInfo
endif
export BLST_DIR

.PHONY: all build deps npm-deps test demo bench clean

all: build

deps:
	@sh scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_EXTRA)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

npm-deps:
	@sh scripts/npm_deps.sh

test: deps npm-deps build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

demo: deps build
	@sh scripts/demo.sh $(BUILD)/proofline

bench: deps npm-deps build
	@sh bench/run.sh $(BUILD)

clean:
	rm -rf build build-san
