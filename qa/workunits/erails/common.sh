# Sourced by the erails workunits. They talk to whatever cluster the ceph tool reaches (teuthology's
# client, or CEPH_CONF=<cluster>/ceph.conf locally) and take the profile under test from
# ERAILS_PROFILE (the suite's erasure-code/ facet sets it).

ERAILS_PROFILE=${ERAILS_PROFILE:-plugin=erails k=4 m=2 technique=reed_sol_van crush-failure-domain=osd}
PYTHON=${PYTHON:-python3}
WORKUNIT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Names carry the pid so that workunits on two clients of one cluster do not collide.
SUFFIX=$(hostname -s)-$$

# Prints ERAILS_PROFILE with `key` set to `value` (replaced if present, appended otherwise).
profile_with() {
    local key=$1 value=$2 item out=() found=0
    for item in $ERAILS_PROFILE; do
        if [[ ${item%%=*} == "$key" ]]; then out+=("$key=$value"); found=1; else out+=("$item"); fi
    done
    ((found)) || out+=("$key=$value")
    echo "${out[*]}"
}

profile_value() {
    local key=$1 item
    for item in $ERAILS_PROFILE; do
        [[ ${item%%=*} == "$key" ]] && { echo "${item#*=}"; return; }
    done
}

create_pool() {
    local pool=$1
    ceph osd erasure-code-profile set "$pool" $ERAILS_PROFILE
    ceph osd pool create "$pool" 8 8 erasure "$pool"
    ceph osd pool application enable "$pool" rados
}

# Pool deletion needs mon_allow_pool_delete; a cluster that forbids it keeps the pool, and says so.
remove_pool() {
    local pool=$1
    ceph osd pool delete "$pool" "$pool" --yes-i-really-really-mean-it \
        || echo "pool $pool left behind: the monitors refuse pool deletion" >&2
    ceph osd erasure-code-profile rm "$pool" || true
}
