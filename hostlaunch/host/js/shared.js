// @ts-check
'use strict';
// Host-wide events: one emitter per event of the vscode API (a document
// opened, a terminal closed, ...), shared by every extension of the host,
// whose listeners run as the extension that subscribed (attribution for
// the seat belt and for events), and whose throwing listener is reported
// without stopping the others.
const { CancellationTokenSource } = require('./event.js');

// Shared is one host-wide event.
class Shared {
  constructor(host, name) {
    this.host = host;
    this.name = name;
    this.listeners = new Set();
  }

  // event returns the vscode Event ext subscribes with.
  event(ext) {
    return (fn, thisArg, disposables) => {
      if (typeof fn !== 'function') throw new TypeError(`${this.name}: the listener must be a function`);
      const l = { fn, thisArg, ext };
      this.listeners.add(l);
      const d = { dispose: () => { this.listeners.delete(l); } };
      if (Array.isArray(disposables)) disposables.push(d);
      return d;
    };
  }

  // fire calls every listener with data, each as its extension.
  fire(data) {
    for (const l of [...this.listeners]) {
      const store = this.host.als.getStore();
      this.host.als.run({ ext: l.ext, cause: store && store.cause }, () => {
        try {
          const r = l.fn.call(l.thisArg, data);
          if (r && typeof r.then === 'function') r.then(undefined, (err) => this.report(l.ext, err));
        } catch (err) {
          this.report(l.ext, err);
        }
      });
    }
  }

  report(ext, err) {
    this.host.emit(ext, 'error', { text: `${this.name} listener: ${err && err.stack || err}` });
  }
}

// never is an event that never fires: what a headless host has no
// source for (window focus changes, a debug session starting).
function never() {
  return () => ({ dispose() {} });
}

// token returns a CancellationTokenSource's token that is cancelled
// after ms (never when ms is 0), with cancel, and dispose that stops the
// timer.
function token(ms) {
  const src = new CancellationTokenSource();
  let timer;
  if (ms > 0) { timer = setTimeout(() => src.cancel(), ms); timer.unref(); }
  return { token: src.token, cancel: () => src.cancel(), dispose: () => clearTimeout(timer) };
}

module.exports = { Shared, never, token };
