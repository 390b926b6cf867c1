'use strict';
// What an extension may load, shared by require (gate.js) and import()
// (esm.mjs).

// SAFE are the built-ins every extension gets: computation only.
exports.SAFE = new Set(['assert', 'assert/strict', 'buffer', 'crypto', 'events', 'os', 'path', 'path/posix', 'path/win32',
  'punycode', 'querystring', 'stream', 'stream/promises', 'string_decoder', 'timers', 'timers/promises', 'url', 'util', 'util/types', 'zlib']);

// NEEDS maps a gated built-in to the capability that unlocks it. Built-ins
// in neither list (vm, inspector, module, v8, repl, wasi, ...) are refused.
exports.NEEDS = {
  child_process: 'spawn', worker_threads: 'spawn', cluster: 'spawn',
  net: 'network', http: 'network', https: 'network', http2: 'network', dgram: 'network', tls: 'network', dns: 'network', 'dns/promises': 'network',
  fs: 'fsWide', 'fs/promises': 'fsWide',
};

// message is the text of a refusal.
exports.message = (id, what, cap) =>
  `airvsx: extension ${id || '(unknown)'} may not ${what}: ${cap ? `it needs the "${cap}" capability, which it is not granted` : 'no capability allows it'}`;
