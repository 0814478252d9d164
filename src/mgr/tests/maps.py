"""Small OSD-map and CRUSH-map dicts shaped like `ceph osd dump -f json` and
`ceph osd crush dump -f json`, for tests that need a cluster's maps without a cluster."""
from typing import Dict, List


def rails_profile(colors: List[str], k: int = 2, m: int = 2, **rails: str) -> Dict[str, str]:
    profile = {"plugin": "erails", "k": str(k), "m": str(m), "crush-colors": ",".join(colors)}
    profile.update({key.replace("_", "-"): value for key, value in rails.items()})
    return profile


def crush_map(color_osds: Dict[str, List[int]]) -> dict:
    """root default -> one rack per color -> one host per OSD -> the OSD (the layout start.sh plus
    the `ceph osd crush move` commands of doc/rails.rst produce)."""
    buckets = []
    next_id = -2
    racks = []
    for color, osds in color_osds.items():
        hosts = []
        for osd in osds:
            buckets.append({"id": next_id, "name": f"host-{osd}", "type_name": "host",
                            "items": [{"id": osd, "weight": 65536, "pos": 0}]})
            hosts.append(next_id)
            next_id -= 1
        buckets.append({"id": next_id, "name": color, "type_name": "rack",
                        "items": [{"id": h, "weight": 65536, "pos": i} for i, h in enumerate(hosts)]})
        racks.append(next_id)
        next_id -= 1
    buckets.append({"id": -1, "name": "default", "type_name": "root",
                    "items": [{"id": r, "weight": 65536, "pos": i} for i, r in enumerate(racks)]})
    return {"buckets": buckets, "devices": []}


def osd_map(profiles: Dict[str, Dict[str, str]], pools: Dict[str, str], osds: List[int],
            down: List[int] = (), up_from: Dict[int, int] = None) -> dict:
    """pools: pool name -> profile name ("" for a replicated pool)."""
    up_from = up_from or {}
    return {
        "erasure_code_profiles": profiles,
        "pools": [{"pool": i + 1, "pool_name": name, "erasure_code_profile": profile}
                  for i, (name, profile) in enumerate(pools.items())],
        "osds": [{"osd": o, "up": 0 if o in down else 1, "in": 1, "up_from": up_from.get(o, 5)} for o in osds],
    }


FOUR_COLORS = {"color0": [0], "color1": [1], "color2": [2], "color3": [3]}
