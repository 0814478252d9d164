"""Static checks of the teuthology suite qa/suites/rados/erails and the erails workunits: what a
lab would only find out after scheduling a run. Needs no cluster; the profile check loads the
built plugin when there is one (ERAILS_PLUGIN_DIR, default <repo>/build/erasure-code)."""
import os
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

QA = Path(__file__).resolve().parents[1]
REPO = QA.parent
SUITE = QA / "suites" / "rados" / "erails"
WORKUNITS = QA / "workunits"
FACETS = ["clusters", "objectstore", "erasure-code", "thrashers", "workloads"]
SUITE_YAMLS = sorted(SUITE.rglob("*.yaml"))
PROFILE_FACETS = sorted((SUITE / "erasure-code").glob("*.yaml"))
STOCK_PLUGINS = Path("/usr/lib/x86_64-linux-gnu/ceph/erasure-code")
KNOWN_PLUGINS = {"erails", "jerasure", "isa", "lrc", "shec", "clay"}


def load(path):
    return yaml.safe_load(path.read_text())


def walk(node, key):
    """Every value stored under `key` anywhere in a parsed YAML document."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                yield v
            yield from walk(v, key)
    elif isinstance(node, list):
        for item in node:
            yield from walk(item, key)


def test_suite_has_the_facet_layout():
    assert (SUITE / "%").is_file(), "without '%' teuthology-suite does not convolve the facets"
    for facet in FACETS:
        assert sorted((SUITE / facet).glob("*.yaml")), f"facet {facet}/ has no fragment"
    assert (SUITE / "ceph.yaml").is_file()


@pytest.mark.parametrize("path", SUITE_YAMLS, ids=[str(p.relative_to(SUITE)) for p in SUITE_YAMLS])
def test_every_fragment_parses_to_a_mapping(path):
    doc = load(path)
    assert isinstance(doc, dict), f"{path} is not a YAML mapping"
    assert set(doc) <= {"roles", "tasks", "overrides", "openstack"}, \
        f"{path} has top-level keys teuthology does not read: {set(doc)}"
    assert isinstance(doc.get("tasks", []), list), f"{path}: tasks must be a list"


def test_task_order_puts_ceph_before_thrashers_and_workloads():
    # teuthology concatenates the fragments' task lists in sorted path order.
    order = sorted(["ceph.yaml"] + FACETS)
    assert order.index("ceph.yaml") < order.index("thrashers") < order.index("workloads")
    assert [list(t)[0] for t in load(SUITE / "ceph.yaml")["tasks"]] == ["install", "exec", "ceph"]


def named_workunits():
    for path in SUITE_YAMLS:
        for workunit in walk(load(path), "workunit"):
            for units in (workunit or {}).get("clients", {}).values():
                for unit in units:
                    yield path, unit


def test_workloads_name_only_existing_executable_workunits():
    names = list(named_workunits())
    assert names, "no workunit task in the suite"
    for path, unit in names:
        script = WORKUNITS / unit
        assert script.is_file(), f"{path.name} names {unit}, which is not in qa/workunits/"
        assert os.access(script, os.X_OK), f"{unit} is not executable"


@pytest.mark.parametrize("script", sorted((WORKUNITS / "erails").glob("*.sh")),
                         ids=lambda p: p.name)
def test_workunit_scripts_are_valid_bash(script):
    subprocess.run(["bash", "-n", str(script)], check=True)


def suite_profiles():
    for path in SUITE_YAMLS:
        for profile in walk(load(path), "erasure_code_profile"):
            yield path, profile


def test_every_profile_names_a_known_plugin_and_a_shape():
    profiles = list(suite_profiles())
    assert profiles
    for path, profile in profiles:
        assert profile.get("plugin") in KNOWN_PLUGINS, f"{path.name}: unknown plugin"
        assert profile.get("name"), f"{path.name}: a profile needs a name for the monitor"
        assert int(profile["k"]) >= 1 and int(profile["m"]) >= 1, f"{path.name}: bad k/m"


@pytest.mark.parametrize("facet", PROFILE_FACETS, ids=lambda p: p.name)
def test_profile_facet_gives_workunits_the_same_profile(facet):
    overrides = load(facet)["overrides"]
    profile = dict(overrides["rados"]["erasure_code_profile"])
    profile.pop("name")
    env = dict(item.split("=", 1) for item in shlex.split(overrides["workunit"]["env"]["ERAILS_PROFILE"]))
    assert env == {k: str(v) for k, v in profile.items()}, \
        f"{facet.name}: ERAILS_PROFILE and the rados task's profile differ"


def test_profile_names_are_unique_per_facet():
    names = [load(f)["overrides"]["rados"]["erasure_code_profile"]["name"] for f in PROFILE_FACETS]
    assert len(names) == len(set(names))


def plugin_dir():
    return Path(os.environ.get("ERAILS_PLUGIN_DIR", REPO / "build" / "erasure-code"))


@pytest.mark.parametrize("path,profile", list(suite_profiles()),
                         ids=[f"{p.name}:{prof['name']}" for p, prof in suite_profiles()])
def test_every_profile_is_accepted_by_the_built_plugin(path, profile, tmp_path):
    directory = plugin_dir() if profile["plugin"] == "erails" else STOCK_PLUGINS
    if not (directory / f"libec_{profile['plugin']}.so").exists():
        pytest.skip(f"libec_{profile['plugin']}.so is not in {directory} (set ERAILS_PLUGIN_DIR)")
    items = ",".join(f"{k}={v}" for k, v in profile.items() if k != "name")
    # The tool crashes on an invalid profile (Ceph 16.2.15); its crash report stays in tmp_path.
    done = subprocess.run(["ceph-erasure-code-tool", "validate-profile", items,
                           "--erasure_code_dir", str(directory), "-c", "/dev/null",
                           "--crash_dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{path.name}: the plugin refuses {items}: {done.stderr[-500:]}"
    chunks = int(profile["k"]) + int(profile["m"])
    assert f"chunk_count: {chunks}" in done.stdout
