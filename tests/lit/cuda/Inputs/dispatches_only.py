#!/usr/bin/env python3
"""Keeps the dispatch functions of `kilnc --emit=dispatches` output.

    dispatches_only.py in.mlir out.mlir

kiln-cuda-codegen expects a module of kiln.dispatch functions only (what
kilnc hands a backend); this drops the host function @main, which holds the
model's weights (read line by line: a bench model's is most of a GiB), and
makes the dispatches public.
"""
import sys


def main():
    skipping = found = False
    with open(sys.argv[1]) as src, open(sys.argv[2], "w") as out:
        for line in src:
            if not found and line.startswith("  func.func @main("):
                skipping = found = True
                continue
            if skipping:
                if line.rstrip("\n") == "  }":
                    skipping = False
                continue
            out.write(line.replace("func.func private @", "func.func @"))
    if not found:
        sys.exit(f"{sys.argv[1]}: no host function @main")


if __name__ == "__main__":
    main()
