//===- ArtifactSpec.h - Everything that goes into a .kiln file ---*- C++ -*-===//
//
// The compiler fills an ArtifactSpec; writeArtifact() serializes it into the
// .kiln layout (header, FlatBuffer from runtime/schema/kiln.fbs, 64-byte
// aligned constants segment). Plain C++ with no MLIR or LLVM so that tests
// can build artifacts by hand.
//
// Determinism: the output depends only on the spec's contents (no time
// stamps, no pointers, no hash-map order), so equal specs give equal bytes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ARTIFACT_ARTIFACTSPEC_H
#define KILN_COMPILER_ARTIFACT_ARTIFACTSPEC_H

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::artifact {

// Element types, numbered as in the schema's DType enum.
enum class DType : uint8_t {
  F32 = 0, F16, BF16, F64, I8, I16, I32, I64, U8, U16, U32, U64, Bool
};
size_t dtypeSize(DType dtype);
const char *dtypeName(DType dtype);

struct TensorSpec {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
  // Symbolic names from the model ("batch"), "" where none; same length as
  // dims or empty.
  std::vector<std::string> dimNames;
};

// Where a binding's bytes live at run time.
enum class BufferSpace : uint8_t { Input = 0, Output = 1, Arena = 2, Constant = 3 };

struct BindingSpec {
  BufferSpace space = BufferSpace::Arena;
  // Input/Output: the signature index. Constant: the constant index.
  // Arena: unused (0).
  uint32_t index = 0;
  // Byte offset inside the buffer (arena offset for Arena).
  uint64_t offset = 0;
  uint64_t length = 0;
};

// What a kernel does with a binding (kiln.fbs BindingAccess).
enum class Access : uint8_t { Read = 0, Write = 1, ReadWrite = 2 };

struct KernelBindingSpec {
  uint64_t size = 0; // exact byte length the kernel was compiled for
  Access access = Access::Read;
};

struct KernelSpec {
  std::string name; // the kernel's name in the executable's table
  uint32_t bindingCount = 0;
  uint32_t pushConstantCount = 0;
  // bindingCount entries; the loader checks every dispatch against them.
  std::vector<KernelBindingSpec> bindings;
  // The workgroup grid the kernel was compiled for.
  uint32_t workgroups[3] = {1, 1, 1};
};

// The GPU side of a "cuda" executable (kiln.fbs GpuExecutable).
struct GpuCubinSpec {
  std::string arch;            // "sm_80"
  std::vector<uint8_t> data;
};
struct GpuModuleSpec {
  std::string ptx;
  std::vector<GpuCubinSpec> cubins; // one per GpuExecutableSpec::archs
};
struct GpuKernelSpec {
  std::string entry;           // the PTX .entry name
  uint32_t module = 0;
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedMemoryBytes = 0;
};
struct GpuExecutableSpec {
  std::vector<std::string> archs;
  std::string ptxVersion;      // "7.0"
  std::string ptxTarget;       // "sm_80"
  std::vector<GpuModuleSpec> modules;
  std::vector<GpuKernelSpec> kernels; // parallel to ExecutableSpec::kernels
};

struct ExecutableSpec {
  std::string target = "x86_64";       // "x86_64" (later "cuda")
  std::string format = "elf-shared-object";
  std::string cpu;                     // e.g. "sapphirerapids", "x86-64-v3"
  std::vector<std::string> requiredFeatures; // e.g. "avx2", "fma", "avx512f"
  std::vector<uint8_t> blob;           // the shared object's bytes
  std::vector<KernelSpec> kernels;     // same order as the library's table
  bool hasGpu = false;                 // target "cuda": `gpu` is written
  GpuExecutableSpec gpu;
};

struct DispatchSpec {
  uint32_t executable = 0;
  uint32_t kernel = 0;
  uint32_t workgroups[3] = {1, 1, 1};
  std::vector<BindingSpec> bindings;
  std::vector<uint32_t> pushConstants;
};

struct CopySpec {
  BindingSpec source;
  BindingSpec target; // same length as source
};

// One input or output of a custom call (kiln.fbs CustomOperand).
struct CustomOperandSpec {
  BindingSpec binding; // length = dtypeSize(dtype) x product of dims
  DType dtype = DType::F32;
  std::vector<int64_t> dims;
};

// One attribute of a custom call (kiln.fbs CustomAttribute).
struct CustomAttributeSpec {
  enum class Kind : uint8_t { Int = 0, Float = 1, String = 2, Ints = 3, Floats = 4 };
  std::string name;
  Kind kind = Kind::Int;
  std::vector<int64_t> ints;  // Int (one element), Ints
  std::vector<double> floats; // Float (one element), Floats
  std::string string;         // String
};

// A call of an external custom-op kernel that the runtime resolves by name
// (runtime/include/kiln/custom_op.h).
struct CustomCallSpec {
  std::string op;   // the registered name, "com.example.Swish"
  std::string node; // the model node it computes, for errors
  std::vector<CustomOperandSpec> inputs, outputs;
  std::vector<CustomAttributeSpec> attributes; // sorted by name
};

// What a library GEMM applies after the product (kiln.fbs GemmEpilogue).
// Gelu is the tanh approximation (cuBLASLt's).
enum class GemmEpilogue : uint8_t {
  None = 0, Bias = 1, Relu = 2, BiasRelu = 3, Gelu = 4, BiasGelu = 5
};
const char *gemmEpilogueName(GemmEpilogue epilogue);

// D[b] = epilogue(alpha * op(A[b]) x op(B[b]) + beta * C[b]), row-major,
// for b < batch (kiln.fbs GemmCall, which documents every field). c is
// absent (space Arena, length 0) when beta == 0, bias when the epilogue
// adds none.
struct GemmCallSpec {
  DType dtype = DType::F32;
  DType compute = DType::F32;
  uint64_t batch = 1, m = 0, n = 0, k = 0;
  bool transposeA = false, transposeB = false;
  uint64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;
  uint64_t batchStrideA = 0, batchStrideB = 0, batchStrideC = 0,
           batchStrideD = 0;
  float alpha = 1.0f, beta = 0.0f;
  GemmEpilogue epilogue = GemmEpilogue::None;
  BindingSpec a, b, c, d, bias;
};

// A call into a vendor library that the runtime reaches through dlopen
// (kiln.fbs LibraryCallStep); GPU plans only.
struct LibraryCallSpec {
  std::string library = "cublasLt";
  std::string function = "matmul";
  std::string node; // the model node(s) it computes, for errors
  GemmCallSpec gemm; // when function == "matmul"
};

struct StepSpec {
  enum class Kind : uint8_t {
    Dispatch = 0, Copy = 1, CustomCall = 2, LibraryCall = 3
  } kind = Kind::Dispatch;
  DispatchSpec dispatch; // when kind == Dispatch
  CopySpec copy;         // when kind == Copy
  CustomCallSpec customCall; // when kind == CustomCall
  LibraryCallSpec libraryCall; // when kind == LibraryCall
  std::string label;     // for kiln inspect / errors (e.g. "dispatch_3: matmul+add+gelu")
};

struct PlanSpec {
  std::string target = "x86_64";
  std::vector<StepSpec> steps;
  uint64_t arenaSize = 0;
  // Sum of the sizes of all intermediates, i.e. the arena without reuse;
  // reported next to arenaSize.
  uint64_t intermediateBytes = 0;
};

struct ConstantSpec {
  std::string name;             // the tensor it came from, for inspection
  std::vector<uint8_t> data;    // stored 64-byte aligned in the segment
};

struct ArtifactSpec {
  std::string producer = "kilnc";
  std::string sourceName;       // the model file's base name
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::vector<ConstantSpec> constants;
  std::vector<ExecutableSpec> executables;
  std::vector<PlanSpec> plans;
};

// Serializes `spec`; on failure returns false and sets `error`.
bool writeArtifact(const ArtifactSpec &spec, std::vector<uint8_t> &bytes,
                   std::string &error);
bool writeArtifactFile(const ArtifactSpec &spec, const std::string &path,
                       std::string &error);

} // namespace kiln::artifact

#endif // KILN_COMPILER_ARTIFACT_ARTIFACTSPEC_H
