#!/usr/bin/env bash
# install-deps.sh - installs what zkarena needs to build and test on Debian 12 (run as root or
# with sudo available): the C toolchain and libraries from Debian (libpq and the PostgreSQL
# server for the cluster and its tests among them), and the pinned node packages
# of the interop tests (snarkjs 0.7.6, circom2 0.2.23, circomlib 2.0.5; tests/interop/package-lock.json).
# CUDA is optional and not installed here: it is found at /usr/local/cuda when present.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
pkgs=(cmake gcc make pkg-config
      liburing-dev libnuma-dev libcunit1-dev
      libgmp-dev libjansson-dev libxxhash-dev
      libpq-dev postgresql # the cluster (cluster/): libpq, and the server its tests start
      libmicrohttpd-dev libinih-dev libsystemd-dev # metrics (HTTP), settings files, sd_notify
      prometheus systemd dpkg-dev file # promtool, systemd-analyze, the .deb's dependencies
      g++ # import --c: circom's generated C++ compiled once against the witness tracer
      nasm nlohmann-json3-dev # circom's own C++ witness generator, the peer of bench witness
      rustc # examples/rust-producer: libzkarena from Rust (rustc alone, no crates)
      help2man # the man pages (optional: without it the build skips them)
      curl openssl) # the HTTP API's tests (zkarena serve): requests, a self-signed certificate
command -v node >/dev/null && command -v npm >/dev/null || pkgs+=(nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
(cd tests/interop && npm ci --no-audit --no-fund --loglevel=error)
echo "install-deps: done"
