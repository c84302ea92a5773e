#!/usr/bin/env bash
# Install the headless browser that tests/report/test_report_html.py opens the Snakemake HTML report in: Debian's
# chromium. Idempotent: does nothing when a chromium (chromium, chromium-browser or google-chrome) is on PATH.
#
#     tests/report/setup.sh [STATUS_FILE]
#
# Exits 0 even when apt cannot install it (no root, no sudo, no Debian mirror): the report tests then skip, and
# their skip reason quotes the line this script wrote to STATUS_FILE. Any other failure is an error.
set -uo pipefail

source "$(dirname "$0")/../apt.sh"

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

echo "tests/report/setup.sh: installing $package (no ${browsers[*]} on PATH)"
if ! apt_install "$log" "$package"; then
    report "apt cannot install $package: $APT_FAILURE (no ${browsers[*]} on PATH)"
    exit 0
fi

browser=$(find_browser)
if [[ -z $browser ]]; then
    echo "tests/report/setup.sh: apt installed $package but none of ${browsers[*]} is on PATH" >&2
    exit 1
fi
report "installed now: $(browser_version "$browser")"
