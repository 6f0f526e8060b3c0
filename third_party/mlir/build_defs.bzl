"""Compiler flags for code that includes LLVM/MLIR headers."""

# Debian's LLVM is built without RTTI; code deriving from its classes must
# match.
MLIR_COPTS = [
    "-fno-rtti",
    "-Wno-unused-parameter",
    "-Wno-deprecated-declarations",
]
