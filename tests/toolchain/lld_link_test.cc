// LLD's ELF linker as a library, as the CPU code generator will use it to
// link kernels into a shared object in process.

#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

LLD_HAS_DRIVER(elf)

namespace {

TEST(LldLink, ElfDriverRunsInProcess) {
  std::string out;
  std::string err;
  llvm::raw_string_ostream outStream(out);
  llvm::raw_string_ostream errStream(err);
  const char *args[] = {"ld.lld", "--version"};
  lld::Result result = lld::lldMain(args, outStream, errStream,
                                    {{lld::Gnu, &lld::elf::link}});
  EXPECT_EQ(result.retCode, 0) << err;
  EXPECT_NE(out.find("LLD 22"), std::string::npos) << out;
}

} // namespace
