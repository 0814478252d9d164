"""The Python schedule (src/mgr/rails/schedule.py) against the shared vectors, plus its validation."""
import math
import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
from rails import schedule

VECTORS = ROOT / "testdata" / "schedule_vectors.txt"
GENERATOR = ROOT / "testdata" / "gen_schedule_vectors.py"


def load_vectors():
    out = []
    for number, line in enumerate(VECTORS.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split()
        n = int(f[0])
        assert len(f) == 11 + n, f"line {number}: expected {11 + n} fields"
        out.append((number, n, float(f[1]), int(f[2]), float(f[3]), float(f[4]), float(f[5]),
                    int(f[6]), int(f[7]), int(f[8]), int(f[9]), float(f[10]), [float(x) for x in f[11:]]))
    return out


def test_vectors_match_generator():
    regenerated = subprocess.run([sys.executable, str(GENERATOR)], check=True,
                                 capture_output=True, text=True).stdout
    assert regenerated == VECTORS.read_text()


def test_every_vector():
    vectors = load_vectors()
    assert len(vectors) > 1000
    for (line, n, frame, readers, epoch, guard, t, want_frame, want_start, want_read, want_apply,
         want_switch, want_changes) in vectors:
        s = schedule.Schedule.create(schedule.ScheduleParams(n, frame, readers, epoch, guard))
        assert isinstance(s, schedule.Schedule), f"line {line}: {s}"
        got = (s.frame(t), s.window_start(t), s.read_set(t), s.apply_set(t), s.next_switch(t),
               [s.next_phase_change(c, t) for c in range(n)])
        assert got == (want_frame, want_start, want_read, want_apply, want_switch, want_changes), \
            f"line {line}"


@pytest.mark.parametrize("params,key", [
    ((1, 1.0, 1, 0.0, 0.0), "k+m"),
    ((65, 1.0, 1, 0.0, 0.0), "k+m"),
    ((4, 0.0, 1, 0.0, 0.0), "rails-frame"),
    ((4, -1.0, 1, 0.0, 0.0), "rails-frame"),
    ((4, math.inf, 1, 0.0, 0.0), "rails-frame"),
    ((4, math.nan, 1, 0.0, 0.0), "rails-frame"),
    ((4, 0.0005, 1, 0.0, 0.0), "rails-frame"),
    ((4, 1.0, 0, 0.0, 0.0), "rails-readers"),
    ((4, 1.0, 4, 0.0, 0.0), "rails-readers"),
    ((4, 1.0, 2, math.nan, 0.0), "rails-epoch"),
    ((4, 1.0, 2, -2e12, 0.0), "rails-epoch"),
    ((4, True, 2, 0.0, 0.0), "rails-frame"),
    ((4, 1.0, 2.0, 0.0, 0.0), "rails-readers"),
    ((4, 1.0, 2, 0.0, -0.1), "rails-guard"),
    ((4, 1.0, 2, 0.0, 1.0), "rails-guard"),
])
def test_bad_parameters_name_the_key(params, key):
    result = schedule.Schedule.create(schedule.ScheduleParams(*params))
    assert isinstance(result, schedule.ParamError)
    assert result.key == key
    assert key in result.message and "accepted" in result.message
    with pytest.raises(ValueError, match=re.escape(key)):
        schedule.Schedule(schedule.ScheduleParams(*params))


def test_switch_is_exact_boundary_with_inexact_frame():
    # 0.1 is not a double: the boundary must still be the exact point where the frame flips.
    s = schedule.Schedule(schedule.ScheduleParams(5, 0.1, 3, 1700000000.0, 0.02))
    t = 1700000123.456
    sw = s.next_switch(t)
    assert sw > t
    assert s.frame(sw) == s.frame(t) + 1
    assert s.frame(math.nextafter(sw, -math.inf)) == s.frame(t)


def test_phase_queries_agree_with_the_read_set():
    s = schedule.Schedule(schedule.ScheduleParams(4, 1.0, 2, 0.0, 0.25))
    assert s.read_colors(0.5) == [0, 1]
    assert s.read_colors(3.5) == [0, 3]  # the window wraps around the ring
    assert s.is_read_phase(3, 3.5) and not s.is_read_phase(2, 3.5)
    # Color 2 becomes a reader at t = 1: it stops applying writes 0.25 s before.
    assert s.may_apply_writes(2, 0.74)
    assert not s.may_apply_writes(2, 0.75)
    assert s.may_apply_writes(3, 0.99)
    assert not s.may_apply_writes(0, 0.5)
    assert s.next_phase_change(0, 0.5) == 1.0
    assert s.next_phase_change(3, 0.5) == 2.0
