#!/bin/sh
# SHA-256 throughput of core/sha256 (what signs and verifies results
# files, 100 MiB and more at 5,000 skills): one thread, the best of 5
# passes over 128 MiB, its digest checked against sha256sum's of the same
# bytes first. The reference: OpenSSL's own SHA-256 on the same machine
# (`openssl speed`, 16 KiB blocks), where the openssl command is there.
set -u
root=${SKILLCI_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
driver="$root/${BUILD:-build}/tests/bench/bench_sha256"
MIB=${MIB:-128}
[ -x "$driver" ] || { echo "bench_sha256: build $driver first (make programs)"; exit 1; }
out=$("$driver" "$MIB") || exit 1
want=$(python3 -c "import sys; sys.stdout.buffer.write(b'skillci\n' * ($MIB << 17))" | sha256sum | cut -d' ' -f1)
got=$(echo "$out" | head -1)
[ "$got" = "$want" ] || { echo "bench_sha256: digest $got, sha256sum says $want"; exit 1; }
echo "core/sha256: $(echo "$out" | tail -1) (digest = sha256sum's)"
if command -v openssl >/dev/null 2>&1; then
	openssl speed -evp sha256 -seconds 2 -bytes 16384 2>/dev/null |
		awk '/^sha256/ { printf "openssl:     %.2f GB/s (16 KiB blocks)\n", $2 / 1e6 }'
fi
