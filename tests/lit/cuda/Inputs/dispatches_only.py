#!/usr/bin/env python3
"""Keeps the dispatch functions of `kilnc --emit=dispatches` output.

    dispatches_only.py in.mlir out.mlir

kiln-cuda-codegen expects a module of kiln.dispatch functions only (what
kilnc hands a backend); this drops the host function @main, which holds the
model's weights, and makes the dispatches public.
"""
import re
import sys


def main():
    text = open(sys.argv[1]).read()
    start = text.find("  func.func @main(")
    if start < 0:
        sys.exit(f"{sys.argv[1]}: no host function @main")
    end = text.find("\n  }\n", start)
    text = text[:start] + text[end + len("\n  }\n"):]
    text = re.sub(r"func\.func private @", "func.func @", text)
    with open(sys.argv[2], "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
