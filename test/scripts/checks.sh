# Sourced by the test scripts: counts their checks.
#   check "<what>" <status>   status 0: the check holds
# and at the end: echo "<name>: $passed passed, $failed failed".
passed=0
failed=0
check() {
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1)); echo "ok      $1"
	else
		failed=$((failed + 1)); echo "FAILED  $1"
	fi
}
