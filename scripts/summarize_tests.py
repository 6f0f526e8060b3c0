"""Counts test cases in Bazel's JUnit XML results and prints one summary line.

Usage: summarize_tests.py BAZEL_TESTLOGS_DIR BAZEL_EXIT_CODE
                           [NAME BAZEL_TESTLOGS_DIR BAZEL_EXIT_CODE]...

Each lit file is one case; each GoogleTest TEST is one case; a test without
cases of its own (a fuzz test) is one. Further test sets (the sanitizer and
fuzz runs, which have testlogs of their own) each get a line
`NAME: N passed, N failed`; the last line is the total over every set,
`tests: N passed, N failed` (with `, N skipped` when some were skipped).
"""
import pathlib
import sys
import xml.etree.ElementTree as ElementTree


def count(testlogs: pathlib.Path, bazel_exit: int, label: str):
    passed = failed = skipped = 0
    failed_names = []
    for xml_file in sorted(testlogs.rglob("test.xml")):
        try:
            root = ElementTree.parse(xml_file).getroot()
        except ElementTree.ParseError:
            failed += 1
            failed_names.append(f"{label}{xml_file.parent.relative_to(testlogs)} (unreadable test.xml)")
            continue
        for case in root.iter("testcase"):
            name = f"{label}{xml_file.parent.relative_to(testlogs)}::{case.get('name')}"
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failed_names.append(name)
            elif case.find("skipped") is not None or case.get("result") == "suppressed":
                skipped += 1
            else:
                passed += 1
    # Exit 3 means some tests failed (already counted); anything else
    # non-zero (a build error, a test that never ran) is one more failure.
    if bazel_exit not in (0, 3):
        failed += 1
        failed_names.append(f"{label}bazel exited with code {bazel_exit} (build failure or tests not run)")
    return passed, failed, skipped, failed_names


def main() -> int:
    args = sys.argv[1:]
    sets = [("", args[0], args[1] if len(args) > 1 else "0")]
    rest = args[2:]
    if len(rest) % 3:
        print("usage: summarize_tests.py TESTLOGS EXIT [NAME TESTLOGS EXIT]...", file=sys.stderr)
        return 2
    sets += [tuple(rest[i:i + 3]) for i in range(0, len(rest), 3)]
    passed = failed = skipped = 0
    failed_names = []
    for name, testlogs, bazel_exit in sets:
        label = f"[{name}] " if name else ""
        p, f, s, names = count(pathlib.Path(testlogs), int(bazel_exit), label)
        if name:
            print(f"{name}: {p} passed, {f} failed" + (f", {s} skipped" if s else ""))
        passed, failed, skipped = passed + p, failed + f, skipped + s
        failed_names += names
    for name in failed_names:
        print(f"FAILED: {name}")
    summary = f"tests: {passed} passed, {failed} failed"
    if skipped:
        summary += f", {skipped} skipped"
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
