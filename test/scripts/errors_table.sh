#!/usr/bin/env bash
# Print the error table of docs/errors.md from src/common/st_exceptions.h,
# the one list of exceptions the code raises.  With --check, fail when
# docs/errors.md's table differs from it.
set -euo pipefail
cd "$(dirname "$0")/../.."

table() {
	echo "| Exception | SQLSTATE | Raised when |"
	echo "| --- | --- | --- |"
	sed -n 's/^ST_EXCEPTION([A-Z_]*, "\([A-Za-z]*\)", "\([A-Z0-9]*\)")[[:space:]]*\/\* \(.*\) \*\/$/| \1 | `\2` | \3 |/p' \
		src/common/st_exceptions.h
}

if [ "${1:-}" = "--check" ]; then
	if ! diff <(table) <(sed -n '/^| Exception | SQLSTATE/,/^$/p' docs/errors.md | sed '/^$/d'); then
		echo "docs/errors.md's error table differs from src/common/st_exceptions.h: run test/scripts/errors_table.sh"
		exit 1
	fi
	echo "errors table: 1 passed, 0 failed"
else
	table
fi
