'use strict';
// Unit tests of js/gate.js (the seat belt), run by TestJSUnit: gate.install
// on this process with a host that records what it would send, and
// extensions whose code runs as them (AsyncLocalStorage), as host.js runs
// theirs. Everything the tests need is required before install: after it,
// code running for no extension gets only the harmless built-ins.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const realNet = require('node:net');
const realWorkers = require('node:worker_threads');
const { AsyncLocalStorage } = require('node:async_hooks');

const dir = process.env.AIRVSX_HOST_JS;
const gate = require(path.join(dir, 'gate.js'));

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'airvsx-gate-test-')));
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
const workspace = path.join(root, 'ws');
fs.mkdirSync(workspace);
fs.writeFileSync(path.join(root, 'secret.txt'), 'not yours');

const events = [];
const requests = [];
const host = {
  als: new AsyncLocalStorage(),
  children: new Map(),
  emit: (ext, kind, f) => events.push({ extension: ext ? ext.id : undefined, kind, ...f }),
  request: async (method, params) => { requests.push({ method, params }); return { status: 200, statusText: 'OK', headers: [], body: Buffer.from('hi').toString('base64'), url: params.url }; },
  notify() {},
};

function extension(id, caps) {
  const d = path.join(root, id);
  const storage = path.join(d, '.storage');
  fs.mkdirSync(storage, { recursive: true });
  fs.writeFileSync(path.join(d, 'own.txt'), 'mine');
  return { id, dir: d, caps: new Set(caps), storage: { global: storage, workspace: storage, log: storage }, api: { isVscode: id } };
}
const none = extension('a.none', []);
const net = extension('a.net', ['network']);
const spawn = extension('a.spawn', ['spawn']);
const reg = { exts: new Map([none, net, spawn].map((e) => [e.id, e])), opts: { workspaceFolders: [workspace] } };
gate.install(host, reg, true);

// as runs fn as ext's code.
const as = (ext, fn) => host.als.run({ ext, cause: 1 }, fn);
const deniedErr = (cap, what) => (err) => {
  assert.equal(err.code, 'ERR_AIRVSX_DENIED');
  assert.equal(err.capability, cap);
  if (what) assert.match(err.message, what);
  return true;
};

test('vscode is the extension\'s own api', () => {
  assert.equal(as(none, () => require('vscode')), none.api);
  assert.equal(as(net, () => require('vscode')), net.api);
});

test('a gated module loads, and its operations are denied at use', () => {
  events.length = 0;
  const n = as(none, () => require('net'));
  assert.notEqual(n, realNet);
  assert.equal(n.isIP('127.0.0.1'), 4, 'a pure function passes');
  assert.equal(as(none, () => require('node:net')), n, 'one facade per module');
  assert.throws(() => n.connect(80, '127.0.0.1'), deniedErr('network', /^airvsx: extension a.none may not call net.connect: it needs the "network" capability/));
  assert.throws(() => new n.Socket(), deniedErr('network', /construct net.Socket/));
  assert.deepEqual(events.at(-1), {
    extension: 'a.none', kind: 'denied', capability: 'network',
    text: events.at(-1).text, data: { operation: 'construct net.Socket', target: undefined },
  });
  const http = as(none, () => require('http'));
  assert.equal(http.STATUS_CODES[404], 'Not Found', 'values pass');
  assert.throws(() => http.get('http://example.com/'), deniedErr('network', /call http.get\("http:\/\/example.com\/"\)/));
});

test('each gated module needs the capability policy.js names', () => {
  for (const [name, cap] of [['child_process', 'spawn'], ['worker_threads', 'spawn'], ['cluster', 'spawn'], ['dgram', 'network'], ['dns/promises', 'network']]) {
    const m = as(none, () => require(name));
    const fn = Object.keys(m).find((k) => typeof m[k] === 'function');
    assert.throws(() => m[fn]('x'), deniedErr(cap), `${name}.${fn}`);
  }
  assert.throws(() => new (as(none, () => require('worker_threads')).Worker)('x.js'), deniedErr('spawn'));
});

test('a granted capability loads the module, or its broker', () => {
  assert.equal(as(spawn, () => require('worker_threads')), realWorkers);
  const cp = as(spawn, () => require('child_process'));
  assert.notEqual(cp, require.cache[require.resolve('node:child_process')]);
  assert.equal(typeof cp.execFile, 'function');
  // network goes through fetch: the socket modules are brokered.
  assert.throws(() => as(net, () => require('net')).connect(80), deniedErr('network', /network access is brokered .* use fetch\(\)$/));
});

test('fetch is the broker\'s for a network-granted extension only', async () => {
  requests.length = 0;
  const res = await as(net, () => fetch('https://example.com/x'));
  assert.equal(await res.text(), 'hi');
  assert.deepEqual(requests.map((r) => [r.method, r.params.extension, r.params.url]), [['net/fetch', 'a.net', 'https://example.com/x']]);
  await assert.rejects(as(none, () => fetch('https://example.com/y')), deniedErr('network', /use fetch\("https:\/\/example.com\/y"\)/));
  assert.equal(requests.length, 1);
});

test('modules no capability allows are refused at load', () => {
  for (const name of ['vm', 'node:inspector', 'v8', 'module']) {
    assert.throws(() => as(net, () => require(name)), deniedErr(null, /no capability allows it/), name);
  }
  assert.throws(() => require('node:net'), deniedErr('network', /outside any extension's context/));
});

test('fs without fsWide reaches only the extension\'s folder, storage and workspace', async () => {
  const f = as(none, () => require('fs'));
  assert.notEqual(f, fs);
  assert.equal(f.readFileSync(path.join(none.dir, 'own.txt'), 'utf8'), 'mine');
  f.writeFileSync(path.join(workspace, 'w.txt'), 'ok');
  f.writeFileSync(path.join(none.storage.global, 's.txt'), 'ok');
  assert.throws(() => f.readFileSync(path.join(root, 'secret.txt')), deniedErr('fsWide', /may not read .*secret.txt \(fs.readFileSync\)/));
  assert.throws(() => f.readFileSync(path.join(none.dir, '..', 'secret.txt')), deniedErr('fsWide'));
  assert.throws(() => f.writeFileSync(path.join(none.dir, 'x'), 'x'), deniedErr('fsWide', /may not write/), 'its own folder is read-only');
  assert.throws(() => f.copyFileSync(path.join(root, 'secret.txt'), path.join(workspace, 'c')), deniedErr('fsWide'));
  fs.symlinkSync(path.join(root, 'secret.txt'), path.join(workspace, 'link'));
  assert.throws(() => f.readFileSync(path.join(workspace, 'link')), deniedErr('fsWide'), 'a symlink out is followed');
  await assert.rejects(async () => f.promises.readFile(path.join(root, 'secret.txt')), deniedErr('fsWide'));
  assert.equal(await f.promises.readFile(path.join(workspace, 'w.txt'), 'utf8'), 'ok');
});

test('process escapes are refused', () => {
  assert.throws(() => as(none, () => process.exit(3)), deniedErr(null, /call process.exit\(3\)/));
  assert.throws(() => as(spawn, () => process.binding('fs')), deniedErr(null));
  assert.throws(() => as(none, () => process.dlopen({}, '/x.node')), deniedErr(null));
  assert.throws(() => as(none, () => process.kill(1, 0)), deniedErr('spawn'));
  assert.equal(process.mainModule, undefined);
});
