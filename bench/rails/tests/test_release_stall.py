"""release_stall.py's budgets: MiB values within the module's range, or none (the module's own)."""
import pytest

from release_stall import parse_budgets


def test_budgets_are_whole_mib_in_order_or_the_modules_own():
    assert parse_budgets("512,128,64") == [512, 128, 64]
    assert parse_budgets("") == [None]


@pytest.mark.parametrize("text", ["0", "64,", "1.5", "big", str((1 << 30) + 1)])
def test_bad_budgets_are_refused_naming_the_option_and_the_range(text):
    with pytest.raises(SystemExit, match=f"--budgets-mib '{text}': accepted: comma-separated whole MiB, each 1..1073741824"):
        parse_budgets(text)
