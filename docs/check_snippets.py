#!/usr/bin/env python3
"""Checks that the code blocks a doc quotes from the sources still match
them, so that the docs cannot rot.

    check_snippets.py ROOT DOC.md [DOC.md...]

In a doc, a quoted block is a fenced code block right after a marker line:

    <!-- snippet: examples/embed_service/quickstart.cc#quickstart -->
    ```cpp
    ...
    ```

In the source (ROOT/examples/embed_service/quickstart.cc) the region is
the lines between `[snippet quickstart]` and `[end snippet quickstart]`
(each in a comment of its own line). The block must equal the region,
both dedented. A doc with no markers fails too: the check exists to be
used. Exits 1 listing every difference.
"""
import difflib
import os
import re
import sys
import textwrap

MARKER = re.compile(r"^<!--\s*snippet:\s*(\S+?)#(\S+)\s*-->\s*$")


def quoted_blocks(doc_path):
    """(line number, source path, region name, block text) per marker."""
    with open(doc_path) as f:
        lines = f.read().split("\n")
    blocks = []
    for i, line in enumerate(lines):
        m = MARKER.match(line.strip())
        if not m:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j >= len(lines) or not lines[j].lstrip().startswith("```"):
            blocks.append((i + 1, m.group(1), m.group(2), None))
            continue
        end = j + 1
        while end < len(lines) and not lines[end].lstrip().startswith("```"):
            end += 1
        blocks.append((i + 1, m.group(1), m.group(2), "\n".join(lines[j + 1:end])))
    return blocks


def source_region(path, name):
    with open(path) as f:
        lines = f.read().split("\n")
    begin = re.compile(r"\[snippet " + re.escape(name) + r"\]")
    end = re.compile(r"\[end snippet " + re.escape(name) + r"\]")
    starts = [i for i, line in enumerate(lines) if begin.search(line)]
    ends = [i for i, line in enumerate(lines) if end.search(line)]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        return None
    return "\n".join(lines[starts[0] + 1:ends[0]])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, docs = sys.argv[1], sys.argv[2:]
    problems, checked = [], 0
    for doc in docs:
        blocks = quoted_blocks(doc)
        if not blocks:
            problems.append(f"{doc}: no '<!-- snippet: PATH#NAME -->' markers")
        for line, path, name, block in blocks:
            where = f"{doc}:{line}: {path}#{name}"
            if block is None:
                problems.append(f"{where}: the marker is not followed by a fenced code block")
                continue
            full_path = os.path.join(root, path)
            if not os.path.exists(full_path):
                problems.append(f"{where}: no such file")
                continue
            region = source_region(full_path, name)
            if region is None:
                problems.append(f"{where}: no single '[snippet {name}]' ... "
                                f"'[end snippet {name}]' region in the file")
                continue
            want = textwrap.dedent(region).strip("\n")
            got = textwrap.dedent(block).strip("\n")
            checked += 1
            if got != want:
                diff = "\n".join(difflib.unified_diff(
                    want.split("\n"), got.split("\n"), f"{path} ({name})", doc, lineterm=""))
                problems.append(f"{where}: the doc's block differs from the source:\n{diff}")
    for p in problems:
        print(p)
    print(f"check_snippets: {checked} snippets checked, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
