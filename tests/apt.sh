# Sourced by tests/cluster/setup.sh and tests/report/setup.sh: install Debian packages with apt-get, as root or
# through password-less sudo, refreshing the package lists only when the install fails with the current ones.
#
#     apt_install LOG PACKAGE...
#
# Returns 0 when apt-get installed the packages; otherwise 1, with the reason in one line in APT_FAILURE (and the
# last lines of apt's output, kept in LOG, on stdout).

apt_install() {
    local log=$1
    shift
    local apt
    if [[ $(id -u) -eq 0 ]]; then
        apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        apt=(sudo -n env DEBIAN_FRONTEND=noninteractive apt-get)
    else
        APT_FAILURE="not root and no password-less sudo"
        return 1
    fi
    if ! command -v apt-get >/dev/null; then
        APT_FAILURE="no apt-get on this machine"
        return 1
    fi
    : >"$log"
    if ! "${apt[@]}" install -y -qq --no-install-recommends "$@" >>"$log" 2>&1 \
        && ! { "${apt[@]}" update -qq >>"$log" 2>&1 \
               && "${apt[@]}" install -y -qq --no-install-recommends "$@" >>"$log" 2>&1; }; then
        tail -5 "$log"
        APT_FAILURE="apt-get failed (last lines in $log: $(tail -1 "$log"))"
        return 1
    fi
}
