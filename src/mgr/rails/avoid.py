"""What the module tells OSDs about slow OSDs (`ceph tell osd.N rails avoid`, src/rails_osd/avoid.h),
and how it names the marks in health and status; pure.

The plugin sees shard indices, not OSDs, so a mark reaches it as the colors that hold the slow
OSD: on a pool with crush-colors shard i of every PG is on color i, and reads leave that color's
shard out when k others are there. A color of several OSDs is left out for every PG, also those
whose shard i is on a healthy OSD of it: those reads decode from another shard instead, which
costs CPU, not device time. Pools without crush-colors get no read-around.
"""
import time
from typing import Dict, List

from .slow_osds import Mark
from .topology import Topology

AVOID_PREFIX = "rails avoid"
# Renewals of a mark that may be missed before it ends: it outlives the module's loss by at most
# this many windows plus the commands' timeouts.
WINDOWS_PER_MARK = 3


def avoid_seconds(window_seconds: float, command_timeout_seconds: float) -> float:
    """A mark's length: renewed every window, it survives two missed renewals and two rounds of
    commands that time out."""
    return WINDOWS_PER_MARK * window_seconds + 2 * command_timeout_seconds


def avoid_command(colors: List[str], seconds: float) -> dict:
    return {"prefix": AVOID_PREFIX, "format": "json", "args": [f"seconds={seconds:g}", "colors=" + ",".join(colors)]}


def clear_command() -> dict:
    return {"prefix": AVOID_PREFIX, "format": "json", "args": ["clear"]}


def colors_of(osds: List[int], topology: Topology) -> Dict[int, List[str]]:
    """osd -> the color buckets (of pools with crush-colors) that hold it, sorted. The health
    checks ask at every pass of the loop, almost always for no OSD: that costs nothing."""
    if not osds:
        return {}
    colored = topology.colored_osds()
    return {osd: sorted({pool.colors[index].name for pool, index in colored.get(osd, [])}) for osd in osds}


def avoided_colors(marks: Dict[int, Mark], topology: Topology) -> List[str]:
    return sorted({color for colors in colors_of(list(marks), topology).values() for color in colors})


def mark_lines(marks: Dict[int, Mark], topology: Topology) -> List[str]:
    """One line per marked OSD: its figure, since when (UTC, so that a health check's text changes
    only with its figure), and what reads do about it."""
    lines = []
    for osd, colors in sorted(colors_of(list(marks), topology).items()):
        mark = marks[osd]
        effect = (f"erails reads avoid color(s) {', '.join(colors)}" if colors else
                  "no pool with crush-colors holds it, so no read avoids it (replicated pools: primary affinity)")
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(mark.since))
        lines.append(f"osd.{osd}: {mark.figure.describe()}; marked since {since} UTC; {effect}")
    return lines
