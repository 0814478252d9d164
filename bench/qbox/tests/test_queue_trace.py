"""queue_trace.py on an invented trace, and the files it refuses."""
import csv

import pytest

import queue_trace

COLUMNS = ["time_s", "osd", "shard", "frontier", "account", "utilization", "accumulated_minus_frontier",
           "head_minus_frontier", "queued"]


def row(t, frontier, account, lead, head, queued):
    return dict(zip(COLUMNS, [str(t), "1", "OSD:ShardedOpWQ:0", str(frontier), str(account), "0.5", str(lead),
                              "" if head is None else str(head), str(queued)]))


def test_the_frontier_speed_and_each_accounts_emptiness_are_reported():
    rows = []
    for k in range(5):
        t, frontier = 4.0 + k, 100.0 + 3.0 * k  # 3 s of deadline per second
        rows.append(row(t, frontier, 3, 2.0, 0.5, 4))
        rows.append(row(t, frontier, 4, -1.0 if k % 2 else 0.0, None if k % 2 else 0.01, 0 if k % 2 else 2))
    rows.append(row(1.0, 0.0, 3, 0.0, None, 0))  # during the warm-up: left out
    lines = queue_trace.summarize(rows, 4.0)
    assert lines[0].startswith("osd.1 OSD:ShardedOpWQ:0: 5 polls over 4.0 s; frontier advanced 3.00 s per s")
    assert "largest advance between polls 3.00 s; unchanged between 0 of 4" in lines[0]
    assert "account  3 share 0.50: FIFO empty in 0% of polls; latest deadline - frontier, median 2.000 s; " \
           "head - frontier, median 0.500 s" in lines[1]
    assert "account  4 share 0.50: FIFO empty in 40% of polls" in lines[2]


def test_a_file_that_is_not_a_trace_is_refused(tmp_path, capsys):
    other = tmp_path / "prices.csv"
    other.write_text("time_s,osd,client\n1.0,0,client.a\n")
    with pytest.raises(SystemExit) as exit_info:
        queue_trace.main([str(other)])
    assert exit_info.value.code == 2
    assert f"trace: '{other}' is not a queue trace" in capsys.readouterr().err


def test_a_missing_file_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        queue_trace.main([str(tmp_path / "none.csv")])
    assert "trace: cannot read" in capsys.readouterr().err


def test_a_trace_with_too_few_polls_is_refused(tmp_path, capsys):
    path = tmp_path / "q.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerow(row(5.0, 10.0, 3, 0.0, None, 0))
    with pytest.raises(SystemExit):
        queue_trace.main([str(path)])
    assert "fewer than two polls of any queue after 4 s" in capsys.readouterr().err


def test_the_writes_lead_is_reported_where_the_trace_has_it():
    rows = []
    for k in range(4):
        r = row(4.0 + k, 100.0 + k, 3, 0.0, 0.1, 1)
        r.update(write_lead_s=str(10.0 - k), write_lead_drain_rate="0.25", write_lead_held="1" if k < 3 else "0")
        rows.append(r)
        rows.append(dict(r, account="4"))  # the same poll: counted once
    lines = queue_trace.summarize(rows, 4.0)
    assert lines[1] == ("  writes' lead: median 8.500 s, largest 10.000 s; drain rate median 0.25; "
                        "a write held for it in 75% of polls")
    assert "writes' lead" not in "\n".join(queue_trace.summarize([row(4.0 + k, k, 3, 0, None, 0) for k in range(3)], 4.0))
