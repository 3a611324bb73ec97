/**
 * `treeline worker --gpu <index>`: one worker process per GPU on a multi-GPU host (issue 20, §1).
 *
 * How Dawn picks an adapter in Node (dawn/src/dawn/node/binding/GPU.cpp, GPU::requestAdapter): it enumerates every
 * adapter of the backend (Vulkan on Linux) and returns the first whose AdapterInfo.device contains the `adapter=`
 * flag given to `create([...])` (any adapter without the flag). WebGPU itself has no way to ask for "the second
 * GPU", and two identical cards (2 × "NVIDIA H100 80GB HBM3") have the same name, so neither requestAdapter's
 * options nor the `adapter=` flag can tell them apart. CUDA_VISIBLE_DEVICES is the CUDA runtime's; NVIDIA does not
 * document it for Vulkan, so treeline does not rely on it.
 *
 * What does: the Vulkan loader's implicit layer VK_LAYER_MESA_device_select (Debian's mesa-vulkan-drivers installs
 * it, /usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json; it sits in front of every driver, NVIDIA's
 * included). Given DRI_PRIME=pci-DDDD_BB_DD_F it puts the device at that PCI address first (it reads the address
 * through VK_EXT_pci_bus_info), and MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE=1 makes it hide every other device.
 * So `--gpu i` takes the i-th display-class PCI device of /sys/bus/pci/devices in PCI address order (the order of
 * `nvidia-smi` and of CUDA_DEVICE_ORDER=PCI_BUS_ID) and sets both variables before Dawn's first instance is made in
 * this process (src/gpu/context.ts makes it lazily; the loader reads the variables then). Without the layer the
 * variables are ignored and every worker would share GPU 0, so that is refused.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { InputError } from '../errors.js';

const LAYER_DIRS = [
  '/usr/share/vulkan/implicit_layer.d',
  '/etc/vulkan/implicit_layer.d',
  '/usr/local/share/vulkan/implicit_layer.d',
];

/** The PCI addresses (DDDD:BB:DD.F) of display-class devices (class 0x03xxxx), in address order. */
export function displayDevices(root = '/sys/bus/pci/devices'): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      try {
        return readFileSync(`${root}/${name}/class`, 'utf8').trim().startsWith('0x03');
      } catch {
        return false;
      }
    })
    .sort();
}

/** The device-select layer's tag for a PCI address: 0000:41:00.0 → pci-0000_41_00_0. */
export const driPrimeTag = (address: string): string => 'pci-' + address.replace(/[:.]/g, '_');

/**
 * Restricts this process's Vulkan devices to GPU `index` (as above). Must run before the first GPU context.
 * Returns what it chose, for the worker's log.
 */
export function selectGpu(index: number, env: NodeJS.ProcessEnv = process.env, root?: string): string {
  const devices = displayDevices(root);
  if (index < 0 || index >= devices.length) {
    throw new InputError(
      `Expected --gpu to be below the number of GPUs on this host (${devices.length}: ` +
        `${devices.join(', ') || 'none found under /sys/bus/pci/devices'}), got ${index}.`,
    );
  }
  const layer = LAYER_DIRS.some((d) => existsSync(`${d}/VkLayer_MESA_device_select.json`));
  if (!layer) {
    throw new InputError(
      '--gpu needs the Vulkan layer VK_LAYER_MESA_device_select (Debian: apt-get install mesa-vulkan-drivers), ' +
        'which treeline uses to give each worker process its own GPU; none was found in ' +
        `${LAYER_DIRS.join(', ')}.`,
    );
  }
  env.DRI_PRIME = driPrimeTag(devices[index]);
  env.MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE = '1';
  return `GPU ${index} at PCI ${devices[index]} (DRI_PRIME=${env.DRI_PRIME})`;
}
