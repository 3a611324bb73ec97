// Radix sort keys of 64 bits as vec2u (composed before the radix sort kernels when keyWords = 2):
// .x = low 32 bits, .y = high 32 bits, the convention of `atomic-vec2u-min-max`.
alias Key = vec2u;
const KEY_WORDS: u32 = 2u;
fn key_lo(k: Key) -> u32 { return k.x; }
fn key_hi(k: Key) -> u32 { return k.y; }
fn make_key(lo: u32, hi: u32) -> Key { return vec2u(lo, hi); }
