// @ts-check
'use strict';
// The airvsx extension host: runs VS Code extensions for the Go launcher
// (hostlaunch/host). The launcher opens Node's IPC channel (NODE_CHANNEL_FD,
// 'json' serialization: one JSON message per line) and speaks JSON-RPC 2.0
// over it. Handshake: host -> "ready" {node, pid}; launcher -> "initialize"
// {extensions, workspace, ...}; then requests "activate", "executeCommand",
// "documents/*" (open, change, save, close, get, list, show), "provide"
// (a language feature), "diagnostics", "tree/*", "ping", "shutdown", and
// for the streamed programs of spawn.js the request "spawn/data"
// (answered when the chunk is taken: the launcher's back-pressure) and
// the notification "spawn/exit". The host sends "event" notifications and
// asks the launcher "fs/*", "spawn/*", "net/fetch" (the brokers) and
// "ui/*" (quick picks, input boxes and messages with choices, for the
// user or the driver's client).
const { AsyncLocalStorage } = require('node:async_hooks');

const reallyExit = process.reallyExit.bind(process); // kept before gate.js replaces it
const als = new AsyncLocalStorage(); // {ext, cause} of the code running now

// send writes one JSON-RPC message; a closed channel means the launcher is gone.
function send(msg) {
  msg.jsonrpc = '2.0';
  try {
    process.send(msg);
  } catch {
    reallyExit(0);
  }
}

// MAX_TEXT caps an event's text, MAX_RESULT a command's result (in JSON),
// well under the launcher's 16 MiB message limit.
const MAX_TEXT = 64 * 1024;
const MAX_RESULT = 8 * 1024 * 1024;

// emit sends an event attributed to ext (or to the extension running now)
// and to the launcher request that caused it.
function emit(ext, kind, fields) {
  const store = als.getStore();
  const e = ext || (store && store.ext);
  if (typeof fields.text === 'string' && fields.text.length > MAX_TEXT) fields.text = fields.text.slice(0, MAX_TEXT) + '… (truncated)';
  send({ method: 'event', params: Object.assign({ kind, extension: e ? e.id : undefined, cause: store ? store.cause : undefined }, fields) });
}

// request asks the launcher (method, params) and resolves with its
// result: how workspace.fs reaches files, and how spawn.js and fetch.js
// reach the brokers. A broker's refusal rejects with code
// ERR_AIRVSX_DENIED.
const asked = new Map();
let lastAsk = 0;
function request(method, params) {
  const id = ++lastAsk;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject });
    send({ id, method, params });
  });
}

// notify sends a notification (no answer): "commands/registered".
function notify(method, params) {
  send({ method, params });
}

// streams are the streamed children of spawn.js by token (their
// "spawn/data" and "spawn/exit" handlers); children the same by virtual
// pid, for process.kill (gate.js).
const streams = new Map();
const children = new Map();

const host = { als, emit, reallyExit, request, notify, streams, children };
const extensions = require('./extensions.js')(host);
const gate = require('./gate.js');

// handlers are the methods the launcher may call.
const handlers = {
  async initialize(p) {
    await extensions.init(p);
    // noSeatBelt: only 'vscode' is provided, nothing is gated; the kernel
    // sandbox stands alone (tests of its layers).
    gate.install(host, extensions, !p.noSeatBelt);
    captureConsole();
    return {};
  },
  activate: (p) => extensions.activateRequest(p.extension),
  ping: () => ({}),
  executeCommand: async (p) => ({ value: jsonSafe(await extensions.executeCommand(p.command, p.args || [])) }),
  openDocument: (p) => extensions.openDocument(p),
  'documents/open': (p) => extensions.openDocument(p),
  'documents/change': (p) => {
    const d = extensions.documentOf(p);
    if (typeof p.text === 'string') { if (p.text !== d.getText()) extensions.documents.replaceAll(d, p.text, 'launcher'); }
    else extensions.documents.apply(d, (p.changes || []).map((c) => ({ range: c.range, newText: c.text })), 'launcher');
    if (Number.isInteger(p.version) && p.version > d.version) d.version = p.version;
    return extensions.describe(d);
  },
  'documents/save': async (p) => { const d = extensions.documentOf(p); const saved = await extensions.documents.save(d); return Object.assign(extensions.describe(d), { saved }); },
  'documents/close': (p) => { extensions.documents.close(extensions.documentOf(p)); return {}; },
  'documents/get': (p) => extensions.describe(extensions.documentOf(p), true),
  'documents/list': () => ({ documents: extensions.documents.all().map((d) => extensions.describe(d)), active: extensions.documents.active ? extensions.documents.active.document.uri.toString() : undefined }),
  'documents/language': (p) => ({ languageId: p.uri || p.path ? extensions.documents.languageOf(p.uri ? require('./types.js').Uri.parse(String(p.uri)) : require('./types.js').Uri.file(String(p.path))) : 'plaintext' }),
  'documents/show': (p) => { extensions.documents.show(extensions.documentOf(p)); return {}; },
  provide: (p) => extensions.languages.provide(p),
  diagnostics: (p) => ({ diagnostics: extensions.languages.diagnostics(p.uri) }),
  'tree/children': (p) => extensions.window.children(p),
  'tree/views': () => ({ views: extensions.window.views() }),
  shutdown: async (p) => extensions.shutdown(p.deadlineMs || 2500),
  // A chunk of a streamed child's output: answered once it is taken.
  'spawn/data': (p) => {
    const s = streams.get(p.token);
    if (!s) throw new Error(`no streamed program ${p.token}`);
    return s.data(p.stream, p.data);
  },
  // A streamed child ended (a notification).
  'spawn/exit': (p) => {
    const s = streams.get(p.token);
    if (s) s.exit(p);
  },
};

const util = require('node:util');

// captureConsole sends an extension's console.* to the launcher as events
// attributed to it; the host's own console stays on stdout/stderr.
function captureConsole() {
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const orig = console[level].bind(console);
    console[level] = (...a) => {
      const s = als.getStore();
      if (s && s.ext) emit(null, 'console', { level, text: util.format(...a) });
      else orig(...a);
    };
  }
}

// jsonSafe turns a command's result into something JSON can carry.
function jsonSafe(v) {
  if (v === undefined) return null;
  let json;
  try {
    json = JSON.stringify(v); // undefined for a function or a symbol
  } catch {
    // a cycle, a BigInt: described below
  }
  if (json === undefined) {
    try {
      return String(v);
    } catch {
      return Object.prototype.toString.call(v); // e.g. a module namespace
    }
  }
  if (json.length > MAX_RESULT) throw new Error(`the command's result is larger than ${MAX_RESULT} bytes of JSON`);
  return JSON.parse(json);
}

// msg is a JSON-RPC message from the launcher: parsed JSON, any shape.
process.on('message', (/** @type {any} */ msg) => {
  if (msg && msg.jsonrpc === '2.0' && msg.method === undefined && asked.has(msg.id)) {
    const a = asked.get(msg.id); // the launcher's answer to a request of ours
    asked.delete(msg.id);
    if (!msg.error) return a.resolve(msg.result);
    /** @type {HostError} */
    const err = new Error(msg.error.message);
    if (msg.error.code === -32002) err.code = 'ERR_AIRVSX_DENIED'; // a broker's refusal
    if (msg.error.code === -32003) err.code = 'ERR_AIRVSX_BUSY'; // a broker's limit: try again later
    a.reject(err);
    return;
  }
  if (!msg || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') return;
  const h = Object.prototype.hasOwnProperty.call(handlers, msg.method) && handlers[msg.method];
  const reply = (r) => msg.id !== undefined && send(Object.assign({ id: msg.id }, r));
  if (!h) return reply({ error: { code: -32601, message: `no method ${msg.method}` } });
  als.run({ ext: null, cause: msg.id }, async () => {
    try {
      reply({ result: await h(msg.params || {}) });
    } catch (err) {
      const message = String(err && err.message || err).slice(0, MAX_TEXT);
      reply({ error: { code: err && err.rpcCode || -32000, message, data: err && err.rpcData } });
    }
  });
});

// The launcher closing the channel ends the host.
process.on('disconnect', () => reallyExit(0));
// An extension's stray exception or rejection is reported, never fatal.
// A refusal (ERR_AIRVSX_DENIED) is told by its message: its stack holds
// the host's own files.
const described = (err) => err && err.code === 'ERR_AIRVSX_DENIED' ? `Error: ${err.message}` : err && err.stack || err;
process.on('uncaughtException', (err) => emit(null, 'error', { text: `uncaught exception: ${described(err)}` }));
process.on('unhandledRejection', (err) => emit(null, 'error', { text: `unhandled rejection: ${described(err)}` }));

send({ method: 'ready', params: { node: process.version, pid: process.pid } });
