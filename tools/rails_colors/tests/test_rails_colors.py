import json

import pytest

import rails_colors


def tree(host_weights):
    """`ceph osd tree -f json`-shaped data: one root, one host per entry, one OSD per host."""
    nodes = [{"id": -1, "name": "default", "type": "root",
              "children": [-2 - i for i in range(len(host_weights))]}]
    for i, weight in enumerate(host_weights):
        nodes.append({"id": -2 - i, "name": "host-%d" % i, "type": "host", "children": [i]})
        nodes.append({"id": i, "name": "osd.%d" % i, "type": "osd", "crush_weight": weight})
    return {"nodes": nodes, "stray": []}


def test_one_host_per_color_when_counts_match():
    members, totals = rails_colors.assign(rails_colors.failure_domains(tree([1.0] * 6), "host"), 6)
    assert sorted(name for names in members for name in names) == ["host-%d" % i for i in range(6)]
    assert all(len(names) == 1 for names in members)
    assert totals == [1.0] * 6


def test_colors_are_balanced_by_weight_and_share_no_host():
    weights = [4.0, 3.0, 3.0, 2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.5, 0.5]
    members, totals = rails_colors.assign(rails_colors.failure_domains(tree(weights), "host"), 4)
    names = [name for group in members for name in group]
    assert len(names) == len(set(names)) == len(weights)
    # Largest-first into the lightest color: the spread is at most the largest domain.
    assert max(totals) - min(totals) <= max(weights)
    assert sum(totals) == pytest.approx(sum(weights))


def test_plan_is_deterministic():
    domains = rails_colors.failure_domains(tree([1.0, 2.0, 1.0, 2.0, 3.0]), "host")
    assert rails_colors.assign(domains, 3) == rails_colors.assign(list(reversed(domains)), 3)


def test_commands_create_colors_then_move_hosts():
    cmds = rails_colors.commands([["host-0"], ["host-1"]], "color", "rack", "default")
    assert cmds == [["osd", "crush", "add-bucket", "color0", "rack"],
                    ["osd", "crush", "move", "color0", "root=default"],
                    ["osd", "crush", "move", "host-0", "rack=color0"],
                    ["osd", "crush", "add-bucket", "color1", "rack"],
                    ["osd", "crush", "move", "color1", "root=default"],
                    ["osd", "crush", "move", "host-1", "rack=color1"]]


def test_too_few_failure_domains_is_refused():
    with pytest.raises(rails_colors.PlanError, match="6 colors need at least 6 failure domains"):
        rails_colors.assign(rails_colors.failure_domains(tree([1.0] * 4), "host"), 6)


def test_bad_inputs_name_the_problem():
    with pytest.raises(rails_colors.PlanError, match="--colors must be at least 2"):
        rails_colors.assign([("h", 1.0)], 1)
    with pytest.raises(rails_colors.PlanError, match="no bucket of type 'rack'.*types present: host, osd, root"):
        rails_colors.failure_domains(tree([1.0]), "rack")
    with pytest.raises(rails_colors.PlanError, match="must be a bucket type"):
        rails_colors.failure_domains(tree([1.0]), "osd")
    with pytest.raises(rails_colors.PlanError, match="missing"):
        rails_colors.failure_domains({"not": "a tree"}, "host")


def test_cli_prints_plan_and_profile(tmp_path, capsys):
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(tree([1.0, 1.0, 1.0])))
    assert rails_colors.main(["--colors", "3", "--tree", str(path)]) == 0
    out = capsys.readouterr().out
    assert "# profile: crush-colors=color0,color1,color2" in out
    assert "ceph osd crush move host-2 rack=color2" in out


def test_cli_reports_errors_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "tree.json"
    path.write_text("{not json")
    assert rails_colors.main(["--colors", "3", "--tree", str(path)]) == 1
    assert "the CRUSH tree is not JSON" in capsys.readouterr().err
    assert rails_colors.main(["--colors", "3", "--tree", str(tmp_path / "missing.json")]) == 1
    with pytest.raises(SystemExit):
        rails_colors.main(["--colors", "3", "--color-type", "host"])
