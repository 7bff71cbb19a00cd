#!/usr/bin/env bash
# Bundles this machine's Open MPI runtime (Debian 12: Open MPI 4.1 with PMIx 2) and the
# libraries the given binaries need into one folder, so that `mpirun` works on a machine
# with no Open MPI installed: the lent GPU machine (no package registry), or a GPU node
# without MPI. glibc, the CUDA driver and NCCL are not carried: the target has its own
# (point LD_LIBRARY_PATH at its NCCL, e.g. the nvidia-nccl-cu13 Python package).
#
#   scripts/carry-openmpi.sh DEST [BINARY...]     # e.g. DEST=carry, BINARY=build/release/fabscope
#   # on the target:
#   source DEST/env.sh && mpirun -np 2 --oversubscribe fabscope sweep ...
#
# `scripts/carry-openmpi.sh --check DEST BINARY` runs the bundle here with the system's
# Open MPI hidden (a mount namespace binds empty folders and /dev/null over it), which is
# how the recipe is tested without spending GPU time.
set -euo pipefail

check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
dest=${1:?usage: carry-openmpi.sh [--check] DEST [BINARY...]}
shift
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
ompi_lib=/usr/lib/$multiarch/openmpi
pmix=/usr/lib/$multiarch/pmix2

# What the system's Open MPI is made of: these paths are hidden by --check and carried.
system_paths=("$ompi_lib" "$pmix" /usr/share/openmpi /etc/openmpi)

if [ "$check" = 1 ]; then
  [ -f "$dest/env.sh" ] || { echo "carry-openmpi: no $dest/env.sh; bundle first" >&2; exit 2; }
  binary=${1:?--check needs the binary to run under mpirun}
  empty=$(mktemp -d)
  hide="set -e; for d in ${system_paths[*]}; do [ -d \$d ] && mount --bind $empty \$d; done
    for f in \$(readlink -f /usr/bin/mpirun) /usr/bin/orted /usr/bin/orterun \$(ls /usr/lib/$multiarch/libmpi*.so* /usr/lib/$multiarch/libopen-*.so* 2>/dev/null); do
      [ -e \$f ] && mount --bind /dev/null \$f; done
    if command -v mpirun >/dev/null && mpirun --version >/dev/null 2>&1; then echo 'system mpirun still works' >&2; exit 3; fi
    source $dest/env.sh
    echo \"mpirun: \$(command -v mpirun)\"; mpirun --version | head -1
    mpirun -np 2 --oversubscribe --allow-run-as-root $binary ${*:2}"
  unshare -m bash -c "$hide"
  rc=$?
  rmdir "$empty"
  exit $rc
fi

mkdir -p "$dest/root" "$dest/lib"
dest=$(cd "$dest" && pwd)
for p in "${system_paths[@]}"; do
  [ -e "$p" ] || continue
  mkdir -p "$dest/root$(dirname "$p")"
  # Headers and static archives are not needed to run.
  tar -C / --exclude='include' --exclude='*.a' -cf - "${p#/}" | tar -C "$dest/root" -xf -
done
mkdir -p "$dest/root/usr/bin"
orterun=$(readlink -f /usr/bin/mpirun)
cp -L "$orterun" "$dest/root/usr/bin/orterun"
cp -L /usr/bin/orted "$dest/root/usr/bin/orted"
ln -sf orterun "$dest/root/usr/bin/mpirun"
ln -sf orterun "$dest/root/usr/bin/mpiexec"

# Every shared library the launcher, the daemons, the components and the binaries load,
# except the C library's own and what the target brings (CUDA driver, NCCL).
skip='^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64|libcuda|libnccl|libnvidia-ml|linux-vdso)\.'
objects=("$dest/root/usr/bin/orterun" "$dest/root/usr/bin/orted" "$@")
while IFS= read -r so; do objects+=("$so"); done < <(find "$dest/root" -name '*.so*' -type f)
for o in "${objects[@]}"; do
  ldd "$o" 2>/dev/null | awk '/=> \//{print $3}'
done | sort -u | while IFS= read -r lib; do
  base=$(basename "$lib")
  if [[ "$base" =~ $skip ]]; then continue; fi
  cp -Ln "$lib" "$dest/lib/$base" 2>/dev/null || true
done
for b in "$@"; do
  mkdir -p "$dest/bin"
  cp -L "$b" "$dest/bin/"
  # Debug information is most of a release binary (150 MB of fabscope's 157 MB): not carried.
  strip --strip-debug "$dest/bin/$(basename "$b")"
done

cat > "$dest/env.sh" <<EOF
# Source this to use the carried Open MPI (made by scripts/carry-openmpi.sh).
carry=\$(cd "\$(dirname "\${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=\$carry/root/usr
export OPAL_SYSCONFDIR=\$carry/root/etc/openmpi
export OPAL_PKGDATADIR=\$carry/root/usr/share/openmpi
export PMIX_INSTALL_PREFIX=\$carry/root$pmix
export PMIX_MCA_mca_base_component_path=\$carry/root$pmix/lib/pmix
export OMPI_MCA_mca_base_component_path=\$carry/root$ompi_lib/lib/openmpi3
export PATH=\$carry/bin:\$carry/root/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$carry/lib:\$carry/root$ompi_lib/lib:\$carry/root$pmix/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
EOF
echo "carry-openmpi: $(du -sh "$dest" | cut -f1) in $dest; on the target: source $dest/env.sh"
