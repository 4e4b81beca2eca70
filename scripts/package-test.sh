#!/usr/bin/env bash
# package-test.sh BUILD_DIR - the Debian package end to end on this machine (CI: as root on its
# Debian 12 box): cpack builds zkarena_VERSION_amd64.deb in BUILD_DIR, apt installs it,
# `zkarena --help` and `zkarena demo` run from /usr/bin, libzkarena (soname, zkarena.pc, the
# C example built against the installed header and libraries), every command's help text (from
# `zkarena --commands`), the binaries' --version, the copyright file, LICENSE and (when the build
# had help2man) the man pages are installed, /etc/zkarena exists, the installed units pass
# `systemd-analyze verify` (each template as an instance; its whole output, no filter), the
# README's `systemctl enable` makes multi-user.target want zkarena.target and that the
# instances (the links are shown), the installed example settings file passes `zkarena config
# check`, then the package is removed. Needs root (apt); without it,
# says so and exits 0.
set -uo pipefail
B=${1:?usage: package-test.sh BUILD_DIR}
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
ko() { fail=$((fail + 1)); echo "FAIL $*"; }
if [ "$(id -u)" != 0 ]; then
	echo "package-test: not root: the .deb install is not tested here"
	exit 0
fi
if dpkg-query -W -f='${Status}' zkarena 2>/dev/null | grep -q "ok installed"; then
	echo "package-test: a zkarena package is already installed: not touching it"
	exit 0
fi
T=$(mktemp -d /tmp/zka-pkg-XXXXXX)
trap 'apt-get remove -y -qq zkarena >/dev/null 2>&1; rm -rf "$T"' EXIT
(cd "$B" && rm -f zkarena_*.deb && cpack -G DEB >"$T/cpack.log" 2>&1)
deb=$(ls "$B"/zkarena_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] && ok "cpack built $(basename "$deb")" || { ko "cpack: $(tail -5 "$T/cpack.log")"; echo "$pass passed, $fail failed"; exit 1; }
dpkg-deb -f "$deb" Depends | grep -q libmicrohttpd && ok "Depends lists the Debian libraries" || ko "Depends: $(dpkg-deb -f "$deb" Depends)"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$(realpath "$deb")" >"$T/apt.log" 2>&1 &&
	ok "apt install ./$(basename "$deb")" || ko "apt install: $(tail -5 "$T/apt.log")"
/usr/bin/zkarena --help >"$T/help" 2>&1 && grep -q "commands:" "$T/help" && ok "/usr/bin/zkarena --help" || ko "zkarena --help: $(head -3 "$T/help")"
# every command of the CLI's own table has its help text, and so does every binary
H=/usr/share/doc/zkarena/help missing=""
for c in $(/usr/bin/zkarena --commands); do [ -s "$H/zkarena-$c.txt" ] || missing="$missing $c"; done
for f in zkarena zkarena-gpud zkarena-synth; do [ -s "$H/$f.txt" ] || missing="$missing $f"; done
[ -n "$(/usr/bin/zkarena --commands)" ] && [ -z "$missing" ] &&
	ok "help texts installed: all $(/usr/bin/zkarena --commands | wc -l) commands and the daemons" ||
	ko "help texts missing:$missing"
v=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$B/CMakeCache.txt")
bad=""
for b in zkarena zkarena-gpud zkarena-synth; do
	/usr/bin/$b --version | grep -q "^$b $v\b" || bad="$bad $b"
done
[ -z "$bad" ] && ok "--version of the installed binaries: $v" || ko "--version:$bad"
C=/usr/share/doc/zkarena/copyright
head -1 "$C" 2>/dev/null | grep -q "^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" &&
	grep -q "^License: Apache-2.0" "$C" && [ -s /usr/share/doc/zkarena/LICENSE ] &&
	ok "copyright file (machine-readable) and LICENSE installed" || ko "no copyright file or LICENSE"
if grep -q "^HELP2MAN:FILEPATH=/" "$B/CMakeCache.txt"; then
	[ -s /usr/share/man/man1/zkarena.1 ] && [ -s /usr/share/man/man8/zkarena-gpud.8 ] &&
		[ -s /usr/share/man/man8/zkarena-synth.8 ] && ok "man pages installed" || ko "man pages missing"
else
	echo "skip man pages: the build found no help2man"
fi
[ -d /etc/zkarena ] && ok "the package made /etc/zkarena" || ko "no /etc/zkarena after install"
/usr/bin/zkarena config check /usr/share/doc/zkarena/examples/example.conf >/dev/null 2>&1 &&
	ok "the installed example settings file checks" || ko "example.conf does not check"
(cd "$T" && timeout 300 /usr/bin/zkarena demo --jobs 4 --constraints 500 --workers 1 >"$T/demo.log" 2>&1) &&
	ok "zkarena demo from /usr/bin" || ko "demo: $(tail -5 "$T/demo.log")"
# libzkarena: the shared library by its soname, the header and zkarena.pc; the C example builds
# against the installed files alone (shared, and static with --static)
# (grep reads the whole list: with -q it may exit first, ldconfig dies of SIGPIPE and pipefail
# calls the check failed though the line was there; seen in a local CI run, 2026-12-07)
ldconfig -p | grep "libzkarena.so.0 " >/dev/null && ok "libzkarena.so.0 installed (ldconfig)" || ko "libzkarena.so.0 not in the linker cache"
src=$(cd "$(dirname "$0")/.." && pwd)/examples/c-producer/producer.c
# (its usage exits 2: the output is kept in a file, not piped, so pipefail does not see that 2)
cc -Wall -Werror "$src" $(pkg-config --cflags --libs zkarena) -o "$T/cp" >"$T/cc.log" 2>&1 &&
	{ "$T/cp" >"$T/cp.out" 2>&1; [ $? = 2 ]; } && grep -q usage "$T/cp.out" &&
	ok "the C example builds with pkg-config zkarena and runs (usage, exit 2)" ||
	ko "c-producer against the package: $(tail -3 "$T/cc.log") $(head -3 "$T/cp.out" 2>/dev/null)"
cc -Wall -Werror "$src" $(pkg-config --cflags zkarena) "$(pkg-config --variable=libdir zkarena)/libzkarena.a" $(pkg-config --static --libs-only-l zkarena | sed 's/-lzkarena//') -o "$T/cps" >"$T/cc.log" 2>&1 &&
	ok "the C example links libzkarena.a" || ko "static link: $(tail -3 "$T/cc.log")"
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$T/units"
	for u in zkarena@ zkarena-arena@ zkarena-synth@; do
		cp "/usr/lib/systemd/system/$u.service" "$T/units/${u}main.service"
	done
	cp /usr/lib/systemd/system/zkarena-gpud@.service "$T/units/zkarena-gpud@main-gpu0.service"
	cp /usr/lib/systemd/system/zkarena.target "$T/units/"
	# every line counts: no filter (the gpud instance is named NAME-gpuDEVICE: the old
	# NAME:DEVICE made verify fail on the ':' in the file name)
	(cd "$T/units" && SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no ./*.service ./zkarena.target) >"$T/verify.log" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$T/verify.log" ]; then
		ok "systemd-analyze verify: the installed units, silent and exit 0"
	else
		ko "systemd-analyze verify (exit $rc): $(head -c 800 "$T/verify.log")"
	fi
	# what the README says to run, and what that makes start at boot (systemctl enable works
	# without systemd running: it writes the links)
	cp /usr/share/doc/zkarena/examples/example.conf /etc/zkarena/pkgtest.conf &&
		ok "cp example.conf /etc/zkarena/ (the package made the directory)" || ko "cp to /etc/zkarena failed"
	systemctl enable zkarena.target zkarena-arena@pkgtest zkarena@pkgtest >"$T/en.log" 2>&1 ||
		ko "systemctl enable: $(tail -3 "$T/en.log")"
	W=/etc/systemd/system
	echo "what starts at boot: $(cd $W && ls -l multi-user.target.wants/zkarena.target zkarena.target.wants/ 2>&1 | tr '\n' ' ')"
	[ -L $W/multi-user.target.wants/zkarena.target ] && [ -L $W/zkarena.target.wants/zkarena@pkgtest.service ] &&
		[ -L $W/zkarena.target.wants/zkarena-arena@pkgtest.service ] &&
		ok "enabled as the README says: multi-user.target wants zkarena.target, which wants the arena and its pipeline" ||
		ko "boot links missing: $(cat "$T/en.log")"
	systemctl disable zkarena.target zkarena-arena@pkgtest zkarena@pkgtest >/dev/null 2>&1
	rm -f /etc/zkarena/pkgtest.conf
else
	echo "skip systemd-analyze: not installed (scripts/install-deps.sh installs systemd)"
fi
apt-get remove -y -qq zkarena >/dev/null 2>&1 && [ ! -e /usr/bin/zkarena ] && ok "apt remove zkarena" || ko "remove failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
