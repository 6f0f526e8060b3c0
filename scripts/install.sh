#!/usr/bin/env bash
# Installs Kiln for use without Bazel (docs/embedding.md, "Using Kiln
# without Bazel"):
#
#   PREFIX/lib/libkilnrt.so.VERSION   the runtime, SONAME libkilnrt.so.MAJOR,
#   PREFIX/lib/libkilnrt.so.MAJOR       with the usual symbolic links
#   PREFIX/lib/libkilnrt.so
#   PREFIX/include/kiln/*.h           the public headers (kiln.h, runtime.h, ...)
#   PREFIX/bin/kilnc, kiln, kiln-opt  the tools (not with --runtime-only)
#   PREFIX/lib/pkgconfig/kiln.pc      pkg-config
#   PREFIX/lib/cmake/Kiln/            KilnConfig.cmake, KilnConfigVersion.cmake
#                                     (imported target Kiln::runtime)
#
# Usage: scripts/install.sh --prefix DIR [--runtime-only] [--no-build]
#                           [--from DIR]
#   --prefix DIR     where to install (made if missing; an absolute path is
#                    written into kiln.pc)
#   --runtime-only   the library, headers, kiln.pc and the CMake package;
#                    no tools (what is installed needs no LLVM to run)
#   --no-build       do not run Bazel; install what was built already
#   --from DIR       the built files, laid out like bazel-bin
#                    (runtime/libkilnrt.so, tools/kilnc/kilnc, ...); implies
#                    --no-build. Default: Bazel's output folder.
#
# The tools need LLVM 22's libLLVM/libMLIR at run time; they find them
# through their rpath (/usr/lib/llvm-22/lib), i.e. the Debian packages that
# scripts/setup.sh installs. The runtime needs only libc, libstdc++,
# pthreads and libdl.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

die() { echo "install.sh: $*" >&2; exit 2; }

prefix="" runtime_only=0 build=1 from=""
while (($#)); do
  case "$1" in
    --prefix) (($# >= 2)) || die "--prefix needs a folder"; prefix="$2"; shift ;;
    --prefix=*) prefix="${1#--prefix=}" ;;
    --from) (($# >= 2)) || die "--from needs a folder"; from="$2"; build=0; shift ;;
    --from=*) from="${1#--from=}"; build=0 ;;
    --no-build) build=0 ;;
    --runtime-only) runtime_only=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
[[ -n "$prefix" ]] || die "--prefix DIR is required (see --help)"

# The version, from the one place Bazel reads it too.
version="$(sed -n 's/^KILN_VERSION = "\([0-9]*\.[0-9]*\.[0-9]*\)"$/\1/p' "$repo_root/version.bzl")"
[[ -n "$version" ]] || die "no KILN_VERSION = \"X.Y.Z\" in $repo_root/version.bzl"
soversion="${version%%.*}"

targets=(//runtime:libkilnrt.so)
tools=(tools/kilnc/kilnc tools/kiln/kiln tools/kiln-opt/kiln-opt)
((runtime_only)) || targets+=(//tools/kilnc //tools/kiln //tools/kiln-opt)
if ((build)); then
  (cd "$repo_root" && bazel build "${bazel_flags[@]}" "${targets[@]}")
fi
if [[ -z "$from" ]]; then
  from="$(cd "$repo_root" && bazel info "${bazel_flags[@]}" bazel-bin 2>/dev/null)" ||
    from="$repo_root/bazel-bin"
fi

library="$from/runtime/libkilnrt.so"
[[ -f "$library" ]] || die "$library is missing (build it: bazel build //runtime:libkilnrt.so)"
if ! ((runtime_only)); then
  for tool in "${tools[@]}"; do
    [[ -f "$from/$tool" ]] || die "$from/$tool is missing (build it, or pass --runtime-only)"
  done
fi
# A library without the SONAME would be found by the wrong name at run time.
if command -v readelf >/dev/null; then
  soname="$(readelf -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
  [[ "$soname" == "libkilnrt.so.$soversion" ]] ||
    die "$library has SONAME '${soname:-none}', expected libkilnrt.so.$soversion (stale build?)"
fi
headers="$repo_root/runtime/include/kiln"
[[ -f "$headers/kiln.h" && -f "$headers/runtime.h" ]] || die "no public headers in $headers"

mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
lib="$prefix/lib"
install -d "$lib" "$prefix/include/kiln" "$lib/pkgconfig" "$lib/cmake/Kiln"

install -m 0755 "$library" "$lib/libkilnrt.so.$version"
ln -sfn "libkilnrt.so.$version" "$lib/libkilnrt.so.$soversion"
ln -sfn "libkilnrt.so.$soversion" "$lib/libkilnrt.so"

# The whole folder, so headers added to the public API are installed too.
install -m 0644 "$headers"/*.h "$prefix/include/kiln/"

if ! ((runtime_only)); then
  install -d "$prefix/bin"
  for tool in "${tools[@]}"; do
    install -m 0755 "$from/$tool" "$prefix/bin/"
  done
fi

substitute() {  # TEMPLATE OUTPUT
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" -e "s|@SOVERSION@|$soversion|g" \
    "$1" > "$2"
  chmod 0644 "$2"
}
templates="$repo_root/scripts/install"
substitute "$templates/kiln.pc.in" "$lib/pkgconfig/kiln.pc"
substitute "$templates/KilnConfig.cmake.in" "$lib/cmake/Kiln/KilnConfig.cmake"
substitute "$templates/KilnConfigVersion.cmake.in" "$lib/cmake/Kiln/KilnConfigVersion.cmake"

echo "install.sh: installed Kiln $version into $prefix" \
  "($( ((runtime_only)) && echo "runtime only" || echo "runtime and tools"))"
