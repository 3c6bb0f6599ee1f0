#!/usr/bin/env bash
# Install the Debian packages that building and testing stdesign need,
# when they are missing.  Idempotent; needs root (or sudo) only when
# something is missing.
set -euo pipefail

# perl (prove, Test::More) and libipc-run-perl: the TAP tests
# (PostgreSQL::Test::Cluster runs its commands through IPC::Run);
# libmicrohttpd, zlib and libssl: the HTTP endpoint; awscli, boto3, curl: its tests;
# chromium: the design studio's page, loaded headless (studio_browser.sh).
packages=(postgresql-15 postgresql-server-dev-15 postgresql-contrib make gcc clang libclang-rt-14-dev
	perl libipc-run-perl libmicrohttpd-dev zlib1g-dev libssl-dev awscli python3-boto3 curl chromium)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The HTTP endpoint's tests run the JavaScript SDK: Debian's node and npm
# unless a node with its own npm is there already.
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "stdesign: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
