"""The qbox module against a stand-in for ceph-mgr and for the OSDs' library: commands change the
table and its store, a new module on the same store (a mgr restart) keeps it, the table reaches
every OSD whose epoch differs (one restarted included) with the owners of the monitors' sessions,
OSDs without the library raise QBOX_OSD_STOCK, and throughput SLAs follow the OSDs' estimates."""
import json
import logging

import pytest

from fake_mgr import forget_module, import_module_class, serve_until, stop_serving


@pytest.fixture
def module_class(monkeypatch):
    yield import_module_class(monkeypatch, "qbox")
    forget_module("qbox")


class Osd:
    """The library's side of the contract, as far as the module sees it."""

    def __init__(self, library=True, costs=None):
        self.library, self.epoch, self.table, self.costs = library, 0, None, costs or {}
        self.prices = {}  # client -> its mean measured price per operation, once it has one

    def answer(self, command):
        if not self.library:
            return 0, "", f"unknown command prefix {command['prefix']}"
        if command["prefix"] == "qbox set":
            self.table = json.loads(command["table"])
            self.epoch = self.table["epoch"]
        clients = [{"name": name, "price": price} for name, price in self.prices.items()]
        return 0, json.dumps({"state": "active", "reason": "", "table_epoch": self.epoch, "costs": self.costs,
                              "clients": clients}), ""


def make_module(module_class, store, osds, sessions):
    class Mgr(module_class):
        def __init__(self):
            self.log = logging.getLogger("qbox-test")
            self.store = store
            super().__init__()
            self.health = {}

        def get_store(self, key):
            return self.store.get(key)

        def set_store(self, key, value):
            self.store[key] = value

        def get_module_option(self, name):
            return {"push_seconds": 1.0}.get(name)

        def get(self, what):
            return {"osd_map": {"osds": [{"osd": osd, "up": 1} for osd in osds]},
                    "mon_map": {"mons": [{"name": "a"}]}}[what]

        def mon_command(self, command):
            known = command["entity"] in ("client.alice", "client.bob")
            return (0, "[]", "") if known else (-2, "", "failed to find client.x in keyring")

        def send_command(self, result, kind, name, command, tag):
            command = json.loads(command)
            if kind == "mon":
                result.r, result.outb, result.outs = 0, json.dumps(sessions), ""
            else:
                result.r, result.outb, result.outs = osds[int(name)].answer(command)
            result.ev.set()

        def set_health_checks(self, checks):
            self.health = checks

    return Mgr()


def run_until(module, predicate):
    """Runs the module's loop until predicate() holds and stops it; a module may run again after."""
    module._stopping = False
    stop_serving(module, serve_until(module, predicate))


def test_the_table_reaches_every_osd_with_the_owners_and_survives_a_mgr_restart(module_class):
    store = {}
    osds = {0: Osd(), 1: Osd(), 2: Osd(library=False)}
    sessions = [{"name": "client.?", "entity_name": "client.alice", "global_id": 4125, "con_type": "client"}]
    module = make_module(module_class, store, osds, sessions)
    assert module.qbox_set("client.alice", "0.3")[0] == 0
    assert module.qbox_set("client.x", "0.3")[0] == -2
    assert module.qbox_set("client.bob", "0.7")[0] == -34
    assert module.qbox_set_background("best_effort", "0.1")[0] == 0
    run_until(module, lambda: osds[0].epoch and osds[1].epoch and "QBOX_OSD_STOCK" in module.health)
    expected = {"clients": [{"name": "client.alice", "utilization": 0.3, "owners": [4125]}],
                "background_recovery": 0.1, "background_best_effort": 0.1}
    assert osds[0].table == osds[1].table == dict(expected, epoch=osds[0].epoch)
    assert module.health["QBOX_OSD_STOCK"]["detail"][0].startswith("osd.2: `qbox status` is not a command")
    status = json.loads(module.qbox_status("json")[1])
    assert [osd["in_sync"] for osd in status["osds"]] == [True, True, False]
    assert module.qbox_status("yaml")[0] == -22

    # A new module on the same store (a mgr restart) keeps the table and its epoch; an OSD that
    # restarted (epoch 0) gets the table again, and a new session of alice changes the epoch.
    epoch = osds[0].epoch
    osds[1] = Osd()
    sessions.append({"name": "client.?", "entity_name": "client.alice", "global_id": 4200, "con_type": "client"})
    restarted = make_module(module_class, store, osds, sessions)
    assert restarted._table.clients == {"client.alice": 0.3}
    run_until(restarted, lambda: osds[1].epoch == epoch + 1 and osds[0].epoch == epoch + 1)
    assert osds[1].table["clients"][0]["owners"] == [4125, 4200]
    assert restarted.qbox_rm("client.alice")[0] == 0
    assert make_module(module_class, store, osds, sessions)._table.clients == {}


def test_a_stored_table_that_cannot_be_read_is_not_pushed_and_is_reported(module_class):
    osds = {0: Osd()}
    store = {"table": "{broken"}
    module = make_module(module_class, store, osds, [])
    run_until(module, lambda: "QBOX_MODULE_PROBLEM" in module.health)
    assert osds[0].epoch == 0
    assert "nothing is pushed until `ceph qbox set` replaces it" in module.health["QBOX_MODULE_PROBLEM"]["detail"][0]
    assert module.qbox_set("client.alice", "0.3")[0] == 0
    restarted = make_module(module_class, store, osds, [])
    run_until(restarted, lambda: osds[0].epoch == 1 and not restarted.health)


def test_a_failing_round_is_reported_and_the_loop_goes_on(module_class):
    osds = {0: Osd()}
    module = make_module(module_class, {}, osds, [])
    failures = [KeyError("osd_map")]
    get = module.get

    def failing_get(what):
        if what == "osd_map" and failures:
            raise failures.pop()
        return get(what)
    module.get = failing_get
    seen = []
    module.set_health_checks = lambda checks: seen.append(checks)
    run_until(module, lambda: osds[0].epoch == 1 and seen and not seen[-1])
    assert seen[0]["QBOX_MODULE_PROBLEM"]["detail"] == ["the push loop failed: KeyError: 'osd_map'"]


def pushed(osd, name):
    """The utilization of `name` in the last table the OSD took, or None."""
    return next((c["utilization"] for c in (osd.table or {}).get("clients", []) if c["name"] == name), None)


def test_a_throughput_sla_follows_the_osds_estimates_within_admission_and_survives_a_mgr_restart(module_class):
    store = {}
    osds = {0: Osd(costs={"rand_read": 0.001}), 1: Osd(costs={"rand_read": None})}
    module = make_module(module_class, store, osds, [])
    # No round yet, so no estimate: EAGAIN, and the table is unchanged.
    ret, _, err = module.qbox_set_throughput("client.alice", "500", "4096", "read")
    assert ret == -11 and "no OSD has estimated the cost of a rand_read op yet" in err
    assert module.qbox_set_throughput("client.x", "500", "4096", "read")[0] == -2
    assert module.qbox_set_throughput("client.alice", "nan", "4096", "read")[0] == -22
    assert module.qbox_set_throughput("client.alice", "500", "4096", "read", "zigzag")[0] == -22
    run_until(module, lambda: osds[0].epoch)
    ret, _, message = module.qbox_set_throughput("client.alice", "500", "4096", "read")
    assert ret == 0, message
    assert message.startswith("client.alice: 500 IOPS of 4096-byte random reads -> utilization 500 x 1 ms "
                              "(the rand_read estimate on osd.0, the dearest OSD) = 0.5 (the size prices nothing: an "
                              "OSD cannot see a read's length); utilizations now sum to 0.65 of 1")
    assert module.qbox_set_throughput("client.alice", "900", "4096", "read")[0] == -34
    assert module.qbox_set("client.bob", "0.3")[0] == 0

    # osd.1 estimates reads dearer: alice's utilization follows, as far as admission lets it.
    osds[1].costs = {"rand_read": 0.0011}
    run_until(module, lambda: pushed(osds[1], "client.alice") == pytest.approx(0.55))
    osds[1].costs = {"rand_read": 0.0013}
    run_until(module, lambda: "QBOX_SLA_NOT_ADMITTED" in module.health)
    [why] = module.health["QBOX_SLA_NOT_ADMITTED"]["detail"]
    assert why.startswith("client.alice keeps utilization 0.55, the last admitted, though its SLA of 500 IOPS of "
                          "4096-byte random reads now needs 0.65")
    assert pushed(osds[0], "client.alice") == pytest.approx(0.55)
    [sla] = json.loads(module.qbox_status("json")[1])["slas"]
    assert (sla["utilization"], sla["derived"], sla["cost_osd"]) == (pytest.approx(0.55), pytest.approx(0.65), 1)
    assert "NOT ADMITTED" in module.qbox_status("plain")[1]

    # A mgr restart keeps the SLA; once bob leaves room, the SLA gets what it needs.
    restarted = make_module(module_class, store, osds, [])
    assert restarted._table.throughputs["client.alice"].iops == 500
    assert restarted.qbox_rm("client.bob")[0] == 0
    run_until(restarted, lambda: pushed(osds[0], "client.alice") == pytest.approx(0.65) and not restarted.health)
    # Once alice's own reads are measured, they price her SLA instead of the class estimate.
    osds[0].prices = {"client.alice": {"read": 0.0004}}
    run_until(restarted, lambda: pushed(osds[0], "client.alice") == pytest.approx(0.2))
    [sla] = json.loads(restarted.qbox_status("json")[1])["slas"]
    assert (sla["cost_source"], sla["cost_class"], sla["cost_osd"]) == ("client", "read", 0)
    assert "client's measured read price on osd.0" in restarted.qbox_status("plain")[1]
    osds[0].prices = {}
    # A utilization set by hand ends the SLA.
    assert restarted.qbox_set("client.alice", "0.2")[0] == 0
    assert json.loads(restarted.qbox_status("json")[1])["slas"] == []
