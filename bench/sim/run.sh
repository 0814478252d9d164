#!/bin/bash
# The simulator's reproductions of the thesis' results (bench/sim/README.md): runs reproduce.py for
# each named experiment (default all), each writing bench/sim/results/EXPERIMENT.csv, then plot.py,
# which draws bench/sim/results/*.png from the experiments' per-second timelines.
#   bench/sim/run.sh [--sim PATH] [--work DIR] [EXPERIMENT...]
# EXPERIMENT is calibrate, rails, drive_a, trace, erails, write_vs_m, qos, scale, speed, failslow or all.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=/tmp/erails-sim-repro
sim_args=()
experiments=()
while (($#)); do
    case $1 in
        --sim) sim_args=(--sim "$2"); shift 2 ;;
        --work) work=$2; shift 2 ;;
        -h|--help) sed -n '2,6s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) echo "unknown option '$1' (see --help)" >&2; exit 2 ;;
        *) experiments+=("$1"); shift ;;
    esac
done
((${#experiments[@]})) || experiments=(all)

for experiment in "${experiments[@]}"; do
    /usr/bin/python3 "$here/reproduce.py" "$experiment" "${sim_args[@]}" --work "$work"
done
# Each figure needs its experiment's timelines in --work: all of them, or the QoS figure alone.
if [[ " ${experiments[*]} " == *" all "* ]]; then
    /usr/bin/python3 "$here/plot.py" --work "$work"
elif [[ " ${experiments[*]} " == *" qos "* ]]; then
    /usr/bin/python3 "$here/plot.py" --work "$work" --only qos
fi
