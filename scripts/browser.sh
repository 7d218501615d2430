#!/usr/bin/env bash
# Chromium and its WebDriver from Debian's packages, for the page's test in a real browser
# (tests/py/test_page.py, run by scripts/pytest.sh). Does nothing when both are installed.
# Usage: scripts/browser.sh
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
  chromium chromium-driver >/dev/null
