// Radix sort keys of one u32 word (composed before the radix sort kernels when keyWords = 1).
alias Key = u32;
const KEY_WORDS: u32 = 1u;
fn key_lo(k: Key) -> u32 { return k; }
fn key_hi(k: Key) -> u32 { return 0u; }
fn make_key(lo: u32, hi: u32) -> Key { return lo; }
