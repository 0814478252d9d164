"""latency_client's loads against a stand-in for a librados ioctx that completes every operation
at once, so that the bookkeeping (sizes, names, failures) is checked without a cluster."""
from latency_client import run_reads, run_writes


class Completion:
    def __init__(self, value: int):
        self.value = value

    def get_return_value(self) -> int:
        return self.value


class InstantIoctx:
    """Completes each aio call before returning; reads of `short_object` return one byte less."""

    def __init__(self, short_object: str = ""):
        self.writes = []
        self.reads = []
        self.short_object = short_object

    def aio_write_full(self, name, data, oncomplete):
        self.writes.append((name, len(data)))
        oncomplete(Completion(0))

    def aio_read(self, name, length, offset, oncomplete):
        self.reads.append((name, length, offset))
        data = b"x" * (length - 1 if name == self.short_object else length)
        oncomplete(Completion(len(data)), data)


def test_writes_draw_sizes_from_the_list_and_wrap_names():
    ioctx = InstantIoctx()
    ops = run_writes(ioctx, 0.05, 0, 2, "w", sizes=(4096, 65536), objects=3)
    assert ops and all(op.ok for op in ops)
    assert {size for _, size in ioctx.writes} == {4096, 65536}
    assert [op.size for op in ops] == [size for _, size in ioctx.writes]
    assert {name for name, _ in ioctx.writes} == {"w-0", "w-1", "w-2"}


def test_writes_of_one_size_use_new_names():
    ioctx = InstantIoctx()
    run_writes(ioctx, 0.02, 8192, 1, "one")
    names = [name for name, _ in ioctx.writes]
    assert len(set(names)) == len(names) and {size for _, size in ioctx.writes} == {8192}


def test_reads_are_aligned_within_the_object_and_a_short_read_fails():
    ioctx = InstantIoctx(short_object="b")
    ops = run_reads(ioctx, 0.05, ["a", "b"], 65536, 4096, 4)
    assert len(ops) == len(ioctx.reads) > 10
    assert all(offset % 4096 == 0 and 0 <= offset <= 65536 - 4096 for _, _, offset in ioctx.reads)
    failed = sum(1 for op in ops if not op.ok)
    assert failed == sum(1 for name, _, _ in ioctx.reads if name == "b") > 0
    assert all(op.size == 4096 for op in ops)
