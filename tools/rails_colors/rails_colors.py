#!/usr/bin/python3
"""Assign a cluster's failure domains to Rails colors (thesis section 5.6.2, grouping).

The drives are partitioned into N sets, the colors; every redundancy group (every PG) takes one
drive from each set, which the erails plugin's ordered CRUSH rule does once the sets exist as CRUSH
buckets. Whole failure domains (hosts by default) go to one color each, so no two colors share a
failure domain, and the colors are balanced by CRUSH weight (largest domain first, into the
lightest color).

    rails_colors.py --colors 6                 print the `ceph osd crush` commands
    rails_colors.py --colors 6 --apply         run them
    rails_colors.py --colors 6 --tree FILE     plan from saved `ceph osd tree -f json` output
"""

import argparse
import json
import subprocess
import sys


class PlanError(Exception):
    """A cluster or an argument that cannot be turned into colors; the message says why."""


def failure_domains(tree, domain_type):
    """Returns [(name, weight)] of every bucket of `domain_type` in `ceph osd tree -f json` output,
    its weight being the CRUSH weight of the OSDs under it."""
    try:
        nodes = {node["id"]: node for node in tree["nodes"]}
    except (KeyError, TypeError) as e:
        raise PlanError("not `ceph osd tree -f json` output: missing %s" % e)
    if domain_type == "osd":
        raise PlanError("--failure-domain must be a bucket type such as host; OSDs cannot be "
                        "moved as failure domains of their own here")

    def weight_under(node_id):
        node = nodes.get(node_id)
        if node is None:
            return 0.0
        if node_id >= 0:
            return float(node.get("crush_weight", 0.0))
        return sum(weight_under(child) for child in node.get("children", []))

    domains = [(node["name"], weight_under(node_id)) for node_id, node in nodes.items()
               if node.get("type") == domain_type]
    if not domains:
        types = sorted({node.get("type", "?") for node in nodes.values()})
        raise PlanError("no bucket of type %r in the CRUSH tree; types present: %s"
                        % (domain_type, ", ".join(types)))
    return domains


def assign(domains, colors):
    """Balanced partition of `domains` [(name, weight)] into `colors` lists of names.

    Largest weight first into the currently lightest color, ties by name and by color index,
    so the same cluster always gives the same plan."""
    if colors < 2:
        raise PlanError("--colors must be at least 2 (k+m of the erails profile), got %d" % colors)
    if len(domains) < colors:
        raise PlanError("%d colors need at least %d failure domains so that no two colors share "
                        "one; the CRUSH tree has %d" % (colors, colors, len(domains)))
    members = [[] for _ in range(colors)]
    totals = [0.0] * colors
    for name, weight in sorted(domains, key=lambda d: (-d[1], d[0])):
        lightest = min(range(colors), key=lambda c: (totals[c], c))
        members[lightest].append(name)
        totals[lightest] += weight
    return members, totals


def commands(members, prefix, color_type, root):
    """The `ceph` argument lists that create the color buckets and move the domains into them."""
    out = []
    for index, names in enumerate(members):
        color = "%s%d" % (prefix, index)
        out.append(["osd", "crush", "add-bucket", color, color_type])
        out.append(["osd", "crush", "move", color, "root=%s" % root])
        for name in names:
            out.append(["osd", "crush", "move", name, "%s=%s" % (color_type, color)])
    return out


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--colors", type=int, required=True, help="number of colors: k+m")
    parser.add_argument("--failure-domain", default="host",
                        help="bucket type kept whole inside one color (default host)")
    parser.add_argument("--color-type", default="rack",
                        help="CRUSH type of the color buckets (default rack)")
    parser.add_argument("--prefix", default="color", help="color bucket names: PREFIX0.. (default color)")
    parser.add_argument("--root", default="default", help="root the colors hang from (default default)")
    parser.add_argument("--tree", help="file with `ceph osd tree -f json` output (default: ask the cluster)")
    parser.add_argument("--apply", action="store_true", help="run the commands instead of printing them")
    args = parser.parse_args(argv)
    if args.color_type == args.failure_domain:
        parser.error("--color-type must differ from --failure-domain (%s)" % args.failure_domain)
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.tree:
            with open(args.tree) as f:
                text = f.read()
        else:
            text = subprocess.run(["ceph", "osd", "tree", "-f", "json"], check=True,
                                  capture_output=True, text=True).stdout
        try:
            tree = json.loads(text)
        except ValueError as e:
            raise PlanError("the CRUSH tree is not JSON: %s" % e)
        members, totals = assign(failure_domains(tree, args.failure_domain), args.colors)
    except (PlanError, OSError, subprocess.CalledProcessError) as e:
        print("rails_colors: %s" % e, file=sys.stderr)
        return 1

    plan = commands(members, args.prefix, args.color_type, args.root)
    for index, (names, total) in enumerate(zip(members, totals)):
        print("# %s%d: weight %.5f: %s" % (args.prefix, index, total, " ".join(names)))
    print("# profile: crush-colors=%s" % ",".join("%s%d" % (args.prefix, i) for i in range(args.colors)))
    for cmd in plan:
        print("ceph " + " ".join(cmd))
        if args.apply:
            result = subprocess.run(["ceph"] + cmd, capture_output=True, text=True)
            exists = cmd[2] == "add-bucket" and "already exists" in result.stderr
            if result.returncode != 0 and not exists:
                print("rails_colors: `ceph %s` failed: %s" % (" ".join(cmd), result.stderr.strip()),
                      file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
