// @ts-check
'use strict';
// The parts of vscode.window a user would answer or look at: quick picks,
// input boxes and messages with choices (asked of the launcher: "ui/*"
// requests, which the driver's client answers; with no one to answer they
// resolve as dismissed), tree views (the launcher asks for their items:
// "tree/children"), and terminals (there is no shell: a terminal is a
// record the launcher sees as "terminal" events; an extension's
// Pseudoterminal gets the text sent to it and its output is reported).
const { Shared, never } = require('./shared.js');
const { MarkdownString, Uri, ThemeIcon } = require('./types.js');

// MAX_TREE_ITEMS caps the children one tree/children answer carries.
const MAX_TREE_ITEMS = 5000;

const str = (v) => (v === undefined || v === null ? undefined : String(v));
const label = (v) => (v && typeof v === 'object' ? str(v.label) : str(v));
const text = (v) => (v instanceof MarkdownString || (v && typeof v.value === 'string') ? String(v.value) : str(v));

module.exports = function windowParts(host, reg) {
  const views = new Map(); // view id -> {ext, provider, handles, elements, next, view}
  const terminals = [];
  const ev = (n) => new Shared(host, n);
  const termEvents = { open: ev('onDidOpenTerminal'), close: ev('onDidCloseTerminal'), active: ev('onDidChangeActiveTerminal'), write: ev('onDidWriteTerminalData'), state: ev('onDidChangeTerminalState') };
  let activeTerminal;
  let nextTerminal = 1;

  // ask sends a ui request to the launcher; null means dismissed.
  async function ask(ext, method, params) {
    try {
      return await host.request(method, Object.assign({ extension: ext.id }, params));
    } catch (err) {
      host.emit(ext, 'error', { text: `${method}: ${err && err.message || err}` });
      return null;
    }
  }

  // pickItems normalizes quick pick items for the launcher.
  const pickItems = (items) => items.map((it) => (typeof it === 'string' ? { label: it } : {
    label: label(it.label) || '', description: str(it.description), detail: str(it.detail), picked: it.picked || undefined, kind: it.kind === -1 ? 'separator' : undefined,
  }));

  async function showQuickPick(ext, items, options, tok) {
    items = await items;
    if (!Array.isArray(items)) return undefined;
    const o = options || {};
    const r = await ask(ext, 'ui/quickPick', { title: str(o.title), placeHolder: str(o.placeHolder), canPickMany: !!o.canPickMany, items: pickItems(items) });
    if (tok && tok.isCancellationRequested) return undefined;
    const sel = r && Array.isArray(r.selected) ? r.selected.filter((i) => Number.isInteger(i) && i >= 0 && i < items.length && items[i].kind !== -1).map((i) => items[i]) : null;
    if (!sel) return undefined;
    if (typeof o.onDidSelectItem === 'function') for (const s of sel) try { o.onDidSelectItem(s); } catch { /* the extension's own */ }
    return o.canPickMany ? sel : sel[0];
  }

  // showInputBox asks for text; a validateInput failure is put to the
  // user again (at most five times), as VS Code keeps the box open.
  async function showInputBox(ext, options, tok) {
    const o = options || {};
    let validation;
    for (let attempt = 0; attempt < 5; attempt++) {
      const r = await ask(ext, 'ui/inputBox', { title: str(o.title), prompt: str(o.prompt), value: str(o.value), placeHolder: str(o.placeHolder), password: !!o.password, validationMessage: validation });
      if (!r || typeof r.value !== 'string' || (tok && tok.isCancellationRequested)) return undefined;
      if (typeof o.validateInput !== 'function') return r.value;
      let v = await o.validateInput(r.value);
      if (v && typeof v === 'object') v = v.message;
      if (!v) return r.value;
      validation = String(v);
    }
    return undefined;
  }

  // message shows a message; with items, the launcher may choose one.
  function message(ext, level) {
    return async (msg, ...rest) => {
      let options = {};
      if (rest.length && rest[0] && typeof rest[0] === 'object' && (typeof rest[0].modal === 'boolean' || typeof rest[0].detail === 'string') && typeof rest[0].title !== 'string') options = rest.shift();
      const items = rest.filter((i) => i !== undefined);
      host.emit(ext, 'message', { level, text: String(msg) + (options.detail ? '\n' + options.detail : '') });
      if (items.length === 0) return undefined;
      const r = await ask(ext, 'ui/message', { level, text: String(msg), modal: !!options.modal, items: items.map((i) => (typeof i === 'string' ? i : String(i.title))) });
      const i = r && Number.isInteger(r.selected) ? r.selected : -1;
      return i >= 0 && i < items.length ? items[i] : undefined;
    };
  }

  // quickPick is window.createQuickPick: show() asks the launcher, then
  // fires the selection and accept (or hide when dismissed).
  function createQuickPick(ext, api) {
    const e = { value: new api.EventEmitter(), accept: new api.EventEmitter(), active: new api.EventEmitter(), selection: new api.EventEmitter(), hide: new api.EventEmitter(), button: new api.EventEmitter(), itemButton: new api.EventEmitter() };
    let shown = false;
    const qp = {
      items: [], activeItems: [], selectedItems: [], value: '', title: undefined, step: undefined, totalSteps: undefined, placeholder: undefined,
      canSelectMany: false, matchOnDescription: false, matchOnDetail: false, keepScrollPosition: false, busy: false, enabled: true, ignoreFocusOut: false, buttons: [],
      onDidChangeValue: e.value.event, onDidAccept: e.accept.event, onDidChangeActive: e.active.event, onDidChangeSelection: e.selection.event,
      onDidHide: e.hide.event, onDidTriggerButton: e.button.event, onDidTriggerItemButton: e.itemButton.event,
      show() {
        if (shown) return;
        shown = true;
        setImmediate(async () => {
          const items = qp.items.slice();
          const r = await ask(ext, 'ui/quickPick', { title: str(qp.title), placeHolder: str(qp.placeholder), canPickMany: !!qp.canSelectMany, value: qp.value, items: pickItems(items), step: qp.step, totalSteps: qp.totalSteps });
          if (!shown) return;
          const sel = r && Array.isArray(r.selected) ? r.selected.filter((i) => Number.isInteger(i) && i >= 0 && i < items.length).map((i) => items[i]) : null;
          if (r && typeof r.value === 'string' && r.value !== qp.value) { qp.value = r.value; e.value.fire(r.value); }
          if (!sel) { shown = false; e.hide.fire(); return; }
          qp.activeItems = sel.slice(0, 1); e.active.fire(qp.activeItems);
          qp.selectedItems = sel; e.selection.fire(sel);
          e.accept.fire();
          if (shown) { shown = false; }
        });
      },
      hide() { if (!shown) return; shown = false; e.hide.fire(); },
      dispose() { if (shown) qp.hide(); for (const x of Object.values(e)) x.dispose(); },
    };
    return qp;
  }

  function createInputBox(ext, api) {
    const e = { value: new api.EventEmitter(), accept: new api.EventEmitter(), hide: new api.EventEmitter(), button: new api.EventEmitter() };
    let shown = false;
    const ib = {
      value: '', valueSelection: undefined, placeholder: undefined, password: false, prompt: undefined, validationMessage: undefined, title: undefined,
      step: undefined, totalSteps: undefined, busy: false, enabled: true, ignoreFocusOut: false, buttons: [],
      onDidChangeValue: e.value.event, onDidAccept: e.accept.event, onDidHide: e.hide.event, onDidTriggerButton: e.button.event,
      show() {
        if (shown) return;
        shown = true;
        setImmediate(async () => {
          const r = await ask(ext, 'ui/inputBox', { title: str(ib.title), prompt: str(ib.prompt), value: str(ib.value), placeHolder: str(ib.placeholder), password: !!ib.password, validationMessage: text(ib.validationMessage) });
          if (!shown) return;
          if (!r || typeof r.value !== 'string') { shown = false; e.hide.fire(); return; }
          if (r.value !== ib.value) { ib.value = r.value; e.value.fire(r.value); }
          e.accept.fire();
        });
      },
      hide() { if (!shown) return; shown = false; e.hide.fire(); },
      dispose() { if (shown) ib.hide(); for (const x of Object.values(e)) x.dispose(); },
    };
    return ib;
  }

  // Tree views.
  function registerTree(ext, api, id, provider, options) {
    id = String(id);
    if (!provider || typeof provider.getChildren !== 'function') throw new TypeError(`tree view ${id}: a TreeDataProvider with getChildren is required`);
    const old = views.get(id);
    if (old && old.ext !== ext) throw new Error(`tree view ${id} is registered by ${old.ext.id}`);
    const v = { ext, provider, handles: new Map(), elements: new Map(), next: 1, options: options || {} };
    views.set(id, v);
    const sub = typeof provider.onDidChangeTreeData === 'function'
      ? provider.onDidChangeTreeData(() => host.emit(ext, 'treeChanged', { name: id })) : undefined;
    const ee = { sel: new api.EventEmitter(), vis: new api.EventEmitter(), exp: new api.EventEmitter(), col: new api.EventEmitter(), chk: new api.EventEmitter() };
    const view = {
      visible: false, selection: [], title: undefined, description: undefined, message: undefined, badge: undefined,
      onDidChangeSelection: ee.sel.event, onDidChangeVisibility: ee.vis.event, onDidExpandElement: ee.exp.event, onDidCollapseElement: ee.col.event, onDidChangeCheckboxState: ee.chk.event,
      async reveal(element, opts) {
        if (element === undefined) return;
        handleOf(v, element);
        if (!opts || opts.select !== false) { view.selection = [element]; ee.sel.fire({ selection: view.selection }); }
        host.emit(ext, 'treeChanged', { name: id, text: 'reveal' });
      },
      dispose() { if (sub) sub.dispose(); if (views.get(id) === v) views.delete(id); },
    };
    v.view = view;
    return view;
  }

  function handleOf(v, element) {
    if (v.handles.has(element)) return v.handles.get(element);
    const h = String(v.next++);
    v.handles.set(element, h);
    v.elements.set(h, element);
    return h;
  }

  // children is the launcher's "tree/children": the items under handle
  // (the roots when none) of view, as JSON.
  async function children(p) {
    const v = views.get(String(p.view));
    if (!v) throw new Error(`no tree view ${p.view} (registered: ${[...views.keys()].join(', ') || 'none'})`);
    let parent;
    if (p.handle !== undefined && p.handle !== null && p.handle !== '') {
      if (!v.elements.has(String(p.handle))) throw new Error(`tree view ${p.view}: no item ${p.handle} (ask for its parent's children first)`);
      parent = v.elements.get(String(p.handle));
    }
    const store = host.als.getStore();
    return host.als.run({ ext: v.ext, cause: store && store.cause }, async () => {
      const kids = (await v.provider.getChildren(parent)) || [];
      const out = [];
      for (const k of kids.slice(0, MAX_TREE_ITEMS)) {
        const item = await v.provider.getTreeItem(k);
        out.push({
          handle: handleOf(v, k), label: label(item.label) || (item.resourceUri ? item.resourceUri.path.split('/').pop() : ''), id: str(item.id),
          description: typeof item.description === 'boolean' ? undefined : str(item.description), tooltip: text(item.tooltip),
          collapsibleState: item.collapsibleState || 0, contextValue: str(item.contextValue), resourceUri: item.resourceUri ? item.resourceUri.toString() : undefined,
          iconPath: item.iconPath instanceof ThemeIcon ? { id: item.iconPath.id } : item.iconPath instanceof Uri ? item.iconPath.toString() : undefined,
          command: item.command ? { title: str(item.command.title), command: String(item.command.command) } : undefined,
          checkboxState: typeof item.checkboxState === 'number' ? item.checkboxState : undefined,
        });
      }
      if (!parent) v.view.visible = true;
      return { items: out, truncated: kids.length > MAX_TREE_ITEMS || undefined };
    });
  }

  // Terminals.
  function createTerminal(ext, api, a, shellPath, shellArgs) {
    const opts = typeof a === 'object' && a ? a : { name: a, shellPath, shellArgs };
    const name = str(opts.name) || `Terminal ${nextTerminal}`;
    const id = nextTerminal++;
    const pty = opts.pty;
    const term = {
      name, creationOptions: Object.freeze(Object.assign({}, opts)), exitStatus: undefined, state: { isInteractedWith: false, shell: undefined },
      shellIntegration: undefined, processId: Promise.resolve(undefined),
      sendText(t, addNewLine) {
        const s = String(t) + (addNewLine === false ? '' : '\n');
        term.state = { isInteractedWith: true, shell: undefined };
        host.emit(ext, 'terminal', { name, text: s, level: 'input' });
        if (pty && typeof pty.handleInput === 'function') pty.handleInput(s);
      },
      show() { setActive(term); host.emit(ext, 'terminal', { name, level: 'show' }); },
      hide() { host.emit(ext, 'terminal', { name, level: 'hide' }); },
      dispose() { close(term, { code: undefined, reason: 3 }); if (pty && typeof pty.close === 'function') pty.close(); },
    };
    terminals.push(term);
    host.emit(ext, 'terminal', { name, level: 'open', text: opts.shellPath ? `${opts.shellPath} ${(opts.shellArgs || []).join(' ')}`.trim() : undefined });
    termEvents.open.fire(term);
    if (!opts.hideFromUser) setActive(term);
    if (pty) {
      const subs = [];
      if (typeof pty.onDidWrite === 'function') subs.push(pty.onDidWrite((data) => { host.emit(ext, 'terminal', { name, text: String(data), level: 'output' }); termEvents.write.fire({ terminal: term, data: String(data) }); }));
      if (typeof pty.onDidClose === 'function') subs.push(pty.onDidClose((code) => close(term, { code: typeof code === 'number' ? code : undefined, reason: 4 })));
      term._subs = subs;
      setImmediate(() => { try { pty.open({ columns: 80, rows: 24 }); } catch (err) { host.emit(ext, 'error', { text: `Pseudoterminal.open: ${err && err.stack || err}` }); } });
    }
    return term;
  }
  function setActive(t) { if (activeTerminal !== t) { activeTerminal = t; termEvents.active.fire(t); } }
  function close(t, status) {
    const i = terminals.indexOf(t);
    if (i < 0) return;
    terminals.splice(i, 1);
    t.exitStatus = status;
    for (const s of t._subs || []) s.dispose();
    host.emit(null, 'terminal', { name: t.name, level: 'close' });
    termEvents.close.fire(t);
    if (activeTerminal === t) setActive(terminals[terminals.length - 1]);
  }

  return {
    children,
    createTerminalFor: (ext, opts) => createTerminal(ext, null, opts),
    views: () => [...views.entries()].map(([id, v]) => ({ view: id, extension: v.ext.id })),
    api(ext, api) {
      return {
        showInformationMessage: message(ext, 'info'),
        showWarningMessage: message(ext, 'warning'),
        showErrorMessage: message(ext, 'error'),
        showQuickPick: (items, o, t) => showQuickPick(ext, items, o, t),
        showInputBox: (o, t) => showInputBox(ext, o, t),
        showWorkspaceFolderPick: async (o) => {
          const fs = api.workspace.workspaceFolders || [];
          const pick = await showQuickPick(ext, fs.map((f) => ({ label: f.name, description: f.uri.fsPath, folder: f })), { placeHolder: o && o.placeHolder });
          return pick && pick.folder;
        },
        showOpenDialog: async () => undefined,
        showSaveDialog: async () => undefined,
        createQuickPick: () => createQuickPick(ext, api),
        createInputBox: () => createInputBox(ext, api),
        registerTreeDataProvider: (id, provider) => { const v = registerTree(ext, api, id, provider); return new api.Disposable(() => v.dispose()); },
        createTreeView: (id, options) => registerTree(ext, api, id, options && options.treeDataProvider, options),
        createTerminal: (a, s, args) => createTerminal(ext, api, a, s, args),
        get terminals() { return terminals.slice(); },
        get activeTerminal() { return activeTerminal; },
        onDidOpenTerminal: termEvents.open.event(ext),
        onDidCloseTerminal: termEvents.close.event(ext),
        onDidChangeActiveTerminal: termEvents.active.event(ext),
        onDidChangeTerminalState: termEvents.state.event(ext),
        onDidWriteTerminalData: termEvents.write.event(ext),
        onDidChangeTerminalDimensions: never(),
        onDidChangeTerminalShellIntegration: never(),
        onDidStartTerminalShellExecution: never(),
        onDidEndTerminalShellExecution: never(),
        registerTerminalLinkProvider: () => new api.Disposable(() => {}),
        registerTerminalProfileProvider: () => new api.Disposable(() => {}),
      };
    },
  };
};
