// @ts-check
'use strict';
// What an extension may load, shared by require (gate.js) and import()
// (esm.mjs).

// SAFE are the built-ins every extension gets: computation only.
exports.SAFE = new Set(['assert', 'assert/strict', 'buffer', 'crypto', 'events', 'os', 'path', 'path/posix', 'path/win32',
  'punycode', 'querystring', 'stream', 'stream/promises', 'string_decoder', 'timers', 'timers/promises', 'url', 'util', 'util/types', 'zlib']);

// NEEDS maps a gated built-in to the capability that unlocks it; without
// it require gives a facade whose operations throw (gate.js). Built-ins
// in neither list (vm, inspector, module, v8, repl, wasi, ...) are refused
// at load. The map is node-modules.json, which the launcher writes beside
// these scripts from index/nodemodules.json: static detection
// (index/vsix) reads the same file, so the two cannot disagree.
exports.NEEDS = Object.freeze(Object.fromEntries(require('./node-modules.json').modules.map((m) => [m.module, m.capability])));

// BROKERED are the built-ins an extension does not get even with their
// capability: the kernel sandbox refuses their sockets and processes, and
// the capability is served by a broker instead (child_process through
// require is the brokered module of spawn.js; the network is the global
// fetch of fetch.js). The value says what to use.
exports.BROKERED = {
  net: 'fetch()', http: 'fetch()', https: 'fetch()', http2: 'fetch()', dgram: 'fetch()', tls: 'fetch()', dns: 'fetch()', 'dns/promises': 'fetch()',
  cluster: "require('child_process').spawn or execFile",
};

// brokeredMessage is the text of the refusal of a BROKERED module (or of
// child_process imported rather than required).
exports.brokeredMessage = (id, what, cap, instead) =>
  `airvsx: extension ${id || '(unknown)'} may not ${what}: ${cap === 'network' ? 'network access is brokered' : 'spawning is brokered'} (the "${cap}" capability goes through the launcher, which checks the policy's ${cap === 'network' ? 'hosts' : 'programs'}); use ${instead}`;

// message is the text of a refusal.
exports.message = (id, what, cap) =>
  `airvsx: extension ${id || '(unknown)'} may not ${what}: ${cap ? `it needs the "${cap}" capability, which it is not granted` : 'no capability allows it'}`;
