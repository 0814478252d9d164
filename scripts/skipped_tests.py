#!/usr/bin/env python3
"""Lists the tests a ctest run skipped, each with the reason it printed, from the run's JUnit file
(ctest --output-junit): a skipped test is a test that did not run, and the list says why.

    scripts/skipped_tests.py JUNIT_FILE [--fail]

Exits 1 with --fail when any test was skipped (CI, where everything the tests need is installed);
2 when the file cannot be read."""
import re
import sys
import xml.etree.ElementTree as ElementTree

# pytest's -rs lines and the package test's own message say why a test skipped.
REASON = re.compile(r"^(SKIPPED \[\d+\] .*|.*skipped: .*)$", re.MULTILINE)


def skipped(junit_path):
    """[(test name, [reason lines])] of the skipped tests, in the file's order."""
    found = []
    for case in ElementTree.parse(junit_path).getroot().iter("testcase"):
        if case.get("status") == "notrun" or case.find("skipped") is not None:
            output = case.findtext("system-out") or ""
            found.append((case.get("name"), REASON.findall(output)))
    return found


def main(argv):
    args = [a for a in argv if a != "--fail"]
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        tests = skipped(args[0])
    except (OSError, ElementTree.ParseError) as error:
        print(f"skipped_tests.py: cannot read {args[0]}: {error}", file=sys.stderr)
        return 2
    if not tests:
        return 0
    print(f"{len(tests)} test(s) skipped, so not run:")
    for name, reasons in tests:
        print(f"  {name}: " + ("; ".join(reasons) if reasons else "no reason printed (ctest -R '^{name}$' -V shows it)"))
    return 1 if "--fail" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
