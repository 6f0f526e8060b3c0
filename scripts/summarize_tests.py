"""Counts test cases in Bazel's JUnit XML results and prints one summary line.

Usage: summarize_tests.py BAZEL_TESTLOGS_DIR BAZEL_EXIT_CODE

Each lit file is one case; each GoogleTest TEST is one case. The last line
is `tests: N passed, N failed` (with `, N skipped` when some were skipped).
"""
import pathlib
import sys
import xml.etree.ElementTree as ElementTree


def main() -> int:
    testlogs = pathlib.Path(sys.argv[1])
    passed = failed = skipped = 0
    failed_names = []
    for xml_file in sorted(testlogs.rglob("test.xml")):
        try:
            root = ElementTree.parse(xml_file).getroot()
        except ElementTree.ParseError:
            failed += 1
            failed_names.append(f"{xml_file.parent.relative_to(testlogs)} (unreadable test.xml)")
            continue
        for case in root.iter("testcase"):
            name = f"{xml_file.parent.relative_to(testlogs)}::{case.get('name')}"
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
                failed_names.append(name)
            elif case.find("skipped") is not None or case.get("result") == "suppressed":
                skipped += 1
            else:
                passed += 1
    bazel_exit = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    # Exit 3 means some tests failed (already counted); anything else
    # non-zero (a build error, a test that never ran) is one more failure.
    if bazel_exit not in (0, 3):
        failed += 1
        failed_names.append(f"bazel exited with code {bazel_exit} (build failure or tests not run)")
    for name in failed_names:
        print(f"FAILED: {name}")
    summary = f"tests: {passed} passed, {failed} failed"
    if skipped:
        summary += f", {skipped} skipped"
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
