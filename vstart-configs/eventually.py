"""Waiting for what a local cluster only does eventually (a daemon up, a module loaded, a table
pushed): poll with a deadline and name what was awaited when it does not come. The tests and
benchmarks that drive local clusters use this rather than a sleep followed by one look."""
import time


class TimedOut(AssertionError):
    """An AssertionError, so that pytest reports it as the test's failure."""


def wait_for(what, predicate, timeout, interval=0.5):
    """Returns predicate()'s first true value, polled every `interval` s by the monotonic clock;
    raises TimedOut naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise TimedOut(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)
