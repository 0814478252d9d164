"""What Ceph's mclock_scheduler rests its costs on, per OSD, for the benchmarks that run it beside
QBox: its profile and the capacity each OSD measured at start or was given (Ceph 17 and later;
16.2's OSDs have no such options and answer "(none)")."""
import json
import subprocess

OPTIONS = ("osd_mclock_profile", "osd_mclock_max_capacity_iops_hdd", "osd_mclock_max_capacity_iops_ssd")


def mclock_settings(env, osds):
    """One line naming each OSD's values, from `ceph tell osd.N config get` with `env`'s cluster."""
    settings = []
    for osd in range(osds):
        values = []
        for name in OPTIONS:
            answer = subprocess.run(["ceph", "tell", f"osd.{osd}", "config", "get", name],
                                    env=env, capture_output=True, text=True, timeout=60)
            value = json.loads(answer.stdout).get(name) if answer.returncode == 0 else None
            values.append(f"{name}={value if value is not None else '(none)'}")
        settings.append(f"osd.{osd} " + " ".join(values))
    return "mclock_scheduler settings: " + "; ".join(settings)
