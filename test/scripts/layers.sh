#!/usr/bin/env bash
# The layers of src/ depend downwards only, checked from the built objects
# and from the sources' #include lines:
#
#   init -> http -> api -> {studio, partiql} -> ops -> {catalog, expr, storage} -> item -> common
#   init -> ttl -> ops
#
# init holds only the module's entry (_PG_init), which sets up every layer;
# studio (the design studio: models, access patterns, checks, cost, the
# page) runs patterns through ops as the friendly functions do, and reads
# table definitions from catalog as api does; api may call it, nothing
# below it does.  partiql (PartiQL's parser and planner) runs its
# statements on ops and writes them out as expressions for expr; it reads
# no catalog or storage of its own (ops looks tables up for it).
# http (the HTTP endpoint's workers) calls the same code as st_api, in api
# and ops, never below ops (shared/DESIGN.md section 7); ttl (the
# time-to-live worker) runs ops' expiry on the tables the catalog names.
#
# A layer may use any layer below it, with these exceptions:
#   - api and studio reach storage only through ops (the friendly SQL
#     functions, st_api and the studio's patterns run the same operation
#     code);
#   - of the three middle layers only storage uses catalog (a table's
#     definition and its cached plans); catalog never calls storage, and
#     expr (plain C, unit tested and fuzzed) uses neither.
#   - studio (the design studio: partitions, traffic, import and export)
#     reads tables as api does, through ops and the catalog, never storage;
#     api may call it, it never calls api.
# Nothing calls up: a helper a lower layer needs lives in that layer.
#
# Every global symbol also carries the project's prefix (st_) or its
# layer's (http_, ttl_, api_, studio_, partiql_, ops_, catalog_, expr_, storage_, av_ for item;
# common has only st_): Postgres loads the library with its symbols global, so an
# unprefixed name (table_create, row_update) could meet another library's.
#
# Objects: every symbol an object file (src/<layer>/*.o, from make) leaves
# undefined that another object of the extension defines must be defined in
# the same layer or one it may use.  Sources: every #include "..." that
# names one of the project's headers must name one of such a layer.
# Prints each violation; exits 1 when there is one.
set -euo pipefail
cd "$(dirname "$0")/../.."

layers="init http ttl api studio partiql ops catalog expr storage item common"
# FROM:TO pairs: layer FROM may use layer TO (and every layer itself)
allowed="init:http init:ttl init:api init:studio init:partiql init:ops init:catalog init:expr init:storage init:item init:common
	http:api http:partiql http:ops http:item http:common
	ttl:ops ttl:catalog ttl:item ttl:common
	api:studio api:partiql api:ops api:catalog api:expr api:item api:common
	studio:ops studio:catalog studio:expr studio:item studio:common
	partiql:ops partiql:expr partiql:item partiql:common
	ops:catalog ops:expr ops:storage ops:item ops:common
	storage:catalog
	catalog:item catalog:common expr:item expr:common storage:item storage:common
	item:common"

# The objects of the sources there are (a stale object of a source since
# moved or removed would speak for code that no longer exists).
objects() {
	local c
	for c in src/$1/*.c; do
		echo "${c%.c}.o"
	done
}
for l in $layers; do
	for o in $(objects $l); do
		[ -f "$o" ] || { echo "layers: $o is missing (run make first)"; exit 1; }
	done
done

# Lines "D layer object symbol" (defined) and "U layer object symbol"
# (undefined) for every object, then "I layer file:line target" for every
# #include of a project header (a path that resolves to no file under src/
# is one of Postgres's: "catalog/pg_type.h", "storage/bufmgr.h").
refs() {
	for l in $layers; do
		# nm -A: "object: symbol type ..."
		nm -A -P --defined-only -g $(objects $l) | awk -v l="$l" '{print "D", l, $1, $2}'
		nm -A -P -u $(objects $l) | awk -v l="$l" '{print "U", l, $1, $2}'
		for f in src/$l/*.[ch]; do
			{ grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" || true; } |
				sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' |
				while read -r line inc; do
					if [ -f "src/$l/$inc" ]; then
						echo "I $l $f:$line $(realpath -m --relative-to=src "src/$l/$inc")"
					elif [ -f "src/$inc" ]; then
						echo "I $l $f:$line $inc"
					fi
				done
		done
	done
}

refs | awk -v allowed="$allowed" '
	BEGIN { n = split(allowed, a, /[ \t\n]+/); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
	function may(from, to) { return from == to || ((from ":" to) in ok) }
	$1 == "D" {
		def[$4] = $2; ndef++
		prefix = ($2 == "item" ? "av" : $2) "_"
		if ($4 !~ /^(st_|pg_finfo_|Pg_magic_func$|_PG_init$)/ && index($4, prefix) != 1) {
			print "layers: " substr($3, 1, length($3) - 1) " (" $2 ") defines " $4 ", without st_ or " prefix
			bad++
		}
		next
	}
	$1 == "U" { und[++nund] = $0; next }
	$1 == "I" {
		ninc++
		split($4, p, "/")
		if (!may($2, p[1])) { print "layers: " $3 " (" $2 ") includes " $4 ", a header of " p[1]; bad++ }
	}
	END {
		for (i = 1; i <= nund; i++) {
			split(und[i], u, " ")
			if ((u[4] in def) && !may(u[2], def[u[4]])) {
				print "layers: " substr(u[3], 1, length(u[3]) - 1) " (" u[2] ") uses " u[4] ", defined in " def[u[4]]
				bad++
			}
		}
		if (ndef < 100 || ninc < 50) {
			print "layers: only " ndef " symbols and " ninc " includes found: nm or the parsing failed?"
			exit 1
		}
		if (bad) {
			print "layers: " bad " violations of the layering or the prefixes (see the top of test/scripts/layers.sh)"
			exit 1
		}
		print "layers: " ndef " symbols, " nund " references, " ninc " includes of project headers: 0 violations"
	}'
