# stdesign: DynamoDB single-table design in PostgreSQL (PGXS build)
#
#   make test    install what is missing, build, install, run every test
#   make demo    the same set-up, then the e-commerce tour
#   make         just build (needs pg_config and postgresql-server-dev-15)

EXTENSION = stdesign
MODULE_big = stdesign
DATA = stdesign--0.1.0.sql

SRCS = $(wildcard src/common/*.c src/item/*.c src/expr/*.c src/catalog/*.c \
	src/storage/*.c src/ops/*.c src/api/*.c)
OBJS = $(SRCS:.c=.o)
HEADERS = $(wildcard src/*/*.h)

REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --inputdir=. --load-extension=stdesign

# Concurrency: isolationtester specs in test/isolation/specs with their
# expected output in test/isolation/expected.  PGXS's installcheck runs them
# after REGRESS (results in output_iso/); the later --inputdir wins over the
# one PGXS passes.
ISOLATION = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=stdesign

# Warnings as errors, plus -Wextra less what Postgres's own headers trigger.
PG_CPPFLAGS += -I$(CURDIR)/src
PG_CFLAGS += -Werror -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers -Wno-cast-function-type

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
endif

$(OBJS): $(HEADERS)

.PHONY: test demo unit fuzz deps bench

# Debian packages the build and the tests need (idempotent; a no-op when present).
deps:
	@bash test/scripts/deps.sh

unit:
	$(MAKE) -C test/unit

fuzz:
	$(MAKE) -C test/fuzz run

test: deps
	@bash test/scripts/run_tests.sh

demo: deps
	@bash test/scripts/run_demo.sh

# Benchmarks (never part of make test): stdesign against hand-written SQL,
# scaling from 10^4 to 10^6 items, and backend memory over 10^6 calls.
bench: deps
	$(MAKE) -s install
	bash bench/run.sh $(BENCH_ARGS)
	bash bench/scaling.sh
	bash bench/memory.sh

# stdesign through st_api against a local DynamoDB emulator and hand-written SQL
# (bench/emulator/README.md)
.PHONY: bench-emulator
bench-emulator:
	@bash bench/emulator/run.sh

# pg_regress against a server running under valgrind (never part of make
# test: about five minutes); VALGRIND_TESTS="items bulk" for a few files.
.PHONY: valgrind
valgrind: deps
	$(MAKE) -s install
	@bash test/scripts/valgrind_regress.sh $(VALGRIND_TESTS)
