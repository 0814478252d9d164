"""osd_accounting.py on invented prices rows, and the files it refuses."""
import pytest

import osd_accounting


def row(t, osd, busy, client, achieved, backlogged):
    return {"time_s": str(t), "osd": str(osd), "busy_outstanding": str(busy), "client": client,
            "achieved": str(achieved), "backlogged": str(backlogged)}


def test_saturated_windows_and_each_clients_medians_are_reported():
    rows = [row(t, 0, busy, c, a, b)
            for t, busy in ((5.0, 1.0), (7.0, 0.995), (9.0, 0.5))
            for c, a, b in (("client.w", 0.8 if t < 9 else 0.2, 1.0), ("client.r", 0.1, 0.9))]
    rows.append(row(1.0, 0, 0.1, "client.r", 0.9, 0.0))  # the warm-up: left out
    lines = osd_accounting.summarize(rows, 4.0)
    assert lines[0] == "osd.0: ops outstanding all of 2 of 3 windows; busy median 0.99"
    assert lines[1] == "  client.r: achieved median 0.10; ops queued a median 0.90 of each window"
    assert lines[2] == "  client.w: achieved median 0.80; ops queued a median 1.00 of each window"


def test_the_holds_are_counted_from_the_first_sample_after_the_warm_up():
    rows = [dict(row(t, 1, 1.0, "client.r", 0.5, 0.5), holds=str(n), held_s=str(held), held_idle_s=str(idle))
            for t, n, held, idle in ((2.0, 0, 0, 0), (5.0, 90000, 0.5, 0.1), (15.0, 90450, 3.25, 1.5))]
    lines = osd_accounting.summarize(rows, 4.0)
    assert lines[1] == "  writes held: 90000 by 5 s, then 45.0 a second to 15 s; 3.25 s held, 1.50 s of it idle"


def test_the_time_paced_with_nothing_running_is_reported_where_recorded():
    rows = [dict(row(t, 1, 1.0, "client.r", 0.5, 0.5), holds=str(n), held_s="0.5", held_idle_s="0.1",
                 paced_idle_s=str(paced))
            for t, n, paced in ((5.0, 100, 0.25), (15.0, 200, 2.5))]
    lines = osd_accounting.summarize(rows, 4.0)
    assert lines[1] == ("  writes held: 100 by 5 s, then 10.0 a second to 15 s; 0.50 s held, 0.10 s of it idle;"
                        " 2.50 s paced, nothing running")


def fit(t, osd, per_op, per_mib):
    return {"time_s": str(t), "osd": str(osd), "write_ms_per_op": str(per_op), "write_ms_per_mib": str(per_mib)}


def test_the_write_price_fits_say_how_often_a_per_op_term_was_kept():
    rows = [row(t, osd, 1.0, "client.r", 0.5, 0.5) for t in (5.0, 7.0) for osd in (0, 1)]
    fits = [fit(1.0, 0, 90.0, 50.0), fit(5.0, 0, 0.0, 120.0), fit(8.0, 0, 12.4, 80.0), fit(11.0, 0, 1.5, 100.0),
            fit(5.0, 1, 0.0, 70.0)]
    lines = osd_accounting.summarize(rows, 4.0, fits)
    assert lines[1] == "  write price: 3 fits, the per-op term in 2 (1.5-12.4 ms per write); 80-120 ms per MiB"
    assert lines[4] == "  write price: 1 fits, the per-op term in 0; 70-70 ms per MiB"


FIT_COLUMNS = "time_s,osd,number,ops,mib,residual_s,write_ms_per_op,write_ms_per_mib\n"


def prices_beside_fits(tmp_path, fits_text):
    """A run's prices file of one sample, with `fits_text` as the write fits file beside it."""
    prices = tmp_path / "run_fig3_2w_qbox_prices.csv"
    prices.write_text("time_s,osd,busy_outstanding,client,achieved,backlogged\n5.0,0,1.0,client.r,0.5,0.5\n")
    (tmp_path / "run_fig3_2w_qbox_write_fit.csv").write_text(fits_text)
    return prices


def test_the_write_fit_file_beside_the_prices_is_read(tmp_path, capsys):
    prices = prices_beside_fits(tmp_path, FIT_COLUMNS + "5.0,0,3,10,10.0,1.2,0.0,120.0\n")
    osd_accounting.main([str(prices)])
    assert "  write price: 1 fits, the per-op term in 0; 120-120 ms per MiB" in capsys.readouterr().out


def test_a_run_without_fits_prints_no_fit_line(tmp_path, capsys):
    prices = prices_beside_fits(tmp_path, FIT_COLUMNS)
    osd_accounting.main([str(prices)])
    assert "write price" not in capsys.readouterr().out


def test_a_fit_file_without_its_columns_is_refused(tmp_path, capsys):
    prices = prices_beside_fits(tmp_path, "time_s,osd\n5.0,0\n")
    with pytest.raises(SystemExit):
        osd_accounting.main([str(prices)])
    assert "_write_fit.csv' is not a write price fits file" in capsys.readouterr().err


def test_prices_without_the_per_osd_accounting_are_refused(tmp_path, capsys):
    old = tmp_path / "old_prices.csv"
    old.write_text("time_s,osd,client,write_ms\n1.0,0,client.a,3\n")
    with pytest.raises(SystemExit) as exit_info:
        osd_accounting.main([str(old)])
    assert exit_info.value.code == 2
    assert "has no per-OSD accounting" in capsys.readouterr().err


def test_a_missing_file_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        osd_accounting.main([str(tmp_path / "none.csv")])
    assert "prices: cannot read" in capsys.readouterr().err
