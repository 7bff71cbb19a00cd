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
# how the recipe is tested without spending GPU time. Where Debian keeps PMIx it puts
# instead a foreign PMIx's zlib component (one that needs `pmix_output_info`, as a newer PMIx's
# does): the lent GPU machine has such a PMIx there, and the check fails if PMIx says
# anything about it (the bundle must start quietly).
#
# PMIx 4.2 (Debian 12's libpmix2) finds its components and its parameter file from
# directories compiled in as literals (/usr/lib/<multiarch>/pmix2/{lib,share}), moved only
# by PMIX_PREFIX, PMIX_LIBDIR, PMIX_DATADIR, PMIX_SYSCONFDIR and the like (it has no
# PMIX_INSTALL_PREFIX), and its own pmix-mca-params.conf names the system component folder
# again. env.sh sets all of them to the bundle and the bundle's copy of that file drops the
# line; otherwise the carried libpmix loads the target's own components first.
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
  # A foreign PMIx where Debian's was: a zlib component that needs a symbol this PMIx does
  # not have (a data reference, so that dlopen fails at once), and a parameter file that
  # points at it. Without a compiler the folder stays empty.
  foreign=$(mktemp -d)
  mkdir -p "$foreign/lib/pmix" "$foreign/share"
  echo "mca_base_component_path = $pmix/lib/pmix" > "$foreign/share/pmix-mca-params.conf"
  printf 'extern int pmix_output_info;\nint *foreign_pmix(void) { return &pmix_output_info; }\n' > "$foreign/c.c"
  cc -shared -fPIC -o "$foreign/lib/pmix/pmix_mca_pcompress_zlib.so" "$foreign/c.c" 2>/dev/null || true
  hide="set -e; for d in ${system_paths[*]}; do [ -d \$d ] && mount --bind $empty \$d; done
    [ -d $pmix ] && mount --bind $foreign $pmix
    for f in \$(readlink -f /usr/bin/mpirun) /usr/bin/orted /usr/bin/orterun \$(ls /usr/lib/$multiarch/libmpi*.so* /usr/lib/$multiarch/libopen-*.so* 2>/dev/null); do
      [ -e \$f ] && mount --bind /dev/null \$f; done
    if command -v mpirun >/dev/null && mpirun --version >/dev/null 2>&1; then echo 'system mpirun still works' >&2; exit 3; fi
    source $dest/env.sh
    echo \"mpirun: \$(command -v mpirun)\"; mpirun --version | head -1
    mpirun -np 2 --oversubscribe --allow-run-as-root $binary ${*:2}"
  log=$(mktemp)
  rc=0
  unshare -m bash -c "$hide" 2>&1 | tee "$log" || rc=$?
  rmdir "$empty"
  rm -rf "$foreign"
  if grep -qiE 'pmix|compression library' "$log"; then
    echo "carry-openmpi: the carried Open MPI did not start quietly (PMIx said something above)" >&2
    [ "$rc" != 0 ] || rc=4
  fi
  rm -f "$log"
  exit "$rc"
fi

mkdir -p "$dest/root" "$dest/lib"
dest=$(cd "$dest" && pwd)
for p in "${system_paths[@]}"; do
  [ -e "$p" ] || continue
  mkdir -p "$dest/root$(dirname "$p")"
  # Headers and static archives are not needed to run.
  tar -C / --exclude='include' --exclude='*.a' -cf - "${p#/}" | tar -C "$dest/root" -xf -
done
# PMIx's parameter file names the system component folder; the bundle's copy does not
# (env.sh's PMIX_MCA_mca_base_component_path names the carried one).
conf=$dest/root$pmix/share/pmix-mca-params.conf
if [ -f "$conf" ]; then
  sed -i 's|^\( *mca_base_component_path *=.*\)|# carry-openmpi.sh: set by env.sh\n# \1|' "$conf"
fi
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
# PMIx 4.2 reads PMIX_PREFIX and the directory variables (not PMIX_INSTALL_PREFIX); its
# compiled-in folders are literals, so each one is set, or it loads the target's own PMIx
# components (e.g. a newer PMIx's zlib one: "undefined symbol: pmix_output_info").
export PMIX_PREFIX=\$carry/root$pmix
export PMIX_EXEC_PREFIX=\$carry/root$pmix
export PMIX_LIBDIR=\$carry/root$pmix/lib
export PMIX_PKGLIBDIR=\$carry/root$pmix/lib/pmix
export PMIX_DATAROOTDIR=\$carry/root$pmix/share
export PMIX_DATADIR=\$carry/root$pmix/share
export PMIX_PKGDATADIR=\$carry/root$pmix/share/pmix
export PMIX_SYSCONFDIR=\$carry/root$pmix/share
export PMIX_INCLUDEDIR=\$carry/root$pmix/include
export PMIX_MCA_mca_base_component_path=\$carry/root$pmix/lib/pmix
export OMPI_MCA_mca_base_component_path=\$carry/root$ompi_lib/lib/openmpi3
export PATH=\$carry/bin:\$carry/root/usr/bin:\$PATH
export LD_LIBRARY_PATH=\$carry/lib:\$carry/root$ompi_lib/lib:\$carry/root$pmix/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
EOF
echo "carry-openmpi: $(du -sh "$dest" | cut -f1) in $dest; on the target: source $dest/env.sh"
