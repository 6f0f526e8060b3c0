// RUN: kiln-opt %s --kiln-mixed-precision="allow=softmax" -verify-diagnostics

// Softmax is on the always-f32 list; allowing it is refused, not ignored.
// expected-error@+1 {{kiln-mixed-precision: 'softmax' always stays f32 and cannot be allowed}}
module {
}
