// @ts-check
'use strict';
// The `vscode` module extensions run against (API version: the
// launcher's apiVersion). The classes and enums are types.js; documents
// and editors documents.js; language features languages.js; quick input,
// tree views and terminals window.js; workspace.fs, providers and
// configuration workspace.js; tasks tasks.js; the editor's own commands
// builtins.js. What the user would see or answer becomes an event or a
// "ui/*" request to the launcher.
const fs = require('node:fs');
const path = require('node:path');
const types = require('./types.js');
const { never, token } = require('./shared.js');
const { editBuilder } = require('./documents.js');

const { Disposable, EventEmitter, Uri } = types;

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

// environment is ExtensionContext.environmentVariableCollection: kept,
// for the terminals a driver may start.
function environment() {
  const m = new Map();
  const c = {
    persistent: true, description: undefined,
    replace: (k, v, o) => { m.set(k, { value: v, type: 1, options: o || {} }); },
    append: (k, v, o) => { m.set(k, { value: v, type: 2, options: o || {} }); },
    prepend: (k, v, o) => { m.set(k, { value: v, type: 3, options: o || {} }); },
    get: (k) => m.get(k),
    forEach: (fn, thisArg) => { for (const [k, v] of m) fn.call(thisArg, k, v, c); },
    delete: (k) => { m.delete(k); },
    clear: () => { m.clear(); },
    getScoped: () => c,
    [Symbol.iterator]: () => m.entries(),
  };
  return c;
}

// format fills {0} and {name} placeholders, as l10n.t does.
const format = (msg, args) => msg.replace(/\{(\w+)\}/g, (all, k) => (args && args[k] !== undefined ? String(args[k]) : all));

// createApi returns the vscode module of one extension: what it does is
// attributed to ext.
module.exports = function createApi(ext, reg) {
  const { host, commands, opts } = reg;
  const emit = (kind, f) => host.emit(ext, kind, f);
  const on = (shared) => shared.event(ext);
  const docs = reg.documents;
  const ws = reg.workspace;

  function outputChannel(name, o) {
    const out = (text) => emit('output', { name, text: String(text) });
    const ch = { name, append: out, appendLine: out, replace: out, clear() {}, show() {}, hide() {}, dispose() {} };
    if (o && (o === true || o.log)) {
      ch.logLevel = 3;
      ch.onDidChangeLogLevel = never();
      for (const lv of ['trace', 'debug', 'info', 'warn', 'error']) ch[lv] = (m, ...a) => emit('output', { name, level: lv, text: m instanceof Error ? String(m.stack || m) : format(String(m), a) });
    }
    return ch;
  }
  function statusBarItem(id, alignment, priority) {
    if (typeof id !== 'string') { priority = alignment; alignment = id; id = ext.id; }
    const item = { id, name: undefined, alignment: alignment || 1, priority, text: '', tooltip: undefined, command: undefined, color: undefined, backgroundColor: undefined, accessibilityInformation: undefined, visible: false };
    const update = () => item.visible && emit('statusBar', { name: id, text: item.text });
    return Object.assign(item, {
      show() { item.visible = true; update(); },
      hide() { item.visible = false; },
      dispose() { item.visible = false; },
    });
  }
  function extension(e) {
    return {
      id: e.id, extensionPath: e.dir, extensionUri: Uri.file(e.dir), packageJSON: e.desc.packageJSON || {}, extensionKind: 2,
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

  // registerCommand refuses a command another extension declares.
  function registerCommand(id, fn, thisArg) {
    id = String(id);
    if (typeof fn !== 'function') throw new TypeError(`command '${id}': the handler must be a function`);
    if (commands.has(id)) throw new Error(`command '${id}' already exists`);
    // The editor's own commands (vscode.open, the vscode.execute*Provider
    // family, ...) are not an extension's to take over for the others.
    if (reg.builtins.has(id)) throw new Error(`command '${id}' is the editor's own: ${ext.id} may not register it`);
    const owner = reg.commandOwners.get(id);
    if (owner && owner.toLowerCase() !== ext.id.toLowerCase()) throw new Error(`command '${id}' is declared by ${owner}: ${ext.id} may not register it`);
    commands.set(id, { fn, thisArg, ext });
    host.notify('commands/registered', { command: id });
    return new Disposable(() => commands.delete(id));
  }

  /** @type {Record<string, any>} the module an extension gets */
  const api = Object.assign({}, types, {
    version: opts.apiVersion || '1.140.0',
    commands: {
      registerCommand,
      registerTextEditorCommand(id, fn, thisArg) {
        return registerCommand(id, async (...args) => {
          const ed = docs.active;
          if (!ed) { emit('message', { level: 'warning', text: `command ${id} needs an active editor (open a document: --open, or documents/open and documents/show through the driver)` }); return undefined; }
          const b = editBuilder(ed.document);
          const r = await fn.call(thisArg, ed, b.builder, ...args);
          const edits = b.done();
          if (edits.length) docs.apply(ed.document, edits, 'editor');
          return r;
        });
      },
      executeCommand: (id, ...args) => reg.executeCommand(id, args),
      getCommands: async (filterInternal) => [...commands.keys(), ...(filterInternal ? [] : reg.builtins.ids())],
    },
    window: {
      createOutputChannel: outputChannel,
      createStatusBarItem: statusBarItem,
      setStatusBarMessage: (text, hide) => { emit('statusBar', { name: ext.id + '.message', text: String(text) }); return new Disposable(() => {}); },
      withProgress: async (o, task) => {
        const t = token(0);
        const title = o && o.title ? String(o.title) : '';
        if (title) emit('progress', { name: title, text: title });
        return task({ report: (v) => { if (v && v.message) emit('progress', { name: title, text: String(v.message) }); } }, t.token);
      },
      get activeTextEditor() { return docs.active; },
      get visibleTextEditors() { return docs.editors(); },
      onDidChangeActiveTextEditor: on(docs.events.activeEditor),
      onDidChangeVisibleTextEditors: on(docs.events.visibleEditors),
      onDidChangeTextEditorSelection: on(docs.events.selection),
      onDidChangeTextEditorVisibleRanges: on(docs.events.visibleRanges),
      onDidChangeTextEditorOptions: on(docs.events.editorOptions),
      onDidChangeTextEditorViewColumn: on(docs.events.viewColumn),
      showTextDocument: async (d, column, preserveFocus) => {
        const doc = d instanceof Uri || (d && typeof d.scheme === 'string' && !d.getText) ? await docs.openTextDocument(ext, d) : d;
        if (!doc || typeof doc.getText !== 'function') throw new TypeError('showTextDocument: a TextDocument or a Uri is required');
        const o = typeof column === 'object' && column ? column : { viewColumn: column, preserveFocus };
        return docs.show(doc, o);
      },
      createTextEditorDecorationType: (options) => {
        const key = `${ext.id}-decoration-${reg.nextId()}`;
        return { key, options, dispose() {} };
      },
      registerFileDecorationProvider: () => new Disposable(() => {}),
      registerUriHandler: (handler) => { reg.uriHandlers.set(ext.id.toLowerCase(), handler); return new Disposable(() => reg.uriHandlers.delete(ext.id.toLowerCase())); },
      registerWebviewViewProvider: () => new Disposable(() => {}),
      registerWebviewPanelSerializer: () => new Disposable(() => {}),
      registerCustomEditorProvider: () => new Disposable(() => {}),
      get state() { return { focused: true, active: true }; },
      onDidChangeWindowState: never(),
      get activeColorTheme() { return { kind: types.ColorThemeKind ? types.ColorThemeKind.Dark : 2 }; },
      onDidChangeActiveColorTheme: never(),
      tabGroups: docs.tabGroups(ext),
      get visibleNotebookEditors() { return []; },
      activeNotebookEditor: undefined,
      onDidChangeActiveNotebookEditor: never(),
      onDidChangeVisibleNotebookEditors: never(),
      onDidChangeNotebookEditorSelection: never(),
      onDidChangeNotebookEditorVisibleRanges: never(),
    },
    workspace: {
      get workspaceFolders() { return reg.folders.length ? reg.folders.slice() : undefined; },
      name: reg.folders.length ? reg.folders[0].name : undefined,
      rootPath: reg.folders.length ? reg.folders[0].uri.fsPath : undefined,
      workspaceFile: undefined,
      getWorkspaceFolder: (uri) => reg.folders.find((f) => uri && uri.scheme === f.uri.scheme && (uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(f.uri.fsPath + '/'))),
      updateWorkspaceFolders: () => false, // the sandbox mounted the folders it was given
      onDidChangeWorkspaceFolders: on(ws.events.folders),
      getConfiguration: (section, scope) => ws.configuration(ext, section, scope),
      onDidChangeConfiguration: on(ws.events.config),
      get textDocuments() { return docs.all(); },
      openTextDocument: (a, o) => docs.openTextDocument(ext, a === undefined && o ? o : a),
      onDidOpenTextDocument: on(docs.events.open),
      onDidCloseTextDocument: on(docs.events.close),
      onDidChangeTextDocument: on(docs.events.change),
      onWillSaveTextDocument: on(docs.events.willSave),
      onDidSaveTextDocument: on(docs.events.save),
      saveAll: async () => { for (const d of docs.all()) if (d.isDirty && !d.isUntitled) await docs.save(d); return true; },
      save: async (uri) => { const d = docs.get(uri); if (d && await docs.save(d)) return d.uri; return undefined; },
      applyEdit: (we) => ws.applyEdit(ext, we),
      findFiles: (include, exclude, max, tok) => ws.findFiles(ext, include, exclude, max, tok),
      asRelativePath: (p, f) => ws.asRelativePath(p, f),
      createFileSystemWatcher: (pattern, a, b, c) => ws.createFileSystemWatcher(ext, api, pattern, a, b, c),
      registerTextDocumentContentProvider: (scheme, provider) => ws.registerTextDocumentContentProvider(ext, api, scheme, provider),
      registerFileSystemProvider: (scheme, provider, o) => ws.registerFileSystemProvider(ext, api, scheme, provider, o),
      registerTaskProvider: (type, provider) => reg.tasks.api(ext, api).registerTaskProvider(type, provider),
      onDidCreateFiles: on(ws.events.createFiles),
      onDidDeleteFiles: on(ws.events.deleteFiles),
      onDidRenameFiles: on(ws.events.renameFiles),
      onWillCreateFiles: never(), onWillDeleteFiles: never(), onWillRenameFiles: never(),
      isTrusted: true,
      onDidGrantWorkspaceTrust: never(),
      notebookDocuments: [],
      onDidOpenNotebookDocument: never(), onDidCloseNotebookDocument: never(), onDidChangeNotebookDocument: never(),
      onDidSaveNotebookDocument: never(), onWillSaveNotebookDocument: never(),
      registerNotebookSerializer: () => new Disposable(() => {}),
      fs: ws.fsFor(ext),
      // encode and decode are UTF-8 (the host reads no encoding settings).
      encode: async (text) => new TextEncoder().encode(String(text)),
      decode: async (content) => new TextDecoder('utf-8').decode(content),
    },
    languages: null,
    tasks: null,
    extensions: {
      getExtension: (id) => {
        const key = String(id).toLowerCase();
        const e = reg.exts.get(key);
        if (e) return extension(e);
        if (reg.elsewhere.has(key)) return elsewhere(String(id));
        return undefined;
      },
      get all() { return [...reg.exts.values()].map(extension); },
      onDidChange: never(),
    },
    env: {
      appName: 'airvsx', appRoot: '', appHost: 'desktop', uriScheme: 'vscode', language: 'en', uiKind: 1, machineId: 'airvsx', sessionId: String(process.pid),
      remoteName: undefined, shell: '', isNewAppInstall: false, isAppPortable: false, isTelemetryEnabled: false, logLevel: 3,
      onDidChangeTelemetryEnabled: never(), onDidChangeShell: never(), onDidChangeLogLevel: never(),
      clipboard: { readText: async () => reg.clipboard, writeText: async (t) => { reg.clipboard = String(t); } },
      openExternal: async (uri) => { emit('openExternal', { uri: String(uri) }); return false; },
      asExternalUri: async (uri) => uri,
      createTelemetryLogger: () => ({ isUsageEnabled: false, isErrorsEnabled: false, onDidChangeEnableStates: never(), logUsage() {}, logError() {}, dispose() {} }),
    },
    authentication: {
      registerAuthenticationProvider: (id, label, provider) => {
        reg.auth.set(String(id), { ext, label, provider });
        const sub = typeof provider.onDidChangeSessions === 'function' ? provider.onDidChangeSessions(() => reg.authChanged.fire({ provider: { id, label } })) : undefined;
        return new Disposable(() => { if (sub) sub.dispose(); reg.auth.delete(String(id)); });
      },
      getSession: async (id, scopes, o) => {
        const p = reg.auth.get(String(id));
        if (!p) return undefined; // no such account: there is no one to sign in
        const sessions = await p.provider.getSessions(scopes, {});
        if (sessions && sessions.length) return sessions[0];
        if (o && (o.createIfNone || o.forceNewSession)) return p.provider.createSession(scopes || [], {});
        return undefined;
      },
      getAccounts: async (id) => { const p = reg.auth.get(String(id)); return p ? (await p.provider.getSessions(undefined, {}) || []).map((s) => s.account) : []; },
      onDidChangeSessions: on(reg.authChanged),
    },
    // There is no debugger: providers and factories are kept and never
    // asked, and startDebugging resolves false (it could not start), as
    // VS Code's does when a session fails to start.
    debug: {
      activeDebugSession: undefined, activeDebugConsole: { append() {}, appendLine() {} }, activeStackItem: undefined,
      get breakpoints() { return reg.breakpoints.slice(); },
      onDidStartDebugSession: never(), onDidTerminateDebugSession: never(), onDidChangeActiveDebugSession: never(),
      onDidReceiveDebugSessionCustomEvent: never(), onDidChangeActiveStackItem: never(),
      onDidChangeBreakpoints: on(reg.breakpointsChanged),
      registerDebugConfigurationProvider: () => new Disposable(() => {}),
      registerDebugAdapterDescriptorFactory: () => new Disposable(() => {}),
      registerDebugAdapterTrackerFactory: () => new Disposable(() => {}),
      startDebugging: async (folder, config) => {
        emit('message', { level: 'error', text: `airvsx has no debugger: ${ext.id} could not start debugging ${config && config.name ? config.name : ''}`.trim() });
        return false;
      },
      stopDebugging: async () => {},
      addBreakpoints: (bs) => { reg.breakpoints.push(...bs); reg.breakpointsChanged.fire({ added: bs.slice(), removed: [], changed: [] }); },
      removeBreakpoints: (bs) => {
        const removed = bs.filter((b) => reg.breakpoints.includes(b));
        reg.breakpoints = reg.breakpoints.filter((b) => !removed.includes(b));
        reg.breakpointsChanged.fire({ added: [], removed, changed: [] });
      },
      asDebugSourceUri: (source) => Uri.from({ scheme: 'debug', path: String(source && (source.path || source.name) || ''), query: source && source.sourceReference ? `ref=${source.sourceReference}` : '' }),
    },
    l10n: { t: (m, ...a) => (typeof m === 'object' ? format(m.message, m.args) : format(String(m), a.length === 1 && typeof a[0] === 'object' ? a[0] : a)), bundle: undefined, uri: undefined },
  });
  api.languages = reg.languages.api(ext, api);
  api.tasks = reg.tasks.api(ext, api);
  // messages, quick input, trees and terminals (getters kept as getters)
  Object.defineProperties(api.window, Object.getOwnPropertyDescriptors(reg.window.api(ext, api)));

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
    environmentVariableCollection: environment(),
    globalState: memento(path.join(s.global, '..', 'globalState.json')),
    workspaceState: memento(path.join(s.workspace, '..', 'workspaceState.json')),
    secrets: { get: async (k) => reg.secrets.get(ext.id + '/' + k), store: async (k, v) => { reg.secrets.set(ext.id + '/' + k, String(v)); }, delete: async (k) => { reg.secrets.delete(ext.id + '/' + k); }, onDidChange: never() },
    asAbsolutePath: (rel) => path.join(ext.dir, rel),
  };
  return require('./unsupported.js').guard(api, require('./vscode-api.json'));
};
