// compare_command.h - `kiln compare REFERENCE.kiln CANDIDATE.kiln`: runs two
// artifacts of the same signature on the same inputs and reports, per
// output, how far the candidate is from the reference.
#ifndef KILN_TOOLS_KILN_COMPARE_COMMAND_H_
#define KILN_TOOLS_KILN_COMPARE_COMMAND_H_

namespace kiln::tools {

extern const char kCompareUsage[];

// argv[0] is "kiln", argv[1] "compare". Returns the exit status: 0 when the
// comparison ran (and, with --min-cosine, every output passed), 1 when a
// file, a model or a sample fails, 2 on bad usage, 3 when an output's
// cosine is below --min-cosine (or not a number).
int RunCompareCommand(int argc, char** argv);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_KILN_COMPARE_COMMAND_H_
