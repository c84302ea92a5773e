#!/usr/bin/env bash
# Install the Debian packages of the one-node SLURM cluster that tests/cluster/test_slurm.py brings up: slurm-wlm
# (slurmctld, slurmd, the client commands) and munge. Idempotent: does nothing when they are installed.
#
#     tests/cluster/setup.sh [STATUS_FILE]
#
# Exits 0 even when apt cannot install them (no root, no sudo, no Debian mirror): the cluster tests then skip, and
# their skip reason quotes the line this script wrote to STATUS_FILE. Any other failure is an error.
set -uo pipefail

source "$(dirname "$0")/../apt.sh"

status_file=${1:-/dev/null}
packages=(slurm-wlm munge)
commands=(slurmctld slurmd munged sbatch squeue scontrol sinfo)

report() {
    echo "tests/cluster/setup.sh: $1"
    echo "$1" >"$status_file"
}

missing_commands() {
    local missing=()
    for command in "${commands[@]}"; do
        PATH="$PATH:/usr/sbin:/sbin" command -v "$command" >/dev/null || missing+=("$command")
    done
    echo "${missing[*]}"
}

missing=$(missing_commands)
if [[ -z $missing ]]; then
    report "installed: $(slurmctld -V 2>/dev/null || /usr/sbin/slurmctld -V), $(munged --version 2>/dev/null | head -1)"
    exit 0
fi

echo "tests/cluster/setup.sh: installing ${packages[*]} (missing: $missing)"
if ! apt_install /tmp/privest-cluster-apt.log "${packages[@]}"; then
    report "apt cannot install ${packages[*]}: $APT_FAILURE (missing: $missing)"
    exit 0
fi

missing=$(missing_commands)
if [[ -n $missing ]]; then
    echo "tests/cluster/setup.sh: apt installed ${packages[*]} but these commands are still missing: $missing" >&2
    exit 1
fi
report "installed now: $(PATH="$PATH:/usr/sbin" slurmctld -V), $(PATH="$PATH:/usr/sbin" munged --version | head -1)"
