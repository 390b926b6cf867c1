'use strict';
// Unit tests of js/shared.js (host-wide events), run by TestJSUnit.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { AsyncLocalStorage } = require('node:async_hooks');

const { Shared, never, token } = require(path.join(process.env.AIRVSX_HOST_JS, 'shared.js'));

function newHost() {
  const events = [];
  return { events, als: new AsyncLocalStorage(), emit: (ext, kind, f) => events.push({ ext: ext && ext.id, kind, ...f }) };
}

test('fire calls each listener as the extension that subscribed, with the cause', () => {
  const host = newHost();
  const ev = new Shared(host, 'onDidOpen');
  const a = { id: 'a.a' };
  const b = { id: 'b.b' };
  const seen = [];
  const self = { name: 'this' };
  ev.event(a)(function (d) { seen.push([host.als.getStore().ext.id, host.als.getStore().cause, d, this && this.name]); }, self);
  ev.event(b)((d) => seen.push([host.als.getStore().ext.id, host.als.getStore().cause, d]));
  host.als.run({ ext: null, cause: 7 }, () => ev.fire('doc'));
  assert.deepEqual(seen, [['a.a', 7, 'doc', 'this'], ['b.b', 7, 'doc']]);
});

test('a throwing or rejecting listener is reported and the others still run', async () => {
  const host = newHost();
  const ev = new Shared(host, 'onDidSave');
  let called = 0;
  ev.event({ id: 'bad.sync' })(() => { throw new Error('boom'); });
  ev.event({ id: 'bad.async' })(async () => { throw new Error('later'); });
  ev.event({ id: 'good.one' })(() => { called++; });
  ev.fire(1);
  await new Promise((r) => setImmediate(r));
  assert.equal(called, 1);
  assert.deepEqual(host.events.map((e) => [e.ext, e.kind]), [['bad.sync', 'error'], ['bad.async', 'error']]);
  assert.match(host.events[0].text, /^onDidSave listener: Error: boom/);
  assert.match(host.events[1].text, /^onDidSave listener: Error: later/);
});

test('dispose unsubscribes, and disposables collects it', () => {
  const ev = new Shared(newHost(), 'onDidClose');
  let n = 0;
  const disposables = [];
  const d = ev.event({ id: 'x.y' })(() => n++, undefined, disposables);
  assert.deepEqual(disposables, [d]);
  ev.fire();
  d.dispose();
  ev.fire();
  assert.equal(n, 1);
  assert.throws(() => ev.event({ id: 'x.y' })('not a function'), { name: 'TypeError', message: 'onDidClose: the listener must be a function' });
});

test('never never fires and disposes', () => {
  const d = never()(() => assert.fail('fired'));
  assert.equal(typeof d.dispose, 'function');
  d.dispose();
});

test('token is cancelled after ms, by cancel, and never when ms is 0', async () => {
  const t0 = token(0);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(t0.token.isCancellationRequested, false);
  t0.cancel();
  assert.equal(t0.token.isCancellationRequested, true);
  const t1 = token(5);
  let fired = 0;
  t1.token.onCancellationRequested(() => fired++);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(t1.token.isCancellationRequested, true);
  assert.equal(fired, 1);
  const t2 = token(5);
  t2.dispose();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(t2.token.isCancellationRequested, false);
});
