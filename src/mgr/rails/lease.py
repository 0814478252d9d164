"""The OSD-side Rails lease (src/rails_osd, `ceph tell osd.N rails lease`): granted with every hold
and renewed every RENEW_INTERVAL_SECONDS while the OSD is held; when no renewal comes in
time (the module disabled, its mgr killed or stuck), the OSD applies the release given here by
itself. The release is exactly what the module sends at a release (settings.release_args and
settings.unslow_command, and the module's kick write), carried in the lease, so that the OSD
holds no copy of it.
"""
import json
from typing import Dict, Iterable, List, Mapping

from .settings import release_args, unslow_command

LEASE_PREFIX = "rails lease"
# The errno an OSD answers when it has no `rails lease` (an older libec_erails.so, a ceph-osd
# build off the lease's allow-list, or no erails PG that loaded the plugin): EINVAL, "invalid
# command" (doc/dev/ceph-abi.md).
NO_LEASE_ERRNO = -22
# How many rounds of OSD commands, each bounded by the module's command timeout, one pass of the
# control loop may spend waiting on OSDs that do not answer before its leases run out.
SLOW_ROUNDS_TOLERATED = 2
# How long after its last grant a held OSD's lease is renewed. Renewing at every pass sent each
# held OSD two `ceph tell`s a second at the default poll_seconds (0.5 s), each one a line in the
# OSD's log. 5 s sends a tenth of that; it lengthens the lease by as much (25.5 s by default, at
# most 30 s at poll_seconds' largest value, 5 s), which is how much longer an OSD stays held
# after its module stopped, and a lapsed lease is noticed up to that much later (lease_seconds).
RENEW_INTERVAL_SECONDS = 5.0


def lease_seconds(poll_seconds: float, command_timeout_seconds: float) -> float:
    """The lease's length. A held OSD's lease is renewed at the first pass of the control loop
    that starts RENEW_INTERVAL_SECONDS or more after its last grant was sent (renewals_due). The
    loop wakes at least every poll_seconds whatever the frame (it sleeps until the next switch or
    guard, at most that long), so the frame does not enter; a pass takes milliseconds unless OSDs
    do not answer, and each round of commands then waits command_timeout_seconds. So the renewal
    is sent at most RENEW_INTERVAL_SECONDS + poll_seconds + the pass in progress after the last
    grant, and the lease outlasts that with SLOW_ROUNDS_TOLERATED such rounds in that pass: past
    the renewal's due time it keeps exactly the margin it had when every pass renewed. A pass
    that waits longer lets leases run out: those OSDs release themselves (no Rails for a moment,
    never a hold without an end). Only the answer of the next renewal says so, up to
    RENEW_INTERVAL_SECONDS + poll_seconds after the lapse (the module's check of the OSDs'
    settings every perf_seconds may see it first); until then the module counts them as held, and
    then it sends their holds again."""
    return RENEW_INTERVAL_SECONDS + poll_seconds + SLOW_ROUNDS_TOLERATED * command_timeout_seconds


def renewals_due(held: Iterable[int], granted_at: Mapping[int, float], now: float) -> List[int]:
    """The held OSDs whose lease is renewed at the pass that starts at `now`: those whose last
    successful grant was sent RENEW_INTERVAL_SECONDS or more before, and those with none on record
    (their grant failed: it is tried again at every pass). granted_at holds the time each grant
    was sent, not answered: the OSD starts its lease when the grant arrives, which is no earlier,
    so the lease never ends before granted_at + its length."""
    return sorted(osd for osd in held
                  if osd not in granted_at or now - granted_at[osd] >= RENEW_INTERVAL_SECONDS)


def grant_command(seconds: float, kick_bytes: int) -> dict:
    """`rails lease seconds=... release=... unset=... kick=...`: grants or renews the lease."""
    settings = [arg[2:] if arg.startswith("--") else arg for arg in release_args()]
    return {"prefix": LEASE_PREFIX, "format": "json",
            "args": [f"seconds={seconds:g}", "release=" + ",".join(settings),
                     "unset=" + unslow_command()["var"], f"kick={kick_bytes}"]}


def cancel_command() -> dict:
    """Drops the lease of an OSD the module released itself."""
    return {"prefix": LEASE_PREFIX, "format": "json", "args": ["cancel"]}


def lapsed(answer: str) -> bool:
    """Whether a grant's answer says the OSD released itself since its previous grant (so the hold
    the module believes in is gone). An answer that cannot be read counts as not lapsed: the
    module's periodic check of the OSDs' settings catches a lost hold anyway."""
    try:
        return bool(json.loads(answer).get("lapsed_at_last_grant", False))
    except (ValueError, AttributeError):
        return False


def no_lease_detail(osds: Dict[int, str]) -> List[str]:
    """RAILS_NO_LEASE's detail lines, from osd -> the OSD's answer to the grant."""
    return [f"osd.{osd} refused the Rails lease ({why}): if the module stops, its hold ends only by "
            f"BlueStore's own bounds" for osd, why in sorted(osds.items())]
