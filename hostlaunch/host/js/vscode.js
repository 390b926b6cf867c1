'use strict';
// The `vscode` module extensions run against: the subset of the API the
// airvsx host implements. UI calls become events for the launcher.
const fs = require('node:fs');
const path = require('node:path');
const { Uri } = require('./uri.js');

class Disposable {
  constructor(fn) { this._fn = fn; }
  static from(...ds) { return new Disposable(() => ds.forEach((d) => d && d.dispose())); }
  dispose() { if (this._fn) { const f = this._fn; this._fn = null; f(); } }
}

class EventEmitter {
  constructor() {
    this._listeners = new Set();
    // event subscribes a listener; it returns a Disposable.
    this.event = (fn, thisArg, disposables) => {
      const l = { fn, thisArg };
      this._listeners.add(l);
      const d = new Disposable(() => this._listeners.delete(l));
      if (Array.isArray(disposables)) disposables.push(d);
      return d;
    };
  }
  fire(data) { for (const l of [...this._listeners]) l.fn.call(l.thisArg, data); }
  dispose() { this._listeners.clear(); }
}

// FileType is vscode.FileType.
const FileType = Object.freeze({ Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 });

// workspaceFS is workspace.fs: every call is a request to the launcher,
// which serves the workspace folders through os.Root (nothing outside
// them: a path elsewhere needs the fsWide capability and is refused).
function workspaceFS(ext, host) {
  const ask = async (method, uri, extra) => {
    const p = uri && (uri.fsPath || (typeof uri === 'string' ? uri : undefined));
    if (typeof p !== 'string') throw new TypeError('workspace.fs: a file Uri is required');
    return host.request('fs/' + method, Object.assign({ extension: ext.id, path: p }, extra));
  };
  return {
    readFile: async (uri) => Buffer.from((await ask('readFile', uri)).data, 'base64'),
    writeFile: async (uri, content) => { await ask('writeFile', uri, { data: Buffer.from(content).toString('base64') }); },
    stat: (uri) => ask('stat', uri),
    readDirectory: (uri) => ask('readDirectory', uri),
    createDirectory: async (uri) => { await ask('createDirectory', uri); },
    delete: async (uri, opts) => { await ask('delete', uri, { recursive: !!(opts && opts.recursive) }); },
  };
}

// memento is globalState/workspaceState, kept in file (JSON) so it lasts
// as long as the storage directory.
function memento(file) {
  let m = new Map();
  try { m = new Map(Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')))); } catch { /* none yet */ }
  return {
    get: (k, d) => (m.has(k) ? m.get(k) : d),
    update: async (k, v) => {
      if (v === undefined) m.delete(k); else m.set(k, JSON.parse(JSON.stringify(v)));
      fs.writeFileSync(file + '.tmp', JSON.stringify(Object.fromEntries(m)), { mode: 0o600 });
      fs.renameSync(file + '.tmp', file);
    },
    keys: () => [...m.keys()],
    setKeysForSync() {},
  };
}

// format fills {0} and {name} placeholders, as l10n.t does.
const format = (msg, args) => msg.replace(/\{(\w+)\}/g, (all, k) => (args && args[k] !== undefined ? String(args[k]) : all));

// createApi returns the vscode module of one extension: what it does is
// attributed to ext.
module.exports = function createApi(ext, reg) {
  const { host, commands, opts } = reg;
  const emit = (kind, f) => host.emit(ext, kind, f);
  const none = new EventEmitter().event; // an event that never fires
  const folders = (opts.workspaceFolders || []).map((f, index) => ({ uri: Uri.file(f), name: path.basename(f), index }));

  const message = (level) => (msg, ...items) => { emit('message', { level, text: String(msg) }); return Promise.resolve(undefined); };
  function outputChannel(name, o) {
    const out = (text) => emit('output', { name, text: String(text) });
    const ch = { name, append: out, appendLine: out, replace: out, clear() {}, show() {}, hide() {}, dispose() {} };
    if (o && o.log) for (const lv of ['trace', 'debug', 'info', 'warn', 'error']) ch[lv] = (m, ...a) => emit('output', { name, level: lv, text: format(String(m), a) });
    return ch;
  }
  function statusBarItem(id, alignment, priority) {
    if (typeof id !== 'string') { priority = alignment; alignment = id; id = ext.id; }
    const item = { id, alignment: alignment || 1, priority, text: '', tooltip: undefined, command: undefined, visible: false };
    const update = () => item.visible && emit('statusBar', { name: id, text: item.text });
    return Object.assign(item, {
      show() { item.visible = true; update(); },
      hide() { item.visible = false; },
      dispose() { item.visible = false; },
    });
  }
  function configuration(section) {
    const settings = opts.settings || {};
    const lookup = (key) => {
      const full = section ? section + '.' + key : key;
      if (Object.prototype.hasOwnProperty.call(settings, full)) return settings[full];
      return full.split('.').reduce((o, k) => (o && typeof o === 'object' && Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined), settings);
    };
    return {
      get: (k, d) => { const v = lookup(k); return v === undefined ? d : v; },
      has: (k) => lookup(k) !== undefined,
      inspect: (k) => ({ key: k, globalValue: lookup(k) }),
      update: async () => {},
    };
  }
  function extension(e) {
    return {
      id: e.id, extensionPath: e.dir, extensionUri: Uri.file(e.dir), packageJSON: e.desc.packageJSON || {},
      get isActive() { return e.state === 'active'; },
      get exports() { return e.exports; },
      activate: () => reg.activate(e),
    };
  }

  // elsewhere is an extension that runs in another host (its grants
  // differ from this one's): objects cannot cross between hosts. The
  // launcher activated it before this extension; its exports are a
  // stand-in whose every member throws, saying why.
  function elsewhere(id) {
    const why = () => new Error(`airvsx: ${id} runs in another extension host than ${ext.id} (their grants differ), so its exports are out of reach; airvsx shares no objects between hosts (grant both extensions the same to run them together)`);
    const stand = new Proxy({}, { get: (_, k) => { if (k === 'then') return undefined; throw why(); } });
    return { id, extensionPath: undefined, packageJSON: {}, isActive: true, exports: stand, activate: async () => stand };
  }

  const api = {
    version: opts.apiVersion || '1.140.0',
    Disposable, EventEmitter, Uri,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    UIKind: { Desktop: 1, Web: 2 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2, Three: 3 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    commands: {
      registerCommand(id, fn, thisArg) {
        id = String(id);
        if (commands.has(id)) throw new Error(`command '${id}' already exists`);
        const owner = reg.commandOwners.get(id);
        if (owner && owner.toLowerCase() !== ext.id.toLowerCase()) throw new Error(`command '${id}' is declared by ${owner}: ${ext.id} may not register it`);
        commands.set(id, { fn, thisArg, ext });
        host.notify('commands/registered', { command: id });
        return new Disposable(() => commands.delete(id));
      },
      executeCommand: (id, ...args) => reg.executeCommand(id, args),
      getCommands: async () => [...commands.keys()],
    },
    window: {
      showInformationMessage: message('info'),
      showWarningMessage: message('warning'),
      showErrorMessage: message('error'),
      showQuickPick: async () => undefined,
      showInputBox: async () => undefined,
      createOutputChannel: outputChannel,
      createStatusBarItem: statusBarItem,
      withProgress: (o, task) => Promise.resolve(task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: none })),
      activeTextEditor: undefined,
      visibleTextEditors: [],
      onDidChangeActiveTextEditor: none,
    },
    workspace: {
      workspaceFolders: folders.length ? folders : undefined,
      name: folders.length ? folders[0].name : undefined,
      rootPath: folders.length ? folders[0].uri.fsPath : undefined,
      getConfiguration: configuration,
      onDidChangeConfiguration: none,
      onDidOpenTextDocument: (fn, thisArg, ds) => {
        const l = (doc) => host.als.run({ ext, cause: undefined }, () => fn.call(thisArg, doc));
        reg.listeners.openDocument.add(l);
        const d = new Disposable(() => reg.listeners.openDocument.delete(l));
        if (Array.isArray(ds)) ds.push(d);
        return d;
      },
      textDocuments: [],
      isTrusted: true,
      fs: workspaceFS(ext, host),
    },
    FileType,
    extensions: {
      getExtension: (id) => {
        const key = String(id).toLowerCase();
        const e = reg.exts.get(key);
        if (e) return extension(e);
        if (reg.elsewhere.has(key)) return elsewhere(String(id));
        return undefined;
      },
      get all() { return [...reg.exts.values()].map(extension); },
      onDidChange: none,
    },
    env: {
      appName: 'airvsx', appHost: 'desktop', language: 'en', uiKind: 1, machineId: 'airvsx', sessionId: String(process.pid),
      clipboard: { readText: async () => '', writeText: async () => {} },
      openExternal: async () => false,
    },
    l10n: { t: (m, ...a) => (typeof m === 'object' ? format(m.message, m.args) : format(String(m), a.length === 1 && typeof a[0] === 'object' ? a[0] : a)), bundle: undefined, uri: undefined },
  };

  const s = ext.storage;
  api._context = {
    subscriptions: [],
    extensionPath: ext.dir,
    extensionUri: Uri.file(ext.dir),
    extension: extension(ext),
    storagePath: s.workspace, storageUri: Uri.file(s.workspace),
    globalStoragePath: s.global, globalStorageUri: Uri.file(s.global),
    logPath: s.log, logUri: Uri.file(s.log),
    extensionMode: 1,
    globalState: memento(path.join(s.global, '..', 'globalState.json')),
    workspaceState: memento(path.join(s.workspace, '..', 'workspaceState.json')),
    secrets: { get: async () => undefined, store: async () => {}, delete: async () => {}, onDidChange: none },
    asAbsolutePath: (rel) => path.join(ext.dir, rel),
  };
  return require('./unsupported.js').guard(api, require('./vscode-api.json'));
};
