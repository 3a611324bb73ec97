#!/usr/bin/env bash
# Packs what the distributed runs on a GPU host without network need beside treeline (issue 20; .gpu/h100-nats2.sh
# unpacks it there): Debian's nats-server (bookworm: 2.9.10) and Mesa's Vulkan layer VK_LAYER_MESA_device_select
# (`treeline worker --gpu i`, src/cli/worker.gpu.ts) with the libraries it links, into one tarball of root-relative
# paths:
#   usr/sbin/nats-server
#   usr/lib/x86_64-linux-gnu/libVkLayer_MESA_device_select.so
#   usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json
#   usr/lib/x86_64-linux-gnu/lib{xcb,xcb-dri3,wayland-client,drm,Xau,Xdmcp,ffi,bsd,md}.so.*
# Only the layer is taken from mesa-vulkan-drivers: its Vulkan drivers (lavapipe's ICD among them) would add adapters
# to the GPU host. Unpack there WITHOUT overwriting its own files, then refresh the linker cache:
#   tar xzf .gpu/h100-nats-layer.tgz --skip-old-files -C / && ldconfig
# Runs on any Debian/Ubuntu machine with apt (the packages are amd64 whatever this machine is: apt's state for them
# goes to a separate lists folder, as /work/.library/device/README.md does for .debs of another architecture).
#   bash bench/nats-layer.sh [out.tgz]      (default .gpu/h100-nats-layer.tgz)
set -euo pipefail

out="${1:-.gpu/h100-nats-layer.tgz}"
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
work="$(mktemp -d -t treeline-nats-layer-XXXXXX)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work" # apt downloads as the _apt user where it can
lists="$work/lists"
mkdir -p "$lists/partial" "$work/debs" "$work/x" "$work/root"
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
apt-get "${o[@]}" update -q >/dev/null
libs=(libxcb1 libxcb-dri3-0 libwayland-client0 libdrm2 libxau6 libxdmcp6 libffi8 libbsd0 libmd0)
(cd "$work/debs" && apt-get "${o[@]}" download -q nats-server mesa-vulkan-drivers "${libs[@]}" >/dev/null)
for f in "$work"/debs/*.deb; do dpkg -x "$f" "$work/x"; done

r="$work/root"
lib=usr/lib/x86_64-linux-gnu
mkdir -p "$r/usr/sbin" "$r/$lib" "$r/usr/share/vulkan/implicit_layer.d"
cp -a "$work/x/usr/sbin/nats-server" "$r/usr/sbin/"
cp -a "$work/x/$lib/libVkLayer_MESA_device_select.so" "$r/$lib/"
cp -a "$work/x/usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json" \
  "$r/usr/share/vulkan/implicit_layer.d/"
# The libraries (Debian ships some under /lib, some under /usr/lib): their .so.N files and links, into usr/lib.
for name in libxcb libxcb-dri3 libwayland-client libdrm libXau libXdmcp libffi libbsd libmd; do
  found=0
  for d in "$work/x/$lib" "$work/x/lib/x86_64-linux-gnu"; do
    for f in "$d/$name".so.*; do
      [ -e "$f" ] || continue
      cp -a "$f" "$r/$lib/"
      found=1
    done
  done
  [ "$found" = 1 ] || { echo "nats-layer.sh: no $name.so.* in the downloaded packages" >&2; exit 1; }
done
# The layer must find every library it links in the packed set or on the host (checked here against the set).
missing=$(LD_LIBRARY_PATH="$r/$lib" ldd "$r/$lib/libVkLayer_MESA_device_select.so" | grep 'not found' || true)
[ -z "$missing" ] || { echo "nats-layer.sh: the layer lacks: $missing" >&2; exit 1; }
"$r/usr/sbin/nats-server" --version
tar czf "$out" -C "$r" usr
echo "$out: $(du -h "$out" | cut -f1), $(tar tzf "$out" | grep -vc '/$') files"
