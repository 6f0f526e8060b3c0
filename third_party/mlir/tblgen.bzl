"""Runs mlir-tblgen over ODS files and exposes the generated .inc files."""

def gentbl_cc_library(name, td_file, outs, td_srcs = [], deps = [], visibility = None):
    """Generates `.inc` files from one TableGen file.

    Args:
      name: the cc_library that carries the generated files as textual headers.
      td_file: the main .td file.
      outs: dict from output file name to the list of mlir-tblgen flags
        (e.g. {"KilnOps.h.inc": ["-gen-op-decls"]}).
      td_srcs: other .td files that td_file includes.
      deps: other gentbl_cc_library targets whose .td files are included.
      visibility: visibility of the cc_library.
    """
    td_group = name + "_td_files"
    native.filegroup(
        name = td_group,
        srcs = [td_file] + td_srcs + [d + "_td_files" for d in deps],
        visibility = visibility,
    )
    generated = []
    for out, flags in outs.items():
        rule_name = name + "_" + out.replace(".", "_").replace("/", "_")
        native.genrule(
            name = rule_name,
            srcs = [td_file, td_group, "@llvm//:mlir_td_files"],
            outs = [out],
            tools = ["@llvm//:mlir_tblgen"],
            cmd = " ".join([
                "$(location @llvm//:mlir_tblgen)",
                " ".join(flags),
                "-I external/llvm/include",
                "-I .",
                "-I $(GENDIR)",
                "$(location %s)" % td_file,
                "-o $@",
            ]),
        )
        generated.append(out)
    native.cc_library(
        name = name,
        textual_hdrs = generated,
        visibility = visibility,
    )
