// RUN: kiln-opt %s --kiln-mixed-precision="deny=Relu" -verify-diagnostics

// Op names are Kiln's (relu), not ONNX's (Relu).
// expected-error@+1 {{kiln-mixed-precision: unknown Kiln op 'Relu' in the deny list (use Kiln op names such as matmul, add, gelu)}}
module {
}
