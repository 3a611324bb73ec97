/**
 * WebGPU's usage and map-mode bits as plain numbers: in Node the `GPUBufferUsage` globals exist only after the
 * `webgpu` package has been loaded, and modules must be importable before that.
 */
export const Usage = {
  MAP_READ: 0x0001,
  MAP_WRITE: 0x0002,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
  INDIRECT: 0x0100,
  QUERY_RESOLVE: 0x0200,
} as const;

export const MapMode = { READ: 0x0001, WRITE: 0x0002 } as const;
