"""Which global ids the OSDs see for each cephx client name, from the monitors' session lists.

An OSD knows a client's op only by the client's global id (the op's owner, client.<id>), never by
its cephx name. Each monitor's `sessions` command lists, per session, the cephx name
(entity_name, e.g. client.alice) and the global id the monitor gave it (global_id); the ids in
ops reaching an OSD were those global ids (doc/dev/qbox-mgr.md, measured on 16.2.15). A session
whose name carries a number (client.4131) was seen with a different global_id (4133) from the same
process, so both numbers are taken: an id no op carries costs nothing.
"""
import re
from typing import Any, Dict, Iterable, List, Set

NUMBERED_NAME = re.compile(r"client\.([0-9]+)")


def owners_by_name(session_lists: Iterable[Any]) -> Dict[str, List[int]]:
    """cephx client name -> sorted global ids of its open sessions, over every monitor's list.
    Entries that are not client sessions, or not shaped as expected, are skipped."""
    owners: Dict[str, Set[int]] = {}
    for sessions in session_lists:
        if not isinstance(sessions, list):
            continue
        for session in sessions:
            if not isinstance(session, dict) or session.get("con_type") != "client":
                continue
            name = session.get("entity_name")
            if not isinstance(name, str) or not name.startswith("client."):
                continue
            ids = owners.setdefault(name, set())
            global_id = session.get("global_id")
            if isinstance(global_id, int) and not isinstance(global_id, bool) and global_id > 0:
                ids.add(global_id)
            numbered = NUMBERED_NAME.fullmatch(str(session.get("name", "")))
            if numbered:
                ids.add(int(numbered.group(1)))
    return {name: sorted(ids) for name, ids in owners.items() if ids}


def without_shared(owners: Dict[str, List[int]]) -> Dict[str, List[int]]:
    """The OSD library refuses a table in which one id belongs to two entries. A global id is
    unique in a cluster, so a shared one means stale session lists of two monitors; it is left out
    of both rather than given to the wrong client."""
    seen: Dict[int, int] = {}
    for ids in owners.values():
        for owner in ids:
            seen[owner] = seen.get(owner, 0) + 1
    return {name: [owner for owner in ids if seen[owner] == 1] for name, ids in owners.items()}
