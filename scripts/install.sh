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
#                                     (imported targets Kiln::runtime and,
#                                     with the tools, Kiln::plugin)
#   PREFIX/include/kiln-plugin/       the plugin SDK (not with --runtime-only):
#                                     compiler/plugin/KilnPlugin.h,
#                                     compiler/customops/CustomOpDefinition.h,
#                                     dialects/kiln/KilnDialect.h and its
#                                     generated .h.inc files, at their
#                                     repository paths (what plugins include)
#   PREFIX/lib/pkgconfig/kiln-plugin.pc  its flags (docs/custom-passes.md)
#
# Usage: scripts/install.sh --prefix DIR [--runtime-only] [--no-build]
#                           [--from DIR]
#   --prefix DIR     where to install (made if missing; an absolute path is
#                    written into kiln.pc)
#   --runtime-only   the library, headers, kiln.pc and the CMake package;
#                    no tools and no plugin SDK (what is installed needs no
#                    LLVM to run)
#   --no-build       do not run Bazel; install what was built already
#   --from DIR       the built files, laid out like bazel-bin
#                    (runtime/libkilnrt.so, tools/kilnc/kilnc, ...); implies
#                    --no-build. Default: Bazel's output folder.
#
# The tools need LLVM 22's libLLVM/libMLIR at run time; they find them
# through their rpath (/usr/lib/llvm-22/lib), i.e. the Debian packages that
# scripts/setup.sh installs. The runtime needs only libc, libstdc++,
# pthreads and libdl. Plugins build against LLVM 22's headers
# (/usr/lib/llvm-22/include, Debian's llvm-22-dev and libmlir-22-dev) and
# link nothing: the tool that loads one exports what it uses.
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
# The plugin SDK: sources as they are, generated headers from --from.
plugin_sources=(compiler/plugin/KilnPlugin.h compiler/customops/CustomOpDefinition.h
  dialects/kiln/KilnDialect.h)
plugin_generated=(dialects/kiln/KilnDialect.h.inc dialects/kiln/KilnEnums.h.inc
  dialects/kiln/KilnOps.h.inc)
# Where the tools were built to find LLVM's headers (WORKSPACE, @llvm), and
# the flags code on them needs (third_party/mlir/build_defs.bzl, MLIR_COPTS:
# Debian's LLVM has no RTTI).
llvm_includedir=/usr/lib/llvm-22/include
((runtime_only)) ||
  targets+=(//tools/kilnc //tools/kiln //tools/kiln-opt //dialects/kiln:kiln_ops_inc_gen)
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
  for header in "${plugin_generated[@]}"; do
    [[ -f "$from/$header" ]] ||
      die "$from/$header is missing (build it: bazel build //dialects/kiln:kiln_ops_inc_gen)"
  done
  for header in "${plugin_sources[@]}"; do
    [[ -f "$repo_root/$header" ]] || die "$repo_root/$header is missing"
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
  # Fresh, so that a header dropped from the SDK does not linger.
  rm -rf "$prefix/include/kiln-plugin"
  for header in "${plugin_sources[@]}"; do
    install -D -m 0644 "$repo_root/$header" "$prefix/include/kiln-plugin/$header"
  done
  for header in "${plugin_generated[@]}"; do
    install -D -m 0644 "$from/$header" "$prefix/include/kiln-plugin/$header"
  done
fi

substitute() {  # TEMPLATE OUTPUT
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" -e "s|@SOVERSION@|$soversion|g" \
    -e "s|@LLVM_INCLUDEDIR@|$llvm_includedir|g" \
    "$1" > "$2"
  chmod 0644 "$2"
}
templates="$repo_root/scripts/install"
substitute "$templates/kiln.pc.in" "$lib/pkgconfig/kiln.pc"
((runtime_only)) || substitute "$templates/kiln-plugin.pc.in" "$lib/pkgconfig/kiln-plugin.pc"
substitute "$templates/KilnConfig.cmake.in" "$lib/cmake/Kiln/KilnConfig.cmake"
substitute "$templates/KilnConfigVersion.cmake.in" "$lib/cmake/Kiln/KilnConfigVersion.cmake"

echo "install.sh: installed Kiln $version into $prefix" \
  "($( ((runtime_only)) && echo "runtime only" || echo "runtime, tools and plugin SDK"))"
