# Kiln's release version, in one place. The runtime's SONAME is
# libkilnrt.so.MAJOR (//runtime:libkilnrt.so); scripts/install.sh reads
# KILN_VERSION from this file for the installed file names, kiln.pc and
# the CMake package version. Bump MAJOR when the C or C++ runtime API/ABI
# changes incompatibly.
KILN_VERSION = "0.1.0"

KILN_SOVERSION = KILN_VERSION.split(".")[0]
