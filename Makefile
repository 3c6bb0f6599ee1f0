# stdesign: DynamoDB single-table design in PostgreSQL (PGXS build)
#
#   make run     install what a plain build needs, build, install (sudo when
#                not root), then bin/stdesign-local in the foreground: a
#                DynamoDB endpoint on http://localhost:8000 with its data in
#                ./stdesign-local-data, until Ctrl-C; its options go in ARGS:
#                make run ARGS="-port 8001 -inMemory -seed" (stdesign-local -help)
#   make test    install what is missing, build, install, run every test
#   make demo    the same set-up, then the e-commerce tour
#   make deps    install what a plain build and the server need (Debian
#                packages, when missing): PostgreSQL 15 to 18 with its server
#                headers (those of the pg_config in use, else postgresql-15
#                and postgresql-server-dev-15), make, gcc, zlib1g-dev,
#                libssl-dev
#   make test-deps  the same and what the tests, the demo and the benchmarks
#                run: postgresql-contrib, clang, perl and libipc-run-perl,
#                awscli, python3-boto3, curl, node and npm, chromium
#   make         just build (with what make deps installs)
#
# Each builds, installs and tests for the PostgreSQL of the pg_config on
# PATH, or of PG_CONFIG=... (docs/development.md: Versions).

EXTENSION = stdesign
EXTVERSION = $(shell sed -n "s/^default_version = '\\(.*\\)'/\\1/p" stdesign.control)
MODULE_big = stdesign

# The install script of the current version is built from sql/stdesign.sql
# (the version is said once, in stdesign.control); older versions' full
# scripts and every upgrade script (stdesign--A--B.sql) are installed as they
# are, and so are the example data (sql/stdesign_*.sql: stdesign-local -seed
# loads sql/stdesign_seed_ecommerce.sql from there).
DATA_built = sql/$(EXTENSION)--$(EXTVERSION).sql
DATA = $(filter-out $(DATA_built),$(wildcard sql/$(EXTENSION)--*.sql)) $(wildcard sql/$(EXTENSION)_*.sql)

# stdesign-local, the DynamoDB endpoint in one command, goes beside
# PostgreSQL's own programs (pg_config --bindir), where it finds them.
SCRIPTS = bin/stdesign-local

SRCS = $(wildcard src/common/*.c src/item/*.c src/expr/*.c src/catalog/*.c \
	src/storage/*.c src/ops/*.c src/partiql/*.c src/studio/*.c src/api/*.c src/http/*.c src/ttl/*.c src/init/*.c)
OBJS = $(SRCS:.c=.o)
# The project's own headers: internal, never installed (PGXS installs what
# is named HEADERS, so this list has another name).
ST_HEADERS = $(wildcard src/*/*.h)

# pg_regress: sql/*.sql with their expected output in expected/, as
# contrib lays them out; sql/ also holds the extension's own scripts
# (sql/stdesign.sql, sql/stdesign--*.sql) and installed example data
# (sql/stdesign_*.sql), which are not tests.
REGRESS = $(patsubst sql/%.sql,%,$(sort $(filter-out sql/$(EXTENSION).sql sql/$(EXTENSION)--%.sql sql/$(EXTENSION)_%.sql,$(wildcard sql/*.sql))))
REGRESS_OPTS = --load-extension=stdesign

# Concurrency: isolationtester specs in test/isolation/specs with their
# expected output in test/isolation/expected.  PGXS's installcheck runs them
# after REGRESS (results in output_iso/); the later --inputdir wins over the
# one PGXS passes.
ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=stdesign

# TAP tests: test/t/*.pl, each starting clusters of its own with
# PostgreSQL::Test::Cluster (crash recovery, replication, stress, the
# upgrade from older versions).  PGXS's installcheck runs them after the
# isolation specs, against the installed extension; "make prove" runs only
# them (PROVE_TESTS="test/t/001_upgrade.pl" for one).  initdb refuses root:
# make test runs them as the postgres user when started as root.
TAP_TESTS = 1
PROVE_TESTS ?= $(sort $(wildcard test/t/*.pl))

# -Wextra less what Postgres's own headers trigger; warnings are errors in
# make test and CI (WERROR=1), not in a user's plain make.
PG_CPPFLAGS += -I$(CURDIR)/src
PG_CFLAGS += -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-cast-function-type
ifeq ($(WERROR),1)
PG_CFLAGS += -Werror
endif

# The HTTP endpoint: the workers read and write HTTP/1.1 themselves
# (src/http/http_wire.c, http_dispatch.c, an I/O thread each), zlib undoes
# gzip bodies, libcrypto (OpenSSL, libssl-dev, which Postgres is built with)
# hashes for SigV4.
SHLIB_LINK += -lz -lcrypto -pthread

# The PostgreSQL to build for: the pg_config on PATH, or PG_CONFIG=...
# (make test PG_CONFIG=/usr/local/pgsql-18/bin/pg_config); the test scripts
# read it from the environment.
PG_CONFIG ?= pg_config
export PG_CONFIG
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
endif

# One tree, several majors: objects left by a build against another
# PostgreSQL (another pg_config) are removed before this one starts, so
# switching PG_CONFIG never links objects compiled with another major's
# headers.  .pg_built_for names the installation the objects are for.
PG_BUILT_FOR := $(shell $(PG_CONFIG) --version 2>/dev/null) $(shell $(PG_CONFIG) --includedir-server 2>/dev/null)
ifneq ($(PG_BUILT_FOR),$(shell cat .pg_built_for 2>/dev/null))
$(shell rm -f $(OBJS) $(OBJS:.o=.bc) $(EXTENSION).so $(EXTENSION).bc; echo '$(PG_BUILT_FOR)' > .pg_built_for)
endif
EXTRA_CLEAN += .pg_built_for

# The design studio's page (src/studio/page: hand-written HTML, CSS and ES
# modules, no build step), served by the HTTP endpoint at /studio from
# share/extension/stdesign_studio (src/http/http_studio.c).
STUDIO_PAGE = $(wildcard src/studio/page/*.html src/studio/page/*.js src/studio/page/*.css)
STUDIO_DIR = $(datadir)/extension/stdesign_studio

install: install-studio
install-studio:
	$(MKDIR_P) '$(DESTDIR)$(STUDIO_DIR)'
	$(INSTALL_DATA) $(STUDIO_PAGE) '$(DESTDIR)$(STUDIO_DIR)/'

uninstall: uninstall-studio
uninstall-studio:
	rm -rf '$(DESTDIR)$(STUDIO_DIR)'

.PHONY: install-studio uninstall-studio

$(DATA_built): sql/$(EXTENSION).sql stdesign.control
	sed '1s/stdesign\.sql/$(EXTENSION)--$(EXTVERSION).sql/' $< > $@

# Objects and the JIT bitcode PGXS installs with them are rebuilt when a
# header changes.
$(OBJS) $(OBJS:.o=.bc): $(ST_HEADERS)

.PHONY: test demo unit fuzz deps test-deps run bench errors-table package

# Debian packages (idempotent; a no-op when present): deps, what a plain
# build and the server need; test-deps, that and what the tests, the demo
# and the benchmarks run.
deps:
	@bash test/scripts/deps.sh build

test-deps:
	@bash test/scripts/deps.sh test

# A DynamoDB endpoint from this tree: build, install, then stdesign-local
# in the foreground with ARGS (make run ARGS="-port 8001 -inMemory -seed").
# It runs from the tree and finds the PostgreSQL of PG_CONFIG (exported
# above), as the installed one finds its own bindir.
SUDO = $(if $(filter 0,$(shell id -u)),,sudo)
ARGS ?=
run: deps
	$(MAKE) -s -j$(shell nproc 2>/dev/null || echo 2)
	$(SUDO) $(MAKE) -s install PG_CONFIG="$(shell command -v $(PG_CONFIG) 2>/dev/null || echo $(PG_CONFIG))"
	@bash bin/stdesign-local $(ARGS)

unit:
	$(MAKE) -C test/unit

# docs/errors.md's error table, printed from src/common/st_exceptions.h.
errors-table:
	@bash test/scripts/errors_table.sh

# Every shell, SQL and Python block of README.md and docs/*.md against a
# fresh stdesign-local per document (test/scripts/doc_blocks.sh; DOCS=file
# for some of them).
.PHONY: test-docs
test-docs:
	$(MAKE) -s install
	@bash test/scripts/doc_blocks.sh $(DOCS)

fuzz:
	$(MAKE) -C test/fuzz run

# The structure-aware fuzzer of the API (test/fuzz/api_fuzz.py) through
# st_api, st_partiql and the HTTP endpoint, in a cluster of its own, for
# FUZZ_SECONDS (make test runs it for 60 s inside the http layer).
FUZZ_SECONDS ?= 600
.PHONY: fuzz-api
fuzz-api:
	$(MAKE) -s install
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash test/scripts/api_fuzz.sh

.PHONY: prove
prove:
	$(prove_installcheck)

# stdesign on a Citus cluster (coordinator and two workers on this machine):
# test/citus/*.pl, never part of make test; builds Citus from
# ../shared/vendor when it is not installed, skips when neither is there.
# PostgreSQL 18 from its source tarball (../shared/vendor, or PG_TARBALL)
# into a private prefix (/usr/local/pgsql-18, or PG_PREFIX), once per
# machine; prints its pg_config, for make test PG_CONFIG=... (docs/development.md: Versions)
.PHONY: pg18
pg18:
	@bash test/scripts/build_pg.sh

.PHONY: test-citus
test-citus: test-deps
	@bash test/scripts/citus.sh

test: test-deps
	@bash test/scripts/run_tests.sh

demo: test-deps
	@bash test/scripts/run_demo.sh

# The Debian package (debian/, pg_buildext): built for PostgreSQL 15 in a
# copy of the tree, installed with dpkg -i, CREATE EXTENSION from it in a
# throwaway cluster, removed again (needs root; never part of make test).
package:
	@bash test/scripts/package.sh

# Benchmarks (never part of make test): stdesign against hand-written SQL,
# scaling from 10^4 to 10^6 items, backend memory over 10^6 calls, and
# PartiQL against the same operations through st_api.
bench: test-deps
	$(MAKE) -s install
	bash bench/run.sh $(BENCH_ARGS)
	bash bench/scaling.sh
	bash bench/memory.sh
	bash bench/partiql.sh

# stdesign through st_api against a local DynamoDB emulator and hand-written SQL
# (bench/emulator/README.md)
.PHONY: bench-emulator
bench-emulator:
	@bash bench/emulator/run.sh

# stdesign through a Citus coordinator with two workers against one node
# (bench/citus/run.sh; needs Citus installed, as make test-citus leaves it)
.PHONY: bench-citus
bench-citus:
	@bash bench/citus/run.sh $(BENCH_ARGS)

# The HTTP endpoint under wrk against pgbench's st_api and dynalite
# (bench/http/run.sh; needs wrk)
.PHONY: bench-http
bench-http:
	@bash bench/http/run.sh

# pg_regress against a server running under valgrind (never part of make
# test: about five minutes); VALGRIND_TESTS="items bulk" for a few files.
.PHONY: valgrind
valgrind: test-deps
	$(MAKE) -s install
	@bash test/scripts/valgrind_regress.sh $(VALGRIND_TESTS)

# src/api/api_model.c from DynamoDB's API model as botocore ships it (Debian:
# python3-botocore).  The generated file is committed: building stdesign
# never needs botocore, only refreshing the model does.
API_MODEL ?= $(shell dpkg -L python3-botocore 2>/dev/null | grep 'dynamodb/2012-08-10/service-2.json$$' | head -n 1)
API_MODEL_VERSION ?= python3-botocore $(shell dpkg-query -W -f '$${Version}' python3-botocore 2>/dev/null)
.PHONY: api-model
api-model:
	@test -n "$(API_MODEL)" || { echo "api-model: install python3-botocore (or set API_MODEL=path/to/service-2.json)"; exit 1; }
	python3 src/api/gen_api_model.py "$(API_MODEL)" "$(API_MODEL_VERSION)" src/api/api_model.c
