// RUN: kiln-opt %s --kiln-mixed-precision="precision=fp8" -verify-diagnostics

// expected-error@+1 {{kiln-mixed-precision: unknown precision 'fp8' (expected bf16 or fp16)}}
module {
}
