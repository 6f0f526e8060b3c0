# Kiln's release version, in one place. The runtime's SONAME is
# libkilnrt.so.MAJOR (//runtime:libkilnrt.so); scripts/install.sh reads
# KILN_VERSION from this file for the installed file names, kiln.pc and
# the CMake package version. Bump MAJOR when the C or C++ runtime API/ABI
# changes incompatibly. compiler/plugin/KilnPlugin.h's KILN_VERSION_STRING
# must say the same (//tests/install:install_test checks).
KILN_VERSION = "0.1.0"

KILN_SOVERSION = KILN_VERSION.split(".")[0]
