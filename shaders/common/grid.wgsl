// Dispatch grids: counts above maxComputeWorkgroupsPerDimension × WG are spread over 2D grids by
// src/gpu/recorder.ts; a kernel recovers its linear workgroup index with group_index().

// The workgroup size of every kernel (set per pipeline).
override WG: u32 = 256u;

// Linear workgroup index of a 1D or 2D dispatch grid.
fn group_index(wid: vec3u, nwg: vec3u) -> u32 {
  return wid.x + wid.y * nwg.x;
}

// Linear thread index of a 1D or 2D dispatch grid.
fn thread_index(wid: vec3u, nwg: vec3u, lid: u32) -> u32 {
  return group_index(wid, nwg) * WG + lid;
}
