'use strict';
// Unit tests of js/policy.js, run by TestJSUnit (jsunit_test.go) with
// node --test against the host's scripts as the launcher writes them
// (AIRVSX_HOST_JS names their directory).
const test = require('node:test');
const assert = require('node:assert/strict');
const { isBuiltin } = require('node:module');
const path = require('node:path');

const dir = process.env.AIRVSX_HOST_JS;
const policy = require(path.join(dir, 'policy.js'));

test('NEEDS is node-modules.json, the map static detection reads too', () => {
  const { modules } = require(path.join(dir, 'node-modules.json'));
  assert.ok(modules.length > 0);
  assert.deepEqual({ ...policy.NEEDS }, Object.fromEntries(modules.map((m) => [m.module, m.capability])));
  assert.ok(Object.isFrozen(policy.NEEDS));
});

test('what spawns, opens sockets or reaches files needs its capability', () => {
  const want = {
    child_process: 'spawn', cluster: 'spawn', worker_threads: 'spawn',
    net: 'network', http: 'network', https: 'network', http2: 'network', dgram: 'network', tls: 'network', dns: 'network', 'dns/promises': 'network',
    fs: 'fsWide', 'fs/promises': 'fsWide',
  };
  for (const [name, cap] of Object.entries(want)) assert.equal(policy.NEEDS[name], cap, name);
  for (const cap of Object.values(policy.NEEDS)) assert.ok(['spawn', 'network', 'fsWide'].includes(cap), cap);
});

test('SAFE, NEEDS and BROKERED name built-ins, and SAFE gates nothing', () => {
  for (const name of [...policy.SAFE, ...Object.keys(policy.NEEDS), ...Object.keys(policy.BROKERED)]) {
    assert.ok(isBuiltin(name), `${name} is not a Node built-in`);
  }
  for (const name of policy.SAFE) assert.equal(policy.NEEDS[name], undefined, `${name} is both safe and gated`);
  for (const name of Object.keys(policy.BROKERED)) assert.ok(policy.NEEDS[name], `${name} is brokered but needs no capability`);
  for (const name of ['vm', 'inspector', 'module', 'v8', 'repl', 'wasi', 'process']) {
    assert.ok(!policy.SAFE.has(name) && !policy.NEEDS[name], `${name} should be refused at load`);
  }
});

test('message names the extension, what it tried and the capability', () => {
  assert.equal(policy.message('a.b', "require('net')", 'network'),
    `airvsx: extension a.b may not require('net'): it needs the "network" capability, which it is not granted`);
  assert.equal(policy.message('', 'use process.binding', null),
    'airvsx: extension (unknown) may not use process.binding: no capability allows it');
});

test('brokeredMessage points at the broker and what to use', () => {
  assert.equal(policy.brokeredMessage('a.b', 'call net.connect', 'network', 'fetch()'),
    `airvsx: extension a.b may not call net.connect: network access is brokered (the "network" capability goes through the launcher, which checks the policy's hosts); use fetch()`);
  assert.match(policy.brokeredMessage(undefined, "import('cluster')", 'spawn', 'x'), /^airvsx: extension \(unknown\) may not import\('cluster'\): spawning is brokered .*policy's programs\); use x$/);
});
