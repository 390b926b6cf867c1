// @ts-check
'use strict';
// Lifetimes and events: Disposable, EventEmitter, CancellationTokenSource
// and CancellationError, with VS Code's semantics.

// Disposable: a resource released by calling dispose, once.
class Disposable {
  #callOnDispose;
  #disposed = false;

  constructor(callOnDispose) {
    this.#callOnDispose = callOnDispose;
  }

  // from is a Disposable that disposes each of disposables (skipping
  // anything without a dispose method), once.
  static from(...disposables) {
    let list = disposables;
    return new Disposable(() => {
      if (!list) return;
      const ds = list;
      list = undefined;
      for (const d of ds) if (d && typeof d.dispose === 'function') d.dispose();
    });
  }

  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    const f = this.#callOnDispose;
    this.#callOnDispose = undefined;
    if (typeof f === 'function') f();
  }
}

// report tells of an error a listener threw, without stopping the others.
function report(err) {
  console.error('airvsx: an event listener threw:', err);
}

// addTo records d in disposables: an array, or anything with add.
function addTo(disposables, d) {
  if (Array.isArray(disposables)) disposables.push(d);
  else if (disposables && typeof disposables.add === 'function') disposables.add(d);
}

// EventEmitter: an event source; event subscribes, fire delivers to every
// listener in order (one that throws is reported and the rest still run).
class EventEmitter {
  #listeners = [];
  #disposed = false;
  #event;

  // event subscribes listener (called with thisArgs) and returns the
  // Disposable that unsubscribes it, also pushed onto disposables.
  get event() {
    if (!this.#event) {
      this.#event = (listener, thisArgs, disposables) => {
        if (typeof listener !== 'function') throw new TypeError('an event listener must be a function');
        if (this.#disposed) {
          const none = new Disposable(() => {});
          addTo(disposables, none);
          return none;
        }
        const entry = { listener, thisArgs, live: true };
        this.#listeners.push(entry);
        const d = new Disposable(() => {
          entry.live = false;
          const i = this.#listeners.indexOf(entry);
          if (i !== -1) this.#listeners.splice(i, 1);
        });
        addTo(disposables, d);
        return d;
      };
    }
    return this.#event;
  }

  // A subclass may set event to an event of its own.
  set event(fn) { this.#event = fn; }

  // fire delivers data to the listeners subscribed now; one unsubscribed
  // meanwhile is skipped.
  fire(data) {
    if (this.#disposed) return;
    for (const entry of this.#listeners.slice()) {
      if (!entry.live) continue;
      try {
        entry.listener.call(entry.thisArgs, data);
      } catch (err) {
        report(err);
      }
    }
  }

  // dispose drops every listener; the emitter fires no more.
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const entry of this.#listeners) entry.live = false;
    this.#listeners = [];
  }
}

// CancellationError: the error an operation throws when it was cancelled.
class CancellationError extends Error {
  constructor() {
    super('Canceled');
    this.name = 'Canceled';
  }
}

// Cancelled is the event of a cancelled token: a listener subscribing
// late is still called, on the next turn.
function cancelledEvent(listener, thisArgs, disposables) {
  const handle = setTimeout(() => {
    try {
      listener.call(thisArgs, undefined);
    } catch (err) {
      report(err);
    }
  }, 0);
  const d = new Disposable(() => clearTimeout(handle));
  addTo(disposables, d);
  return d;
}

const neverEvent = (listener, thisArgs, disposables) => {
  const d = new Disposable(() => {});
  addTo(disposables, d);
  return d;
};

// CancellationToken holds the two shared tokens: None (never cancelled)
// and Cancelled. Real VS Code has no such value; the API declares only
// the interface.
const CancellationToken = Object.freeze({
  None: Object.freeze({ isCancellationRequested: false, onCancellationRequested: neverEvent }),
  Cancelled: Object.freeze({ isCancellationRequested: true, onCancellationRequested: cancelledEvent }),
  // isCancellationToken reports whether thing looks like a token.
  isCancellationToken(thing) {
    return !!thing && typeof thing.isCancellationRequested === 'boolean' && typeof thing.onCancellationRequested === 'function';
  },
});

// MutableToken: the token a CancellationTokenSource hands out.
class MutableToken {
  #cancelled = false;
  #emitter;

  get isCancellationRequested() { return this.#cancelled; }

  get onCancellationRequested() {
    if (this.#cancelled) return cancelledEvent;
    if (!this.#emitter) this.#emitter = new EventEmitter();
    return this.#emitter.event;
  }

  cancel() {
    if (this.#cancelled) return;
    this.#cancelled = true;
    if (this.#emitter) {
      const e = this.#emitter;
      this.#emitter = undefined;
      e.fire(undefined);
      e.dispose();
    }
  }

  dispose() {
    if (this.#emitter) this.#emitter.dispose();
    this.#emitter = undefined;
  }
}

// CancellationTokenSource: makes a CancellationToken and cancels it.
class CancellationTokenSource {
  #token;
  #parentListener;

  // With a parent token, the source is cancelled when the parent is.
  constructor(parent) {
    if (parent && typeof parent.onCancellationRequested === 'function') {
      if (parent.isCancellationRequested) this.cancel();
      else this.#parentListener = parent.onCancellationRequested(() => this.cancel());
    }
  }

  // token is created on first use; after cancel it is cancelled.
  get token() {
    if (!this.#token) this.#token = new MutableToken();
    return this.#token;
  }

  // cancel cancels the token: its event fires once.
  cancel() {
    if (!this.#token) this.#token = CancellationToken.Cancelled;
    else if (this.#token instanceof MutableToken) this.#token.cancel();
  }

  // dispose releases the source, cancelling first when cancel is true.
  dispose(cancel = false) {
    if (cancel) this.cancel();
    if (this.#parentListener) this.#parentListener.dispose();
    if (!this.#token) this.#token = CancellationToken.None;
    else if (this.#token instanceof MutableToken) this.#token.dispose();
  }
}

module.exports = { Disposable, EventEmitter, CancellationTokenSource, CancellationError, CancellationToken };
