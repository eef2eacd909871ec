"""The one way the test scripts stop for a missing fixture, golden file or ../shared
(tests/test_support.hpp's VMAFX_SKIP_IF_MISSING for the C++ tests).

missing(what) prints what is absent and where it was looked for, and returns the exit status:
77 (ctest's "skipped": SKIP_RETURN_CODE) or, under VMAFX_TESTS_STRICT=1 (set by
scripts/run_tests.sh, hence CI, when ../shared is present), 1: a failure with the same words.
A missing tool, library, GPU or oracle is no fixture: those skips return 77 in every mode."""
import os

SKIP = 77


def strict():
    """Whether VMAFX_TESTS_STRICT=1: missing fixtures and golden files fail instead of skipping."""
    return os.environ.get("VMAFX_TESTS_STRICT") == "1"


def missing(what):
    """Reports `what` (a sentence naming the absent fixture, golden file or ../shared and where
    it was looked for); returns 1 under VMAFX_TESTS_STRICT=1, else 77."""
    if strict():
        print(f"FAILED: missing (VMAFX_TESTS_STRICT=1: no skip): {what}")
        return 1
    print(f"skipped: {what}")
    return SKIP
