// @ts-check
'use strict';
// The extensions of one host: lazy activation (dependencies first),
// commands, documents, and deactivation with a deadline.
const fs = require('node:fs');
const path = require('node:path');
const createApi = require('./vscode.js');
const { Uri } = require('./types.js');
const { Shared } = require('./shared.js');

module.exports = function (host) {
  const exts = new Map(); // lower-case id -> extension state
  const order = []; // activated extensions, in activation order
  const commands = new Map(); // command id -> {fn, thisArg, ext}
  const self = { exts, commands, host };
  let opts = {};
  const currentExt = () => { const s = host.als.getStore(); return s && s.ext; };

  // configDefaults are the contributed settings' defaults, by full key.
  let defaults;
  self.configDefaults = () => {
    if (defaults) return defaults;
    // The editor's own settings extensions read most, with VS Code's defaults.
    defaults = {
      'editor.tabSize': 4, 'editor.insertSpaces': true, 'editor.detectIndentation': true, 'editor.fontSize': 14, 'editor.lineNumbers': 'on',
      'editor.wordSeparators': '`~!@#$%^&*()-=+[{]}\\|;:\'",.<>/?', 'editor.formatOnSave': false, 'editor.formatOnType': false,
      'editor.defaultFormatter': null, 'editor.wordWrap': 'off', 'editor.rulers': [], 'editor.cursorStyle': 'line',
      'files.eol': 'auto', 'files.encoding': 'utf8', 'files.autoSave': 'off', 'files.insertFinalNewline': false, 'files.trimTrailingWhitespace': false,
      'files.exclude': { '**/.git': true, '**/.svn': true, '**/.hg': true, '**/CVS': true, '**/.DS_Store': true, '**/Thumbs.db': true },
      'search.exclude': { '**/node_modules': true, '**/bower_components': true, '**/*.code-search': true },
      'http.proxy': '', 'http.proxyStrictSSL': true, 'telemetry.telemetryLevel': 'off', 'workbench.colorTheme': 'Default Dark Modern',
    };
    for (const e of exts.values()) {
      const c = e.desc.packageJSON.contributes && e.desc.packageJSON.contributes.configuration;
      for (const block of Array.isArray(c) ? c : c ? [c] : []) {
        for (const [k, v] of Object.entries((block && block.properties) || {})) if (v && typeof v === 'object' && 'default' in v) defaults[k] = v.default;
      }
    }
    return defaults;
  };

  // fail is an error the launcher sees with the extension it concerns.
  function fail(kind, ext, message) {
    /** @type {HostError} */
    const err = new Error(message);
    err.rpcCode = -32001;
    err.rpcData = { kind, extension: ext ? ext.id : undefined };
    return err;
  }

  self.init = async function (p) {
    opts = p;
    self.opts = p;
    self.folders = (p.workspaceFolders || []).map((f, index) => Object.freeze({ uri: Uri.file(f), name: path.basename(f), index }));
    self.documents = require('./documents.js')(host, self);
    self.languages = require('./languages.js')(host, self);
    self.window = require('./window.js')(host, self);
    self.workspace = require('./workspace.js')(host, self);
    self.tasks = require('./tasks.js')(host, self);
    self.builtins = require('./builtins.js')(host, self);
    self.readDocument = (ext, uri) => self.workspace.readDocument(ext, uri);
    self.writeDocument = (uri, bytes) => self.workspace.writeDocument(currentExt(), uri, bytes);
    self.uriHandlers = new Map();
    self.auth = new Map();
    self.authChanged = new Shared(host, 'onDidChangeSessions');
    self.secrets = new Map();
    self.breakpoints = [];
    self.breakpointsChanged = new Shared(host, 'onDidChangeBreakpoints');
    self.clipboard = '';
    let ids = 0;
    self.nextId = () => ++ids;
    // childProcessOf is require('child_process') as ext: the seat belt's
    // brokered module, or its refusal.
    self.childProcessOf = (ext) => host.als.run({ ext, cause: undefined }, () => require('node:child_process'));
    // The extensions of other hosts (their grants differ): known by id
    // only; the launcher activates them in their own host.
    self.elsewhere = new Set((p.elsewhere || []).map((id) => id.toLowerCase()));
    self.commandOwners = new Map(Object.entries(p.commandOwners || {}));
    for (const d of p.extensions || []) {
      const dir = fs.realpathSync(d.path);
      try { d.packageJSON = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')); } catch { d.packageJSON = {}; }
      d.activationEvents = d.activationEvents || [];
      // The launcher made these folders; this host may write only them.
      const storage = path.join(p.storageDir, d.id);
      const ext = {
        id: d.id, desc: d, dir, caps: new Set(d.capabilities || []),
        storage: { global: path.join(storage, 'global'), workspace: path.join(storage, 'workspace'), log: path.join(storage, 'log') },
        state: 'inactive', promise: null, exports: undefined, module: null, context: null,
      };
      for (const s of Object.values(ext.storage)) fs.mkdirSync(s, { recursive: true, mode: 0o700 });
      ext.api = createApi(ext, self);
      exts.set(d.id.toLowerCase(), ext);
    }
  };

  const has = (e, event) => (e.desc.activationEvents || []).includes(event);

  // activateRequest is the launcher's "activate": the one extension it
  // names (the launcher activated its dependencies first). Activation at
  // start (*, workspaceContains, onStartupFinished) is the launcher's too.
  self.activateRequest = async function (id) {
    const ext = exts.get(String(id).toLowerCase());
    if (!ext) throw fail('notFound', null, `no extension ${id} in this host`);
    await self.activate(ext);
    return {};
  };

  // activate loads ext once, its dependencies in this host first, and runs
  // its activate() within the deadline. A dependency on the chain that led
  // here (a cycle) is not waited for: each extension activates once. A
  // dependency of another host is the launcher's to activate.
  self.activate = function (ext, chain) {
    if (!ext.promise) ext.promise = doActivate(ext, new Set(chain || []).add(ext));
    return ext.promise;
  };

  async function doActivate(ext, chain) {
    ext.state = 'activating';
    await null; // ext.promise is set before a dependency can ask for it
    try {
      for (const dep of ext.desc.dependencies || []) {
        const key = dep.toLowerCase();
        if (self.elsewhere.has(key)) continue;
        const d = exts.get(key);
        if (!d) throw fail('activationFailed', ext, `${ext.id}: dependency ${dep} is not installed or is disabled`);
        if (chain.has(d)) continue;
        try { await self.activate(d, chain); } catch (err) { throw fail('activationFailed', ext, `${ext.id}: dependency ${dep} failed to activate: ${String(err.message).slice(0, 2000)}`); }
      }
      if (ext.desc.main) {
        const main = require.resolve(path.resolve(ext.dir, ext.desc.main));
        if (!main.startsWith(ext.dir + path.sep)) throw new Error(`main ${ext.desc.main} is outside the extension`);
        ext.context = ext.api._context;
        const store = host.als.getStore();
        await host.als.run({ ext, cause: store && store.cause }, async () => {
          ext.module = require(main);
          if (typeof ext.module.activate === 'function') {
            ext.exports = await deadline(Promise.resolve().then(() => ext.module.activate(ext.context)), opts.activateMs || 10000, `activate did not finish within ${opts.activateMs || 10000} ms`);
          }
        });
      }
      ext.state = 'active';
      order.push(ext);
      host.emit(ext, 'activated', {});
      return ext.exports;
    } catch (err) {
      ext.state = 'failed';
      // A refusal's stack holds the host's own files: its message says it all.
      const why = err && err.code === 'ERR_AIRVSX_DENIED' ? `Error: ${err.message}` : err && err.stack || err;
      const msg = err.rpcData ? err.message : `${ext.id} failed to activate: ${why}`;
      host.emit(ext, 'activationFailed', { text: msg });
      throw err.rpcData ? err : fail('activationFailed', ext, msg);
    }
  }

  function deadline(p, ms, what) {
    let t;
    return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(what)), ms); })]).finally(() => clearTimeout(t));
  }

  // executeCommand runs a command, first activating the extensions
  // waiting for onCommand:<id>.
  self.executeCommand = async function (id, args) {
    const owner = self.commandOwners.get(id);
    if (!commands.has(id) && owner && self.elsewhere.has(owner.toLowerCase())) {
      throw fail('notFound', null, `command ${id} belongs to ${owner}, which runs in another extension host (their grants differ): a command runs only within its own host (grant both extensions the same to run them together)`);
    }
    if (!commands.has(id)) {
      const waiting = [...exts.values()].filter((e) => e.state !== 'active' && has(e, 'onCommand:' + id));
      for (const e of waiting) await self.activate(e);
      if (!commands.has(id) && self.builtins.has(id)) return self.builtins.run(id, args);
      if (!commands.has(id)) {
        const who = waiting.map((e) => e.id).join(', ');
        throw fail('notFound', waiting[0], who ? `command ${id} was not registered by ${who}, which activated on it` : `command ${id} not found`);
      }
    }
    const c = commands.get(id);
    const store = host.als.getStore();
    try {
      return await host.als.run({ ext: c.ext, cause: store && store.cause }, () => c.fn.apply(c.thisArg, args));
    } catch (err) {
      // What the command threw, even a command lookup of its own that
      // failed, is the command's error, not this lookup's.
      if (err && err.rpcData) throw new Error(err.message);
      throw err;
    }
  };

  // activateFor activates this host's extensions waiting for event.
  async function activateFor(event) {
    const activated = [];
    for (const e of exts.values()) {
      if (e.state === 'inactive' && has(e, event)) {
        try { await self.activate(e); activated.push(e.id); } catch { /* reported as activationFailed */ }
      }
    }
    return activated;
  }
  self.activateFor = activateFor;

  // openDocument is the launcher's "documents/open" (and the older
  // "openDocument"): the onLanguage extensions first (the launcher
  // activated them; here for a host run on its own), then the document,
  // which becomes the active editor's unless p.show is false. Without
  // text, the workspace broker reads the file.
  self.openDocument = async function (p) {
    let uri = p.uri ? Uri.parse(String(p.uri)) : p.path ? Uri.file(String(p.path)) : null;
    let text = p.text;
    let readOnly = false;
    if (!uri) {
      // a language only: a new untitled document of it
      let n = 1;
      while (self.documents.get(`untitled:Untitled-${n}`)) n++;
      uri = Uri.from({ scheme: 'untitled', path: `Untitled-${n}` });
      if (typeof text !== 'string') text = '';
    }
    if (typeof text !== 'string' && !self.documents.get(uri)) {
      ({ text, readOnly } = await self.readDocument(null, uri));
    }
    const languageId = p.languageId || p.language || self.documents.languageOf(uri);
    const activated = await activateFor('onLanguage:' + languageId);
    const doc = self.documents.openFromLauncher({ uri: uri.toString(), languageId, text, readOnly });
    if (p.show !== false) self.documents.show(doc);
    return { activated, document: describe(doc) };
  };

  // describe is a document as the launcher sees it.
  const describe = (d, withText) => ({ uri: d.uri.toString(), languageId: d.languageId, version: d.version, isDirty: d.isDirty, lineCount: d.lineCount, text: withText ? d.getText() : undefined });
  self.describe = describe;

  // documentOf returns the open document p.uri names.
  self.documentOf = function (p) {
    const d = p && p.uri ? self.documents.get(String(p.uri)) : undefined;
    if (!d) {
      /** @type {HostError} */
      const err = new Error(`${p && p.uri} is not open (documents/open it first)`);
      err.rpcCode = -32001;
      err.rpcData = { kind: 'notOpen' };
      throw err;
    }
    return d;
  };

  // shutdown deactivates in reverse activation order, within ms in all.
  self.shutdown = async function (ms) {
    const end = Date.now() + ms;
    const results = [];
    for (const e of order.slice().reverse()) {
      const left = end - Date.now();
      if (left <= 0) { results.push({ extension: e.id, error: 'deadline passed' }); continue; }
      try {
        await host.als.run({ ext: e, cause: undefined }, () => deadline(Promise.resolve().then(() => e.module && typeof e.module.deactivate === 'function' && e.module.deactivate()), left, 'deactivate did not finish in time'));
        for (const d of e.context ? e.context.subscriptions : []) try { d.dispose(); } catch { /* reported by nobody: shutting down */ }
        results.push({ extension: e.id });
      } catch (err) {
        results.push({ extension: e.id, error: err.message });
      }
    }
    return { deactivated: results };
  };

  return self;
};
