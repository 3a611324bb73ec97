/**
 * treeline's Node entry (package.json exports "." → "node"): the public API of src/index.ts, plus what only Node
 * runs — the coordinator of the partitioned EMST on NATS workers (issue 20), which registers itself as emst()'s
 * `cluster` runner as it loads (emst.ts registerClusterEntry). The browser bundle is built from src/index.ts, so it
 * never holds the NATS client; emst.ts imports nothing from distributed/ (layers point down).
 */
export * from './index.js';
import './distributed/coordinator.js';
