#!/usr/bin/env python3
"""//examples/custom_pass:doc_test_substitution_test: the doc tests' rewrite
of the pages' run blocks (doc_test.runnable_text) follows KILN_CACHE.

The pages say ~/.cache/kiln/venv/bin/python; the doc tests run the test's own
Python instead, which lies under KILN_CACHE. With KILN_CACHE under /tmp the
/tmp/ -> scratch rewrite used to move that Python into the scratch folder too,
and both doc tests failed.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_test  # noqa: E402  (examples/custom_pass/doc_test.py)

SCRATCH = "/scratch/kiln-doc-1/tmp/"


class RunnableTextTest(unittest.TestCase):
    def test_default_cache(self):
        python = "/home/u/.cache/kiln/venv/bin/python"
        self.assertEqual(
            doc_test.runnable_text(
                "~/.cache/kiln/venv/bin/python make.py /tmp/m.onnx\n", SCRATCH, python),
            python + " make.py /scratch/kiln-doc-1/tmp/m.onnx\n")

    def test_cache_under_tmp_keeps_the_python(self):
        python = "/tmp/kc-fresh/venv/bin/python"
        text = ("~/.cache/kiln/venv/bin/python make.py /tmp/swish.onnx\n"
                "kilnc /tmp/swish.onnx -o /tmp/swish.kiln\n")
        self.assertEqual(
            doc_test.runnable_text(text, SCRATCH, python),
            "/tmp/kc-fresh/venv/bin/python make.py /scratch/kiln-doc-1/tmp/swish.onnx\n"
            "kilnc /scratch/kiln-doc-1/tmp/swish.onnx -o /scratch/kiln-doc-1/tmp/swish.kiln\n")

    def test_python_twice_and_no_python(self):
        python = "/tmp/kc/venv/bin/python"
        self.assertEqual(
            doc_test.runnable_text(
                "~/.cache/kiln/venv/bin/python a.py && ~/.cache/kiln/venv/bin/python b.py",
                SCRATCH, python),
            "/tmp/kc/venv/bin/python a.py && /tmp/kc/venv/bin/python b.py")
        self.assertEqual(doc_test.runnable_text("ls /tmp/x /tmpfoo\n", SCRATCH, python),
                         "ls /scratch/kiln-doc-1/tmp/x /tmpfoo\n")


if __name__ == "__main__":
    unittest.main()
