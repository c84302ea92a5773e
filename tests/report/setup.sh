#!/usr/bin/env bash
# Install the headless browser that tests/report/test_report_html.py opens the Snakemake HTML report in: Debian's
# chromium. Idempotent: does nothing when a chromium (chromium, chromium-browser or google-chrome) is on PATH.
#
#     tests/report/setup.sh [STATUS_FILE]
#
# Exits 0 even when apt cannot install it (no root, no sudo, no Debian mirror): the report tests then skip, and
# their skip reason quotes the line this script wrote to STATUS_FILE. Any other failure is an error.
set -uo pipefail

status_file=${1:-/dev/null}
package=chromium
browsers=(chromium chromium-browser google-chrome)
log=/tmp/privest-report-apt.log

report() {
    echo "tests/report/setup.sh: $1"
    echo "$1" >"$status_file"
}

find_browser() {
    local browser
    for browser in "${browsers[@]}"; do
        if command -v "$browser" >/dev/null; then
            echo "$browser"
            return
        fi
    done
}

browser_version() {
    "$1" --version 2>/dev/null | head -1
}

browser=$(find_browser)
if [[ -n $browser ]]; then
    report "installed: $(browser_version "$browser")"
    exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
    apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    apt=(sudo -n env DEBIAN_FRONTEND=noninteractive apt-get)
else
    report "apt cannot install $package: not root and no password-less sudo (no ${browsers[*]} on PATH)"
    exit 0
fi
if ! command -v apt-get >/dev/null; then
    report "apt cannot install $package: no apt-get on this machine (no ${browsers[*]} on PATH)"
    exit 0
fi

install() {
    "${apt[@]}" install -y -qq --no-install-recommends "$package" >>"$log" 2>&1
}

echo "tests/report/setup.sh: installing $package (no ${browsers[*]} on PATH)"
: >"$log"
# Refresh the package lists only when the install fails with the current ones.
if ! install && ! { "${apt[@]}" update -qq >>"$log" 2>&1 && install; }; then
    tail -5 "$log"
    report "apt cannot install $package: apt-get failed (last lines in $log: $(tail -1 "$log"))"
    exit 0
fi

browser=$(find_browser)
if [[ -z $browser ]]; then
    echo "tests/report/setup.sh: apt installed $package but none of ${browsers[*]} is on PATH" >&2
    exit 1
fi
report "installed now: $(browser_version "$browser")"
