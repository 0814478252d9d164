"""How erails-ctl reaches a running controller: a RADOS notify on the module's control object,
answered by the active controller's watch. The notify carries the command as `ceph` sends it to
a mgr module (a JSON object with "prefix"); the reply carries (retval, stdout, stderr)."""
import json
from typing import Optional, Tuple

# The pool of the control objects, created by the first controller that finds none. Not
# ".erails": Reef reserves names beginning with a dot for Ceph's own pools.
DEFAULT_POOL = "erails"
APPLICATION = "erails"
# The controller that holds this lock on the control object is the active one; standbys wait
# for it. It expires unless renewed, so a controller that dies frees it; but only after every
# Rails lease it may have granted in its last LOCK_RENEW_SECONDS has run out (at most 30 s,
# rails.lease.lease_seconds at the longest poll), so the OSDs it held have released themselves
# before a standby holds them again.
LOCK_NAME = "active"
LOCK_SECONDS = 60
LOCK_RENEW_SECONDS = 10
# librados' flag that renews a lock this cookie holds: LIBRADOS_LOCK_FLAG_RENEW (alias MAY_RENEW),
# 1 in both builds' rados/librados.h.
LOCK_FLAG_RENEW = 1
# A command's answer waits this long at most; status and table changes take milliseconds.
NOTIFY_TIMEOUT_MS = 30000


def control_object(module: str) -> str:
    return f"{module}.control"


def service_name(module: str) -> str:
    """The controller's service in Ceph's service map (`ceph service dump`)."""
    return f"erails-{module}"


def encode_reply(retval: int, stdout: str, stderr: str) -> bytes:
    return json.dumps({"retval": retval, "stdout": stdout, "stderr": stderr}).encode()


def decode_reply(payload: bytes) -> Optional[Tuple[int, str, str]]:
    """None for a payload that is not a controller's reply."""
    try:
        reply = json.loads(payload)
        return int(reply["retval"]), str(reply["stdout"]), str(reply["stderr"])
    except (ValueError, KeyError, TypeError):
        return None
