"""The rails Module inside a stand-in for ceph-mgr: one rails pool over four colors of one OSD each,
OSD commands answered at once and recorded, so loop tests can drive serve() and read what the
module sent. Tests on a loaded machine cannot count on sleeps for how far the loop got, so the
stand-in also records the loop's passes and, for each lease grant, the module's own clock."""
import json
import logging
import time
import types

from maps import FOUR_COLORS, crush_map, osd_map, rails_profile


def make_rails_module(module_class, failing_pg_stats=0, answer_lease=None, answer_perf=None, options=None):
    """`failing_pg_stats`: how many reads of pg_stats raise first. `answer_lease(osd, command)` ->
    (r, outb, outs) answers `rails lease`, and `answer_perf(osd)` -> the JSON text `perf dump`
    answers; without them, like every other command, with success and "{}". `options`: module
    options besides poll_seconds 0.05."""
    class Mgr(module_class):
        def __init__(self):
            super().__init__()
            self.log = logging.getLogger("rails-test")
            self.commands = []  # (osd, command) in the order sent
            self.passes = []  # time.time() at the start of each pass of the loop (its OSD map check)
            self.command_passes = []  # for each of self.commands, len(self.passes) when it was sent
            # For each grant of a lease, (osd, time.time() when sent, the module's record of when
            # its previous grant to that OSD was sent, or None): the module's clock on both sides.
            self.grants = []
            self.health = {}
            self.pg_stats_failures = failing_pg_stats
            self.epoch = 1
            self.set_down([])

        def set_down(self, down):
            """A new OSD map in which the OSDs of `down` are down."""
            profiles = {"rp": rails_profile(list(FOUR_COLORS), rails_frame="6", rails_guard="0.6")}
            self.maps = {"osd_map": osd_map(profiles, {"rpool": "rp"}, [0, 1, 2, 3], down=down),
                         "osd_map_crush": crush_map(FOUR_COLORS)}
            self.epoch += 1

        def get_module_option(self, name):
            return dict(options or {}, poll_seconds=0.05).get(name)

        def get_osdmap(self):
            self.passes.append(time.time())
            return types.SimpleNamespace(get_epoch=lambda: self.epoch)

        def get(self, what):
            if what == "pg_stats":
                if self.pg_stats_failures:
                    self.pg_stats_failures -= 1
                    raise KeyError("pg_stats")
                return {"pg_stats": []}
            return self.maps[what]

        def get_metadata(self, kind, name):
            return {"osd_objectstore": "bluestore", "bluefs_dedicated_wal": "1", "bluefs_dedicated_db": "1"}

        def send_command(self, result, kind, name, command, inbuf):
            osd, parsed = int(name), json.loads(command)
            if parsed["prefix"] == "rails lease" and parsed["args"] != ["cancel"]:
                self.grants.append((osd, time.time(), self._leased.get(osd)))
            self.commands.append((osd, parsed))
            self.command_passes.append(len(self.passes))
            if answer_lease and parsed["prefix"] == "rails lease":
                result.r, result.outb, result.outs = answer_lease(osd, parsed)
            elif answer_perf and parsed["prefix"] == "perf dump":
                result.outb = answer_perf(osd)
            else:
                result.outb = "{}"
            result.ev.set()

        def mon_command(self, command):
            return 0, "{}", ""

        def set_health_checks(self, checks):
            self.health = checks

    return Mgr()
