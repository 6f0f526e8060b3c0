// RUN: kiln-opt %s --kiln-mixed-precision="allow=matmul,fancy_op" -verify-diagnostics

// expected-error@+1 {{kiln-mixed-precision: unknown Kiln op 'fancy_op' in the allow list (use Kiln op names such as matmul, add, gelu)}}
module {
}
