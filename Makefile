# cwx build, test and demo entry points. `make demo` and `make test` are the two set-up commands.
include .ci/tool-versions.env

TOOLS      := $(CURDIR)/.tools/bin
GO         ?= go
CWX        := $(CURDIR)/bin/cwx
JSHOST     := nodeshim/jshost
FUZZTIME   ?= 60s
FUZZMINIMIZE ?= 200x
export CWX_TEST_NODE := $(TOOLS)/node
export CWX_TEST_BUN  := $(TOOLS)/bun
export PATH := $(TOOLS):$(PATH)

.PHONY: all tools build dsh-census test test-go test-js lint fmt-check vet staticcheck lockcheck deptest doccheck deadcode builtin-table demo mcp-client mcp-servers fuzz soak soak-short bench clean dist-check

all: build

tools: ## install pinned Node, Bun, staticcheck and deadcode into .tools/bin, and bubblewrap (apt, as root) when missing
	@.ci/install-tools

build: ## build bin/cwx
	$(GO) build -o $(CWX) .

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet: ## go vet for linux (tested) and darwin arm64/amd64 (built and vetted only)
	$(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOOS=darwin GOARCH=amd64 $(GO) vet ./...

staticcheck: tools
	$(TOOLS)/staticcheck ./...

lockcheck: ## the lock annotations (// +checklocks:mu) hold, and every …Locked helper has one
	$(GO) run ./core/internal/lockcheck/cmd/lockcheck ./...

# The packages deadcode reports on: every package of the module but the test-support ones, which
# exist for other packages' tests (a test is no root of deadcode's -test=false graph, so all of
# their functions would be reported). deadcode's -filter takes a regexp of the packages to report,
# so it is built from `go list` minus that list, and a new package is reported on by default.
DEADCODE_TEST_SUPPORT := \
	github.com/cwx-dev/cwx/shared/testenv github.com/cwx-dev/cwx/core/internal/deptest \
	github.com/cwx-dev/cwx/core/internal/lockcheck github.com/cwx-dev/cwx/core/plugins/plugintest \
	github.com/cwx-dev/cwx/core/seccomp/seccomptest github.com/cwx-dev/cwx/core/seccomp/internal/abi \
	github.com/cwx-dev/cwx/core/internal/mcptest

deadcode: tools ## no function unreachable from main (x/tools' deadcode -test=false); any report fails
	@filter="^($$($(GO) list ./... | grep -vxF $(foreach p,$(DEADCODE_TEST_SUPPORT),-e $(p)) | sed 's/[.]/\\./g' | paste -sd'|'))$$"; \
	out=$$($(TOOLS)/deadcode -test=false -filter "$$filter" ./...) || exit 1; \
	if [ -n "$$out" ]; then echo "deadcode: unreachable functions (delete them, or move test-only helpers into the _test.go files that use them):"; echo "$$out"; exit 1; fi

deptest: ## the import rules between core, shared and nodeshim
	$(GO) test -count=1 ./core/internal/deptest

doccheck: ## every citation of a document's heading or a doc.go resolves; no document but CHANGELOG.md names an issue
	$(GO) test -count=1 ./core/internal/doccheck

builtin-table: ## print the Go rows of core/bundle's pinned builtin-module table for the built JS host (paste them by hand)
	@$(GO) test -count=1 -run '^TestPinnedTableMatchesTheHost$$' -v ./core/bundle -args -print-table | grep -o '{ID: .*},$$' | sed 's/^/\t/'

# The DSH census (testdata/dsh-census/README.md). With DSH_SOURCES naming where each copy of the
# DSH monorepo that testdata/dsh-census/sources.json lists is on disk ('owner/name=PATH ...', a git
# directory, or a folder of the single files it lists), census.mjs first rebuilds census.json and
# the fixtures from them; the census test then runs every fixture on Node and Bun and rewrites
# README.md from the outcomes.
dsh-census: tools
	@[ -f $(JSHOST)/node_modules/esbuild/package.json ] || (cd $(JSHOST) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
	@if [ -n "$(DSH_SOURCES)" ]; then node testdata/dsh-census/census.mjs $(foreach s,$(DSH_SOURCES),--src $(s)); fi
	CWX_UPDATE_GOLDEN=1 $(GO) test -count=1 -run '^TestDSHCensus$$' ./core/cli

lint: fmt-check vet staticcheck lockcheck deptest doccheck deadcode

# The CLI's end-to-end tests take most of ten minutes under -race on two cores, go test's
# default per-package timeout: a loaded machine must not turn that into a failure.
test-go: tools mcp-client mcp-servers
	$(GO) test -race -count=1 -timeout 30m ./...

test-js: tools
	@if [ -x .ci/jshost-test ]; then .ci/jshost-test; fi

# The soak (core/soak_test.go): a custom test flag, so it follows the package on the command line.
soak-short: tools
	$(GO) test -race -count=1 -run '^TestSoak$$' -v ./core -soak=60s

soak: tools ## the fault-injection soak for 5 minutes on Node and then on Bun (SOAK to change)
	$(GO) test -count=1 -timeout 0 -run '^TestSoak$$' -v ./core -soak=$(or $(SOAK),5m)

test: tools lint test-go soak-short test-js ## gofmt, vet, staticcheck, go test -race, the 60 s soak, JS suites

demo: tools build mcp-client mcp-servers ## the main job
	@.ci/demo

mcp-client: ## the TypeScript MCP SDK client that the serve tests and the demo drive (npm ci, from its lockfile)
	@[ -f testdata/mcp-client/node_modules/@modelcontextprotocol/sdk/package.json ] || \
		(cd testdata/mcp-client && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

mcp-servers: ## the real MCP servers the MCP client tests run (npm ci, from its lockfile: each tarball's sha512 checked)
	@[ -f testdata/mcp-servers/node_modules/@modelcontextprotocol/server-everything/package.json ] && \
	[ -f testdata/mcp-servers/node_modules/@modelcontextprotocol/server-filesystem/package.json ] || \
		(cd testdata/mcp-servers && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)

# Every fuzz target, as package:Target. `make fuzz` runs each for FUZZTIME, one at a time with
# -parallel 1, minimizing a new input for at most FUZZMINIMIZE runs (the installer's target
# spends most of a time-bounded minimization on disk); a finding is written to the package's
# testdata/fuzz/<Target>/ and replays as a regression case in every later go test.
FUZZ_TARGETS := \
	./shared/frame:FuzzFrameDecode ./shared:FuzzCodecFrame \
	./core/protocol:FuzzParseHostMessage ./core/protocol:FuzzParseCoreMessage ./core/protocol:FuzzAttachment ./core/protocol:FuzzWireEncoder \
	./core/runtime:FuzzParseVersion ./core/gate:FuzzCanonicalize ./core/gate:FuzzCanonicalizeMatchesOracle \
	./core/config:FuzzParse ./core/registry:FuzzDecodeInput ./core/registry:FuzzAdmitSchema ./core/registry:FuzzSchemaCost \
	./core:FuzzStripEscapes ./core/inert:FuzzStrip \
	./core/plugins:FuzzParseManifests ./core/plugins:FuzzEntryNames ./core/plugins:FuzzInstallTarball \
	./core/internal/jsontext:FuzzScanNumber ./core/internal/jsontext:FuzzHex4 ./core/internal/jsontext:FuzzHasControl \
	./core/cmdhooks:FuzzParseSettings ./core/cmdhooks:FuzzDecide ./core/cmdhooks:FuzzHookInput ./core/internal/jsjson:FuzzReencode \
	./core/plugins:FuzzDecodeState ./core/plugins:FuzzParseCompat ./core/catalog:FuzzReadEntry ./core/probecache:FuzzLoad \
	./core/natives:FuzzHunks ./core/ccplugin:FuzzParseCommand ./core/ccplugin:FuzzParseManifest ./core/ccplugin:FuzzParseMCP \
	./core/egress:FuzzParseOrigin ./core/npmreg:FuzzParseDocument ./core/marketplace:FuzzParseManifest \
	./core/config:FuzzParseOrigin ./core/content:FuzzCheck ./core/gitscope:FuzzParse ./core/skills:FuzzParse \
	./core/fetchproxy:FuzzParseFetch ./core/mcpclient:FuzzModelName ./core/mcpclient:FuzzAdmit \
	./core/elicit:FuzzParseElicitForm ./core/mcpfile:FuzzDecode ./core/dshbundle:FuzzParsePatches \
	./core/snapshot:FuzzLoadManifest

fuzz: ## each fuzz target for FUZZTIME (default 60s), one at a time
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== $${t#*:} ($${t%%:*}) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) -timeout 0 -parallel 1 "$${t%%:*}"; \
	done

bench: tools build
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
