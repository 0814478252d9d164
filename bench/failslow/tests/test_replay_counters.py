import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "replay_counters.py")
RECORDING = os.path.join(HERE, "..", "..", "..", "src", "mgr", "tests", "data", "slow_osd2_reads_10x.jsonl")


def replay(path):
    return subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True, timeout=60)


def test_the_recording_replays_to_one_mark_of_osd2_and_its_clearing():
    done = replay(RECORDING)
    assert done.returncode == 0, done.stderr
    events = [line for line in done.stdout.splitlines() if "osd.2:" in line]
    assert len(events) == 2, events
    assert "osd.2: marked slow: read_lat" in events[0] and "no longer marked slow" in events[1]
    assert "osd.2 slow read_lat" in done.stdout


def test_a_file_that_is_not_a_recording_is_refused_with_its_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"t": 0, "osds": {}}\nnot json\n')
    done = replay(str(bad))
    assert done.returncode != 0 and f"{bad}:2: not a reading of record_counters.py" in done.stderr
    missing = replay(str(tmp_path / "none.jsonl"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
