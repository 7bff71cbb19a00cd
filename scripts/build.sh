#!/usr/bin/env bash
# Configures and builds fabscope with the given CMake preset (default: release).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
cmake --preset "$preset"
cmake --build --preset "$preset" -j "$(nproc)"
