"""The fault suite's own arithmetic (qa/workunits/erails/rails_faults.py), without a cluster."""
from rails_faults import Sample, longest_wait


def test_a_held_write_waits_from_the_first_bytes_held_until_the_next_application():
    samples = [Sample(0.0, 0, True, 0, 5), Sample(1.0, 0, True, 100, 5), Sample(2.0, 0, True, 300, 5),
               Sample(31.5, 0, True, 900, 5), Sample(32.0, 0, True, 10, 6), Sample(33.0, 0, False, 0, 6),
               Sample(0.0, 1, True, 50, 1), Sample(4.0, 1, None, None, None), Sample(5.0, 1, True, 60, 1)]
    # osd.0 held bytes from t=1 until the application seen at t=32; osd.1 never applied (5 s so far).
    assert longest_wait(samples) == {0: 31.0, 1: 5.0}


def test_an_osd_holding_nothing_waits_for_nothing():
    assert longest_wait([Sample(float(t), 2, False, 0, 7) for t in range(10)]) == {2: 0.0}
