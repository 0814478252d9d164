# The port ranges of local clusters, for start.sh: how wide a cluster's range is, which of its
# ports something already listens on, and `--port-base auto`, which picks a range no other
# cluster of this machine holds. Sourced, never executed.

# Each OSD binds public, cluster and two heartbeat messengers, msgr2 and msgr1 each, from
# port_base + 10 on; the monitor has port_base and port_base + 1.
port_span() { echo $((10 * $1 + 30)); }

# The ports in first..last that something listens on, space-separated.
ports_listening() {
    ss -Htln | awk -v lo="$1" -v hi="$2" '{n=split($4,a,":"); p=a[n]+0; if (p>=lo && p<=hi) print p}' \
        | sort -un | tr '\n' ' '
}

# Dies naming the ports in first..last that something listens on: a daemon whose port is taken
# loops on bind errors instead of failing.
require_ports_free() {
    local busy
    busy=$(ports_listening "$1" "$2")
    [[ -z $busy ]] || die "ports in use in $1..$2: $busy(choose another --port-base)"
}

# Auto ranges start on a multiple of 100 in this window: above start.sh's default (17100, the demo
# and the benchmarks' fixed bases lie around it) and below Linux's ephemeral ports (32768).
AUTO_PORT_FIRST=17200
AUTO_PORT_LAST=32700
# One link per cluster created on this machine, named by its port range and pointing at its
# directory, so that `auto` passes over the range of a cluster that is stopped (its daemons need
# the range again when they restart) or still being created (not all its ports listen yet). A link
# whose directory is gone, or whose cluster was created again on other ports, is stale. A
# directory kept after a failed creation holds its range until it is deleted.
PORT_REGISTRY=${ERAILS_PORT_REGISTRY:-${TMPDIR:-/tmp}/erails-port-ranges-$(id -u)}

# claim_port_base BASE|auto OSDS CLUSTER_DIR: for a cluster being created, records its range and
# prints its base; `auto` chooses the lowest range that is free and held by no other cluster. The
# registry's lock is held from the choice to the record, so that clusters created at the same
# moment never get the same range.
claim_port_base() {
    local wanted=$1 osds=$2 dir=$3 span lock link name target first last held=() base candidate range taken
    span=$(port_span "$osds")
    mkdir -p "$PORT_REGISTRY" || die "cannot create the port registry $PORT_REGISTRY"
    exec {lock}>"$PORT_REGISTRY/.lock"
    flock "$lock"
    for link in "$PORT_REGISTRY"/*-*; do
        [[ -L $link ]] || continue
        name=$(basename "$link") target=$(readlink "$link")
        first=${name%-*} last=${name#*-}
        if [[ $target == "$dir" || ! -d $target ]] \
            || { [[ -e $target/cluster.params ]] && ! grep -qx "port_base=$first" "$target/cluster.params"; }; then
            rm -f "$link"
        else
            held+=("$first-$last")
        fi
    done
    if [[ $wanted == auto ]]; then
        for ((candidate = AUTO_PORT_FIRST; candidate + span <= AUTO_PORT_LAST; candidate += 100)); do
            taken=0
            for range in "${held[@]}"; do
                ((candidate <= ${range#*-} && candidate + span >= ${range%-*})) && { taken=1; break; }
            done
            ((taken)) || [[ -n $(ports_listening "$candidate" $((candidate + span))) ]] || { base=$candidate; break; }
        done
        [[ -n ${base:-} ]] || die "--port-base auto: every range in $AUTO_PORT_FIRST..$AUTO_PORT_LAST is in use or held by a cluster linked from $PORT_REGISTRY"
    else
        base=$wanted
        require_ports_free "$base" $((base + span))
    fi
    ln -sfn "$dir" "$PORT_REGISTRY/$base-$((base + span))"
    exec {lock}>&-
    echo "$base"
}
