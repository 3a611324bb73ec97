/**
 * The canonical (weight, edge id) order on the host: a stable least-significant-digit radix sort on the u32 weight
 * keys (two 16-bit passes) of ids that start in increasing order, so equal keys stay in id order. O(m), no
 * comparator calls: Kruskal on 33 M edges sorts in well under a second.
 */

/**
 * Sorts `ids` (increasing) by `keys` (keys[i] is the key of ids[i]) stably, in place; returns `ids`.
 * `keys` is overwritten (it comes back sorted).
 */
export function sortIdsByKey(ids: Uint32Array, keys: Uint32Array): Uint32Array {
  const n = ids.length;
  if (n < 2) return ids;
  if (n < 64) return insertionSort(ids, keys);
  let srcIds: Uint32Array = ids,
    srcKeys: Uint32Array = keys;
  let dstIds: Uint32Array = new Uint32Array(n),
    dstKeys: Uint32Array = new Uint32Array(n);
  const count = new Uint32Array(1 << 16);
  for (const shift of [0, 16]) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[(srcKeys[i] >>> shift) & 0xffff]++;
    if (count[(srcKeys[0] >>> shift) & 0xffff] === n) continue; // every key shares this digit
    let sum = 0;
    for (let d = 0; d < count.length; d++) {
      const c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (let i = 0; i < n; i++) {
      const k = srcKeys[i];
      const at = count[(k >>> shift) & 0xffff]++;
      dstKeys[at] = k;
      dstIds[at] = srcIds[i];
    }
    [srcIds, dstIds] = [dstIds, srcIds];
    [srcKeys, dstKeys] = [dstKeys, srcKeys];
  }
  if (srcIds !== ids) {
    ids.set(srcIds);
    keys.set(srcKeys);
  }
  return ids;
}

function insertionSort(ids: Uint32Array, keys: Uint32Array): Uint32Array {
  for (let i = 1; i < ids.length; i++) {
    const k = keys[i];
    const id = ids[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j];
      ids[j + 1] = ids[j];
      j--;
    }
    keys[j + 1] = k;
    ids[j + 1] = id;
  }
  return ids;
}
