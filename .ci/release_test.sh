#!/usr/bin/env bash
# The release build end to end (.ci/release): both architectures build,
# the amd64 binary runs and reports its version and commit, the arm64 one
# is an aarch64 ELF, both are static, SHA256SUMS checks out.
set -euo pipefail
cd "$(dirname "$0")/.."

# RELEASE_TEST=quick: the amd64 release only, and for arm64 a small
# program on go-sqlite3 (the cgo part, FTS5 included) cross-compiled and
# linked static the same way: the cross toolchain is proven without
# compiling the model SDKs a second time (about half the time).
mode=${RELEASE_TEST:-full}
dist=$(mktemp -d)
probe=""
trap 'rm -rf "$dist" $probe' EXIT
commit=$(git rev-parse HEAD 2>/dev/null || echo 0000000)
fail() { echo "release_test: $*" >&2; exit 1; }
start=$(date +%s)
if [ "$mode" = quick ]; then
  DIST="$dist" VERSION=v0.0.0-ci COMMIT="$commit" .ci/release amd64
  command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null
  }
  probe=$(mktemp -d ./_release-probe.XXXXXX)   # "_": never matched by ./...
  cat >"$probe/main.go" <<'GO'
package main

import (
	"database/sql"
	"fmt"

	_ "github.com/mattn/go-sqlite3"
)

func main() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	var v string
	if _, err := db.Exec("CREATE VIRTUAL TABLE t USING fts5(x)"); err != nil {
		panic(err)
	}
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&v); err != nil {
		panic(err)
	}
	fmt.Println("sqlite", v, "fts5")
}
GO
  CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=aarch64-linux-gnu-gcc \
    go build -tags "sqlite_fts5 netgo osusergo sqlite_omit_load_extension" -trimpath \
    -ldflags "-s -w -extldflags -static" -o "$dist/parley-linux-arm64" "./$probe" \
    || fail "arm64: the go-sqlite3 probe does not cross-compile"
  echo "release_test: quick: arm64 is a go-sqlite3 probe, not Parley"
else
  DIST="$dist" VERSION=v0.0.0-ci COMMIT="$commit" .ci/release amd64 arm64
fi
echo "release_test: built in $(($(date +%s) - start)) s"

for f in parley-linux-amd64 parley-linux-arm64 parley-linux-amd64.modules.txt SHA256SUMS; do
  [ -s "$dist/$f" ] || fail "$f is missing or empty"
done
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not check out"
grep -q 'github.com/mattn/go-sqlite3' "$dist/parley-linux-amd64.modules.txt" || fail "module list lacks go-sqlite3"
if [ "$mode" != quick ]; then
  grep -q 'GOARCH=arm64' "$dist/parley-linux-arm64.modules.txt" || fail "arm64 module list lacks GOARCH=arm64"
fi

# The amd64 binary (this machine's, in CI) runs: `version` and `--version`.
if [ "$(uname -m)" = x86_64 ]; then
  for arg in version --version; do
    out=$("$dist/parley-linux-amd64" $arg)
    echo "release_test: parley $arg: $out"
    case "$out" in *v0.0.0-ci*) ;; *) fail "parley $arg does not name the version: $out" ;; esac
    case "$out" in *"commit $commit"*) ;; *) fail "parley $arg does not name the commit: $out" ;; esac
  done
fi

# ELF header: e_ident class 2 (64-bit), data 1 (little endian), and
# e_machine at offset 18: 183 (EM_AARCH64) / 62 (EM_X86_64).
machine() { od -An -t u2 -j 18 -N 2 "$1" | tr -d ' '; }
[ "$(od -An -c -j 1 -N 3 "$dist/parley-linux-arm64" | tr -d ' ')" = ELF ] || fail "arm64: not an ELF file"
[ "$(machine "$dist/parley-linux-arm64")" = 183 ] || fail "arm64: e_machine $(machine "$dist/parley-linux-arm64"), want 183 (aarch64)"
[ "$(machine "$dist/parley-linux-amd64")" = 62 ] || fail "amd64: e_machine $(machine "$dist/parley-linux-amd64"), want 62 (x86-64)"

# Static: no program interpreter (PT_INTERP, program header type 3), so
# no dynamic loader or shared glibc is needed. Read from the ELF program
# headers with od (`file` is not on a minimal Debian).
has_interp() {
  local f=$1 phoff phentsize phnum i t
  phoff=$(od -An -t u8 -j 32 -N 8 "$f" | tr -d ' ')
  phentsize=$(od -An -t u2 -j 54 -N 2 "$f" | tr -d ' ')
  phnum=$(od -An -t u2 -j 56 -N 2 "$f" | tr -d ' ')
  for ((i = 0; i < phnum; i++)); do
    t=$(od -An -t u4 -j $((phoff + i * phentsize)) -N 4 "$f" | tr -d ' ')
    [ "$t" = 3 ] && return 0
  done
  return 1
}
for a in amd64 arm64; do
  if has_interp "$dist/parley-linux-$a"; then fail "parley-linux-$a is not statically linked (it has an ELF interpreter)"; fi
  if command -v file >/dev/null 2>&1; then echo "release_test: parley-linux-$a: $(file -b "$dist/parley-linux-$a")"; fi
done
echo "release_test: ok"
