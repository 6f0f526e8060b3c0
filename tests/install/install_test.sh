#!/usr/bin/env bash
# Bazel test //tests/install:install_test (see BUILD). Runs in the runfiles
# tree, which is laid out like the source tree plus bazel-bin, so
# scripts/install.sh --from "$PWD" installs exactly what Bazel built.
set -euo pipefail
root="$PWD"
source "$root/tests/venv_python.sh"
tmp="${TEST_TMPDIR:-$(mktemp -d)}/install_test"
rm -rf "$tmp"
mkdir -p "$tmp"
prefix="$tmp/prefix"
checks=0
# Bazel's test environment may leave HOME unset; the scripts and CMake use it.
export HOME="${HOME:-$tmp/home}"
mkdir -p "$HOME"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { checks=$((checks + 1)); echo "ok: $*"; }

version="$(sed -n 's/^KILN_VERSION = "\(.*\)"$/\1/p' "$root/version.bzl")"
soversion="${version%%.*}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "version.bzl: bad KILN_VERSION '$version'"
# The plugin API states the release too (a plugin for another one is refused).
plugin_version="$(sed -n 's/^#define KILN_VERSION_STRING "\(.*\)"$/\1/p' "$root/compiler/plugin/KilnPlugin.h")"
[[ "$plugin_version" == "$version" ]] ||
  fail "compiler/plugin/KilnPlugin.h says KILN_VERSION_STRING '$plugin_version', version.bzl '$version'"

# --- install.sh's own errors.
expect_install_error() {  # PATTERN ARGS...
  local pattern="$1" rc=0 err
  shift
  err="$("$root/scripts/install.sh" "$@" 2>&1 >/dev/null)" || rc=$?
  [[ $rc -eq 2 && "$err" =~ $pattern ]] ||
    fail "install.sh $*: exit $rc, stderr '$err' (want 2 and /$pattern/)"
  pass "install.sh $* -> $pattern"
}
expect_install_error "--prefix DIR is required" --from "$root"
expect_install_error "unknown argument '--bogus'" --prefix "$tmp/x" --bogus
expect_install_error "nowhere/runtime/libkilnrt.so is missing" --prefix "$tmp/x" --from "$tmp/nowhere"

# --- The install and its layout.
"$root/scripts/install.sh" --prefix "$prefix" --from "$root"
lib="$prefix/lib"
[[ -f "$lib/libkilnrt.so.$version" && ! -L "$lib/libkilnrt.so.$version" ]] ||
  fail "no $lib/libkilnrt.so.$version"
[[ "$(readlink "$lib/libkilnrt.so.$soversion")" == "libkilnrt.so.$version" ]] ||
  fail "libkilnrt.so.$soversion -> $(readlink "$lib/libkilnrt.so.$soversion")"
[[ "$(readlink "$lib/libkilnrt.so")" == "libkilnrt.so.$soversion" ]] ||
  fail "libkilnrt.so -> $(readlink "$lib/libkilnrt.so")"
soname="$(readelf -d "$lib/libkilnrt.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
[[ "$soname" == "libkilnrt.so.$soversion" ]] || fail "SONAME '$soname'"
pass "lib/libkilnrt.so.$version, SONAME $soname, links"

# Every public header, byte for byte, and nothing else.
diff -r "$root/runtime/include/kiln" "$prefix/include/kiln" || fail "include/kiln differs"
for header in kiln.h runtime.h kernel_abi.h; do
  [[ -f "$prefix/include/kiln/$header" ]] || fail "include/kiln/$header missing"
done
pass "include/kiln/ == runtime/include/kiln/ ($(ls "$prefix/include/kiln" | tr '\n' ' '))"

export PKG_CONFIG_PATH="$lib/pkgconfig"
[[ "$(pkg-config --modversion kiln)" == "$version" ]] || fail "pkg-config --modversion kiln"
[[ "$(pkg-config --variable=prefix kiln)" == "$prefix" ]] || fail "kiln.pc prefix"
[[ "$(pkg-config --libs kiln | xargs)" == "-L$lib -lkilnrt" ]] || fail "pkg-config --libs: $(pkg-config --libs kiln)"
unset PKG_CONFIG_PATH
pass "kiln.pc: version $version, prefix $prefix"

# The tools run from the prefix, from another folder, with a plain PATH.
cd "$tmp"
# (Into a file: grep -q closing the pipe early would fail it under pipefail.)
"$prefix/bin/kiln-opt" --help > "$tmp/kiln-opt-help.txt" || fail "kiln-opt --help"
grep -q -- "--kiln-graph-cleanup" "$tmp/kiln-opt-help.txt" || fail "kiln-opt --help lists no Kiln pass"
"$prefix/bin/kilnc" "$root/examples/models/tiny_classifier.onnx" -o "$tmp/tools.kiln"
"$prefix/bin/kiln" inspect "$tmp/tools.kiln" > "$tmp/inspect.txt" || fail "kiln inspect"
grep -q "image: \[1,3,32,32\] f32" "$tmp/inspect.txt" || fail "kiln inspect of the installed kilnc's artifact"
"$prefix/bin/kiln" run "$tmp/tools.kiln" > "$tmp/run.txt" || fail "kiln run"
pass "installed kilnc compiles, kiln inspects and runs, kiln-opt lists Kiln's passes"

# --- The documents' snippets, run as written in a copy of the sources.
snippet() {  # DOC NAME: the fenced block after "<!-- snippet: NAME -->"
  awk -v marker="<!-- snippet: $2 -->" '
    $0 == marker { state = 1; next }
    state == 1 && /^```/ { state = 2; next }
    state == 2 && /^```/ { exit }
    state == 2 { print }' "$1"
}

check_program() {  # WHAT PROGRAM ARTIFACT
  "$python" "$root/examples/c_api/c_api_example_test.py" --example "$2" --artifact "$3" \
    --onnx "$root/examples/models/tiny_classifier.onnx" --workdir "$tmp/checks" > "$tmp/checks.log" 2>&1 ||
    { cat "$tmp/checks.log" >&2; fail "$1: examples/c_api checks"; }
  pass "$1: $(grep -E '^(numerics|errors):' "$tmp/checks.log" | paste -sd ';')"
}

run_snippet() {  # DOC NAME WORKDIR
  local code
  code="$(snippet "$1" "$2")"
  [[ -n "$code" ]] || fail "$1 has no '$2' snippet"
  (cd "$3" && PREFIX="$prefix" bash -euo pipefail -c "$code") > "$tmp/snippet.log" 2>&1 ||
    { cat "$tmp/snippet.log" >&2; fail "$1: the '$2' snippet failed"; }
}

for doc in README.md docs/embedding.md; do
  work="$tmp/docs/${doc//\//_}"
  mkdir -p "$work/examples/c_api" "$work/examples/models"
  cp "$root"/examples/c_api/{c_api_example.c,npy.c,npy.h,CMakeLists.txt} "$work/examples/c_api/"
  cp "$root/examples/models/tiny_classifier.onnx" "$work/examples/models/"
  "$python" -c "import numpy as np; np.save('$work/image.npy', np.ones((1, 3, 32, 32), np.float32))"
  if [[ -n "$(snippet "$root/$doc" compile)" ]]; then
    run_snippet "$root/$doc" compile "$work"
  else
    "$prefix/bin/kilnc" "$work/examples/models/tiny_classifier.onnx" -o "$work/model.kiln"
  fi
  [[ -f "$work/model.kiln" ]] || fail "$doc: no model.kiln"

  run_snippet "$root/$doc" pkg-config "$work"
  grep -q "^output probabilities: f32 \[1,10\]$" "$tmp/snippet.log" ||
    { cat "$tmp/snippet.log" >&2; fail "$doc: pkg-config build printed no output"; }
  readelf -d "$work/c_api_example" | grep -q "NEEDED.*\[libkilnrt.so.$soversion\]" ||
    fail "$doc: the pkg-config build does not need libkilnrt.so.$soversion"
  check_program "$doc, pkg-config build" "$work/c_api_example" "$work/model.kiln"

  [[ $doc == README.md ]] && continue
  # The CMake file the document shows is the example's, byte for byte.
  diff <(snippet "$root/$doc" examples/c_api/CMakeLists.txt) "$root/examples/c_api/CMakeLists.txt" ||
    fail "$doc: its CMakeLists.txt differs from examples/c_api/CMakeLists.txt"
  run_snippet "$root/$doc" cmake "$work"
  grep -q "^output probabilities: f32 \[1,10\]$" "$tmp/snippet.log" ||
    { cat "$tmp/snippet.log" >&2; fail "$doc: CMake build printed no output"; }
  check_program "$doc, CMake build" "$work/build/c_api/c_api_example" "$work/model.kiln"
done

# --- A C++ program on kiln/runtime.h, through pkg-config.
cat > "$tmp/load.cc" <<'CC'
#include <kiln/runtime.h>

#include <cstdio>

int main(int argc, char** argv) {
  std::shared_ptr<kiln::Runtime> runtime;
  kiln::Status s = kiln::Runtime::Create({}, &runtime);
  std::shared_ptr<const kiln::Model> model;
  if (s.ok()) s = runtime->LoadModel(argv[1], &model);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::printf("inputs %zu outputs %zu\n", model->inputs().size(), model->outputs().size());
  return argc == 2 ? 0 : 1;
}
CC
PKG_CONFIG_PATH="$lib/pkgconfig" bash -c 'c++ -std=c++17 -o "$1/load" "$1/load.cc" \
  $(pkg-config --cflags --libs kiln) -Wl,-rpath,$(pkg-config --variable=libdir kiln)' _ "$tmp"
[[ "$("$tmp/load" "$tmp/tools.kiln")" == "inputs 1 outputs 1" ]] || fail "the C++ program"
pass "a C++ program on kiln/runtime.h builds with pkg-config and loads the model"

# --- The plugin SDK: headers at their repository paths, kiln-plugin.pc.
sdk="$prefix/include/kiln-plugin"
for header in compiler/plugin/KilnPlugin.h compiler/customops/CustomOpDefinition.h \
    dialects/kiln/KilnDialect.h dialects/kiln/KilnDialect.h.inc \
    dialects/kiln/KilnEnums.h.inc dialects/kiln/KilnOps.h.inc; do
  cmp -s "$root/$header" "$sdk/$header" || fail "include/kiln-plugin/$header differs from $header"
done
[[ "$(cd "$sdk" && find . -type f | wc -l)" -eq 6 ]] ||
  fail "include/kiln-plugin holds more than the 6 SDK headers: $(cd "$sdk" && find . -type f)"
want_cflags="-I$sdk -I/usr/lib/llvm-22/include -fno-rtti"
got_cflags="$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags kiln-plugin | xargs)"
[[ "$got_cflags" == "$want_cflags" ]] || fail "pkg-config --cflags kiln-plugin: '$got_cflags'"
[[ -z "$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --libs kiln-plugin | xargs)" ]] ||
  fail "kiln-plugin.pc has Libs (a plugin links nothing)"
pass "include/kiln-plugin/ (6 headers), kiln-plugin.pc: $got_cflags"

# --- docs/custom-passes.md: examples/custom_pass's plugin built against the
# prefix with pkg-config and with CMake, loaded by the installed kilnc; each
# takes the example model from 6 kernels / 10 steps to 3 / 4 (as
# //examples/custom_pass:custom_pass_test checks in the repository).
doc="$root/docs/custom-passes.md"
work="$tmp/plugin"
mkdir -p "$work/examples/custom_pass"
cp "$root"/examples/custom_pass/{FuseLayerNorm.cpp,CMakeLists.txt} "$work/examples/custom_pass/"
"$python" "$root/examples/custom_pass/make_layer_norm_model.py" "$work/ffn.onnx" > /dev/null
"$prefix/bin/kilnc" "$work/ffn.onnx" -o "$work/ffn.kiln"
plan_of() {  # ARTIFACT -> "KERNELS/STEPS" from kiln inspect
  "$prefix/bin/kiln" inspect "$1" > "$tmp/plan.txt" || fail "kiln inspect $1"
  echo "$(grep -cE '^\s+kernel [0-9]+: ' "$tmp/plan.txt")/$(sed -n 's/^plan (x86_64): \([0-9]*\) steps$/\1/p' "$tmp/plan.txt")"
}
[[ "$(plan_of "$work/ffn.kiln")" == "6/10" ]] ||
  fail "without the plugin: $(plan_of "$work/ffn.kiln") kernels/steps, want 6/10"
diff <(snippet "$doc" examples/custom_pass/CMakeLists.txt) "$root/examples/custom_pass/CMakeLists.txt" ||
  fail "custom-passes.md: its CMakeLists.txt differs from examples/custom_pass/CMakeLists.txt"
for build in plugin-pkg-config:ffn-fused.kiln plugin-cmake:ffn-fused-cmake.kiln; do
  name="${build%%:*}" artifact="$work/${build#*:}"
  rm -f "$artifact"
  run_snippet "$doc" "$name" "$work"
  [[ -f "$artifact" ]] || fail "custom-passes.md '$name': no ${artifact##*/}"
  [[ "$(plan_of "$artifact")" == "3/4" ]] ||
    fail "custom-passes.md '$name': the plugin left $(plan_of "$artifact") kernels/steps, want 3/4"
  pass "custom-passes.md '$name': the plugin built against the prefix takes 6/10 kernels/steps to 3/4"
done

# --- CMake refuses a version the package does not satisfy.
mkdir -p "$tmp/cmake_v1"
cat > "$tmp/cmake_v1/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(v1 LANGUAGES C)
find_package(Kiln 1 REQUIRED)
CMAKE
if cmake -S "$tmp/cmake_v1" -B "$tmp/cmake_v1/build" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/v1.log" 2>&1; then
  fail "find_package(Kiln 1) accepted version $version"
fi
grep -q "version: $version" "$tmp/v1.log" || { cat "$tmp/v1.log" >&2; fail "no version in the error"; }
pass "find_package(Kiln 1) is refused (found $version)"

# --- --runtime-only: no tools, and the CMake package still works.
"$root/scripts/install.sh" --prefix "$tmp/runtime_only" --from "$root" --runtime-only
[[ ! -e "$tmp/runtime_only/bin" ]] || fail "--runtime-only installed bin/"
[[ ! -e "$tmp/runtime_only/include/kiln-plugin" && ! -e "$tmp/runtime_only/lib/pkgconfig/kiln-plugin.pc" ]] ||
  fail "--runtime-only installed the plugin SDK"
cmake -S "$tmp/docs/docs_embedding.md/examples/c_api" -B "$tmp/runtime_only_build" \
  -DCMAKE_PREFIX_PATH="$tmp/runtime_only" > "$tmp/ro.log" 2>&1 &&
  cmake --build "$tmp/runtime_only_build" >> "$tmp/ro.log" 2>&1 ||
  { cat "$tmp/ro.log" >&2; fail "CMake build against the --runtime-only prefix"; }
"$tmp/runtime_only_build/c_api_example" "$tmp/tools.kiln" "image=$tmp/docs/docs_embedding.md/image.npy" \
  > "$tmp/ro_run.txt" || fail "the --runtime-only build's program"
grep -q "^output probabilities" "$tmp/ro_run.txt" || fail "the --runtime-only build's program printed no output"
pass "--runtime-only: no bin/ or plugin SDK, CMake build works"

echo "install_test: $checks checks passed"
